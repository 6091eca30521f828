package envelope

import "strings"

var keyEscaper = strings.NewReplacer("%", "%25", ":", "%3A")

// EscapeKey escapes s for one part of a composite key: "%" becomes "%25"
// and ":" becomes "%3A", so that parts joined by ":" never run together —
// two different lists of parts make two different keys. The projections'
// keys (PROTOCOL.md §5.1) and the keys of forwarded blocks (§10.2) are
// built with it.
func EscapeKey(s string) string { return keyEscaper.Replace(s) }

// ForwardKey is the key, in the forwarding agent's turn, of a block that
// had the key sub in a sub-agent's turn and is forwarded under the
// forwarding agent's tool call call (PROTOCOL.md §10.2): "fw:" +
// EscapeKey(call) + ":" + EscapeKey(sub). sub "" (the sub-agent's default
// stream) stays "": such blocks are in the forwarding turn's default
// stream, under call by their parent alone.
func ForwardKey(call, sub string) string {
	if sub == "" {
		return ""
	}
	return forwardPrefix + EscapeKey(call) + ":" + EscapeKey(sub)
}

// forwardPrefix begins every key [ForwardKey] makes.
const forwardPrefix = "fw:"
