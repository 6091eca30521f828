package envelope

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/textcut"
)

// Marshal validates e and returns its wire form: the JSON text that goes,
// as a string, under metadata["tfrs"]. As with encoding/json, bytes of a
// string that are not valid UTF-8 are written as U+FFFD.
func Marshal(e Envelope) (string, error) {
	b, err := json.Marshal(e)
	if err != nil {
		// json.Marshal wraps what MarshalJSON returns; hand back our own.
		if ee, ok := errors.AsType[*Error](err); ok {
			return "", ee
		}
		return "", err
	}
	return string(b), nil
}

// NewPart builds the Part a callee puts into a working status message: text
// is the human-readable fallback that a pre-upgrade caller displays (when ""
// it is [DefaultText] of e), and metadata["tfrs"] holds e as a JSON string.
// It refuses an invalid envelope and a chunk over [HardChunkLimit].
func NewPart(e Envelope, text string) (*a2a.Part, error) {
	s, err := Marshal(e)
	if err != nil {
		return nil, err
	}
	if text == "" {
		text = DefaultText(e)
	}
	p := a2a.NewTextPart(text)
	p.Metadata = map[string]any{MetadataKey: s}
	return p, nil
}

// NewStatusUpdate builds the whole working TaskStatusUpdateEvent for task
// with one agent message holding [NewPart](e, text).
func NewStatusUpdate(task a2a.TaskInfoProvider, e Envelope, text string) (*a2a.TaskStatusUpdateEvent, error) {
	p, err := NewPart(e, text)
	if err != nil {
		return nil, err
	}
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, task, p)
	return a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, msg), nil
}

// DefaultText is a one-line human-readable rendering of e, used as the text
// fallback when a writer does not supply one.
func DefaultText(e Envelope) string {
	switch p := e.Payload.(type) {
	case Thinking:
		return "thinking: " + p.Text
	case ToolCall:
		switch e.Status {
		case StatusDone:
			return "tool " + p.Tool + " done"
		case StatusAborted:
			return "tool " + p.Tool + " aborted"
		}
		return "calling tool " + p.Tool
	case ToolOutputAppend:
		return p.Chunk
	case Text:
		return p.Text
	case ErrorPayload:
		return "error: " + p.Message
	}
	return string(e.Kind) + " #" + strconv.FormatInt(e.Seq, 10)
}

// SplitOutput cuts long tool output into chunks of at most limit bytes
// (SoftChunkLimit when limit <= 0; a limit below utf8.UTFMax is raised to it,
// one above HardChunkLimit is lowered to it, so that every chunk can be sent),
// for tool_output_append envelopes with consecutive seqs. It cuts after a newline where it can; a single line longer
// than limit is cut at the limit, but never inside a UTF-8 sequence.
// Concatenating the chunks gives back s. An empty s gives no chunks.
func SplitOutput(s string, limit int) []string {
	if limit <= 0 {
		limit = SoftChunkLimit
	}
	if limit < utf8.UTFMax {
		limit = utf8.UTFMax // a chunk must be able to hold any rune
	}
	if limit > HardChunkLimit {
		limit = HardChunkLimit
	}
	var out []string
	for len(s) > limit {
		cut := lastNewline(s[:limit])
		if cut <= 0 {
			cut = textcut.Before(s, limit)
			if cut == 0 { // not UTF-8 at all; cut anyway rather than loop
				cut = limit
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// lastNewline returns the length of the prefix of s that ends with its last
// newline, or 0.
func lastNewline(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return i + 1
		}
	}
	return 0
}
