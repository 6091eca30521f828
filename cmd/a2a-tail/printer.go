package main

import (
	"log/slog"
	"strings"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/terminal"
)

// maxPeerMessage is the longest message from the peer the CLI writes to
// stderr or stdout or puts in a result's "error": an error message, a
// diagnostic, an id, a failure reason, an interrupt's question, an
// artifact's name. Longer ones are cut, and say how long they were. The
// reply and the agent's progress are not peer messages: they are the
// output, bounded by terminal.MaxReplyBytes and the merge caps.
const maxPeerMessage = 1024

// peerText is the one form in which text from a peer (or holding a peer's
// bytes: an error message, a task id) reaches the terminal: URLs with a
// password redacted, cut to maxPeerMessage, then made printable.
func peerText(s string) string {
	return printable(cutPeer(redactURLs(s)))
}

// errText is peerText of an error's message.
func errText(err error) string { return peerText(err.Error()) }

// peerData is peerText for a JSON value: redacted and cut, not escaped —
// jsonSafe escapes what a terminal would act on.
func peerData(s string) string { return cutPeer(redactURLs(s)) }

// cutPeer cuts s at maxPeerMessage bytes (on a rune boundary) and says how
// many bytes there were.
func cutPeer(s string) string { return terminal.Cut(s, maxPeerMessage) }

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

// logAttr is the ReplaceAttr of the stderr logger: every string and error
// value is redacted and cut like any peer text (the text handler quotes
// and escapes what is not printable).
func logAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, peerData(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			return slog.String(a.Key, peerData(err.Error()))
		}
	}
	return a
}

// caps are the merge caps of the flags (defaults where a flag is 0).
func (a *app) caps() merge.Caps {
	c := merge.DefaultCaps()
	c.MaxTurnBytes = a.turnBytes()
	if a.maxBlocks > 0 {
		c.MaxBlocks = a.maxBlocks
	}
	if a.maxKeys > 0 {
		c.MaxStreamKeys = a.maxKeys
	}
	return c
}

// noticeCap tells the user, once per run, that a cap started dropping
// blocks: which one (the Change names it), and the flag that raises it.
// The result's counters (droppedByCap) say how many in the end.
func (a *app) noticeCap(ch merge.Change) {
	if ch.Effect != merge.DroppedCap || a.capNotice {
		return
	}
	a.capNotice = true
	c := a.caps()
	switch ch.Cap {
	case merge.CapBlocks:
		a.warnf("a2a-tail: cap reached: %d blocks per turn (max blocks); newer blocks are dropped and counted (droppedByCap); raise it with --max-blocks\n", c.MaxBlocks)
	case merge.CapStreamKeys:
		a.warnf("a2a-tail: cap reached: %d tool-call stream keys per turn (max stream keys); newer tool calls are dropped and counted (droppedByCap); raise it with --max-stream-keys\n", c.MaxStreamKeys)
	case merge.CapBytes:
		a.warnf("a2a-tail: cap reached: the turn keeps %d bytes at most (max turn bytes); newer blocks are dropped and counted (droppedByCap); raise it with --max-turn-bytes\n", a.turnBytes())
	default:
		a.warnf("a2a-tail: a block with an identifier over %d bytes was dropped and counted (droppedByCap)\n", envelope.MaxIdentBytes)
	}
}

// turnBytes is the turn's byte budget of the flags.
func (a *app) turnBytes() int64 {
	if a.maxTurnBytes > 0 {
		return a.maxTurnBytes
	}
	return merge.DefaultMaxTurnBytes
}
