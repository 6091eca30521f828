package merge

import (
	"cmp"
	"math"
	"strings"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/textcut"
	"github.com/tfrs/a2a-progress/schema"
)

// comparePlace orders blocks in a view (see [schema.Block]).
func comparePlace(a, b *schema.Block) int {
	pa, ca := place(a)
	pb, cb := place(b)
	if c := cmp.Compare(pa, pb); c != 0 {
		return c
	}
	if c := cmp.Compare(ca, cb); c != 0 {
		return c
	}
	if ca != 1 {
		// Blocks placed by arrival (fallbacks, projections) keep their
		// arrival order at one anchor.
		if c := cmp.Compare(a.Ordinal, b.Ordinal); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Key.StreamKey, b.Key.StreamKey); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Ordinal, b.Ordinal); c != 0 {
		return c
	}
	return cmp.Compare(a.Key.ID, b.Key.ID)
}

// place returns a block's position and a class that breaks ties at that
// position: an unanchored fallback (0) precedes an envelope (1) precedes a
// fallback anchored at its seq (2). Projections are placed like fallbacks.
func place(b *schema.Block) (int64, int) {
	switch {
	case b.Source == schema.SourceEnvelope:
		return b.Key.Seq, 1
	case b.Anchored:
		return b.After, 2
	default:
		return math.MinInt64, 0
	}
}

// placedByArrival reports whether b is placed by arrival (a fallback or a
// projection), identified by its ID.
func placedByArrival(b *schema.Block) bool { return b.Source != schema.SourceEnvelope }

// identTooLong reports whether an identifier of b is over envelope.MaxIdentBytes.
func identTooLong(b *schema.Block) bool {
	if len(b.Key.StreamKey) > envelope.MaxIdentBytes || len(b.Key.ID) > envelope.MaxIdentBytes || len(b.Parent) > envelope.MaxIdentBytes {
		return true
	}
	switch p := b.Payload.(type) {
	case envelope.ToolCall:
		return len(p.Tool) > envelope.MaxIdentBytes || len(p.ToolCallID) > envelope.MaxIdentBytes
	case envelope.ToolOutputAppend:
		return len(p.Tool) > envelope.MaxIdentBytes || len(p.ToolCallID) > envelope.MaxIdentBytes
	}
	return false
}

// capText cuts the text of a thinking, text or error payload to max bytes,
// keeping the head and ending on a rune boundary.
func capText(b *schema.Block, max int) {
	cut := func(s string) string {
		if len(s) <= max {
			return s
		}
		n := textcut.Before(s, max)
		b.Truncated += int64(len(s) - n)
		// A copy: the head alone must be what stays in memory, not the
		// whole string it was cut from (a fallback text can be a 10 MiB
		// frame's; an envelope's strings share one buffer).
		return strings.Clone(s[:n])
	}
	switch p := b.Payload.(type) {
	case envelope.Text:
		if len(p.Text) > max {
			b.Payload = envelope.Text{Text: cut(p.Text)}
		}
	case envelope.Thinking:
		if len(p.Text) > max {
			b.Payload = envelope.Thinking{Text: cut(p.Text)}
		}
	case envelope.ErrorPayload:
		if len(p.Message) > max {
			b.Payload = envelope.ErrorPayload{Message: cut(p.Message)}
		}
	}
}

// touchesTool reports whether b changes tool state: a tool_call, a chunk, or
// a done/aborted block of any kind.
func touchesTool(b *schema.Block) bool {
	if b.Source == schema.SourceFallback {
		return false
	}
	return b.Kind == envelope.KindToolCall || b.Kind == envelope.KindToolOutputAppend || b.Status != envelope.StatusRunning
}

// before orders two envelopes by (seq, streamKey).
func before(seqA int64, keyA string, seqB int64, keyB string) bool {
	return compareSeqKey(seqA, keyA, seqB, keyB) < 0
}

func compareSeqKey(seqA int64, keyA string, seqB int64, keyB string) int {
	if c := cmp.Compare(seqA, seqB); c != 0 {
		return c
	}
	return cmp.Compare(keyA, keyB)
}
