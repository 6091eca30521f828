package termtext

import (
	"strings"

	"github.com/tfrs/a2a-progress/internal/textcut"
)

// MaxPeerBytes is the longest message from the peer a2a-tail writes to
// stderr or stdout or puts in a result's "error": an error message, a
// diagnostic, an id, a failure reason, an interrupt's question, an
// artifact's name. Longer ones are cut, and say how long they were. The
// reply and the agent's progress are not peer messages: they are the
// output, bounded by terminal.MaxReplyBytes and the merge caps.
const MaxPeerBytes = 1024

// Peer is the one form in which text from a peer (or holding a peer's
// bytes: an error message, a task id) reaches the terminal: URLs with a
// password redacted, cut to MaxPeerBytes, then made Printable.
func Peer(s string) string {
	return Printable(cutPeer(redactURLs(s)))
}

// Data is Peer for a JSON value: redacted and cut, not escaped —
// JSONSafe escapes what a terminal would act on.
func Data(s string) string { return cutPeer(redactURLs(s)) }

// cutPeer cuts s at MaxPeerBytes bytes (on a rune boundary) and says how
// many bytes there were.
func cutPeer(s string) string { return textcut.Cut(s, MaxPeerBytes) }

// redactURLs replaces the password of every URL in s ("scheme://user:pw@")
// with ***: a URL the user typed may carry one, and error messages quote it.
func redactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		rest := s[i+3:]
		end := strings.IndexAny(rest, "/?# \t\n\"'<>")
		if end < 0 {
			end = len(rest)
		}
		authority := rest[:end]
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			user := authority[:at]
			if c := strings.IndexByte(user, ':'); c >= 0 {
				b.WriteString(user[:c] + ":***")
				b.WriteString(authority[at:])
				s = rest[end:]
				continue
			}
		}
		b.WriteString(authority)
		s = rest[end:]
	}
}
