package merge

import (
	"github.com/tfrs/a2a-progress/envelope"
)

// env builds the reading of a valid envelope.
func env(streamKey string, seq int64, status envelope.Status, p envelope.Payload) envelope.Reading {
	return envelope.Reading{Part: 0, Envelope: envelope.Envelope{V: envelope.Version, Kind: p.Kind(),
		StreamKey: streamKey, Seq: seq, Status: status, Payload: p}}
}

// run builds a running envelope.
func run(streamKey string, seq int64, p envelope.Payload) envelope.Reading {
	return env(streamKey, seq, envelope.StatusRunning, p)
}

// fallback builds the reading of an update without a usable envelope.
func fallback(id, text string, reason envelope.Reason) envelope.Reading {
	return envelope.Reading{Part: -1, Fallback: true, Reason: reason, ID: id,
		Envelope: envelope.Envelope{V: envelope.Version, Kind: envelope.KindText, Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: text}}}
}

func text(s string) envelope.Text         { return envelope.Text{Text: s} }
func think(s string) envelope.Thinking    { return envelope.Thinking{Text: s} }
func call(tool string) envelope.ToolCall  { return envelope.ToolCall{Tool: tool} }
func errp(s string) envelope.ErrorPayload { return envelope.ErrorPayload{Message: s} }
func chunk(tool, s string) envelope.ToolOutputAppend {
	return envelope.ToolOutputAppend{Tool: tool, Chunk: s}
}

// applyAll applies rs to a new turn and returns it.
func applyAll(caps Caps, rs ...envelope.Reading) *Turn {
	t := NewTurn("t1", "m1", caps)
	for _, r := range rs {
		t.Apply(r)
	}
	return t
}

// results applies rs to t and returns what each Apply did.
func results(t *Turn, rs []envelope.Reading) []Effect {
	out := make([]Effect, len(rs))
	for i, r := range rs {
		out[i] = t.Apply(r).Effect
	}
	return out
}
