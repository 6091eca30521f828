package merge

import (
	"cmp"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tfrs/a2a-progress/envelope"
)

// Key is a block's identity within a turn: (StreamKey, Seq) for an envelope,
// ID (envelope.Reading.ID) for a fallback pseudo block, whose StreamKey and
// Seq are then zero, and ID for a projection block, whose StreamKey and Seq
// are then its own seq space (see [SourceProjection]).
type Key struct {
	StreamKey string `json:"streamKey"`
	Seq       int64  `json:"seq"`
	ID        string `json:"id"`
}

// Source says where a block came from.
type Source string

// The sources of a block.
const (
	// SourceEnvelope: a valid envelope.
	SourceEnvelope Source = "envelope"
	// SourceFallback: the text pseudo envelope of an update without a usable
	// envelope.
	SourceFallback Source = "fallback"
	// SourceProjection: progress of a producer with a seq space of its own,
	// e.g. a remote-invocation projection frame (PROTOCOL.md §5.1), whose
	// sequence counts per member, not per turn. It comes from a Reading
	// that is not a fallback yet has an ID (envelope.FromMessage never
	// makes one). Its identity is the ID; its Seq counts only within its
	// StreamKey, which names one tool call of that space (never one of the
	// envelopes' stream keys, even when the strings are equal). It is
	// placed by arrival like a fallback and stays out of the turn's seq
	// order, gaps and lateness. It may be any kind but tool_output_append.
	SourceProjection Source = "projection"
)

// Block is one applied block of a turn.
//
// Blocks are ordered by seq; a fallback (no seq) is placed by its arrival:
// after every envelope whose seq is at most After (when Anchored), before
// every envelope with a higher seq, and among fallbacks with the same anchor
// by Ordinal. A fallback that arrived before any envelope (Anchored false)
// comes before all envelopes. The fields After, Anchored and Ordinal travel in
// the block's [Op], so a [Receiver] places it the same way.
type Block struct {
	Key    Key
	Kind   envelope.Kind
	Status envelope.Status
	// Payload is the per-kind payload (envelope.Text for a fallback).
	Payload envelope.Payload
	Source  Source
	// Reason is why the update fell back; "" for an envelope.
	Reason envelope.Reason
	// OverSoftLimit is true when the chunk is over envelope.SoftChunkLimit.
	OverSoftLimit bool
	// Truncated counts the bytes cut from the end of the block's text by
	// Caps.MaxTextBytes. On a tool_output_append block, which has no such
	// cut, it marks a stub (only in a snapshot, [Receiver.Ops]): a chunk
	// whose text the output cap dropped, its Chunk "" and its size here.
	Truncated int64
	// Anchored is true for a fallback that arrived after some envelope.
	Anchored bool
	// After is, for an anchored fallback, the highest seq applied before it
	// arrived.
	After int64
	// Ordinal is, for a fallback, its 1-based arrival number among the
	// fallbacks applied to the turn; 0 for an envelope.
	Ordinal int64
	// Parent is the nesting extension (PROTOCOL.md §10): the key of the
	// tool call of this turn the block belongs under ("" at the top
	// level). Only an envelope has one. It is content, never identity or
	// place: a reader that ignores it still shows the block once, in order.
	Parent string
	// At is when the block was produced, as its first arrival said (see
	// Op.At); zero when unknown. A Turn or Receiver keeps it in the years
	// 1678 to 2261 and drops one outside them (PROTOCOL.md §4.4). It is
	// informational: never part of the block's identity, content or place.
	At time.Time
}

// comparePlace orders blocks in a view (see [Block]).
func comparePlace(a, b *Block) int {
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
func place(b *Block) (int64, int) {
	switch {
	case b.Source == SourceEnvelope:
		return b.Key.Seq, 1
	case b.Anchored:
		return b.After, 2
	default:
		return math.MinInt64, 0
	}
}

// valid reports whether b has the shape of a block: a kind with its
// payload, a status, a source with its identity (a fallback: with a reason
// of PROTOCOL.md §2.6). It is the cheap check of the hot path; a block
// decoded from JSON also passes Envelope.Validate.
func (b *Block) valid() bool {
	if b.Payload == nil || b.Payload.Kind() != b.Kind || !b.Status.Valid() ||
		b.Truncated < 0 || b.Truncated > envelope.MaxEnvelopeBytes {
		return false
	}
	if p, ok := b.Payload.(envelope.ToolOutputAppend); ok &&
		(len(p.Chunk) > envelope.HardChunkLimit || b.Truncated > envelope.HardChunkLimit || (b.Truncated > 0 && p.Chunk != "")) {
		// A chunk with Truncated is a snapshot's stub: no text, its size
		// (at most the hard limit) in Truncated.
		return false
	}
	if b.Parent != "" && (b.Source != SourceEnvelope || b.Parent == b.ToolKey()) {
		return false
	}
	switch b.Source {
	case SourceEnvelope:
		return b.Key.ID == "" && b.Reason == "" && !b.Anchored && b.After == 0 && b.Ordinal == 0
	case SourceFallback:
		return b.Kind == envelope.KindText && b.Key.StreamKey == "" && b.Key.Seq == 0 && (b.Anchored || b.After == 0) &&
			isFallbackReason(b.Reason)
	case SourceProjection:
		return b.Key.ID != "" && b.Key.StreamKey != "" && b.Reason == "" && b.Kind != envelope.KindToolOutputAppend &&
			(b.Anchored || b.After == 0)
	}
	return false
}

// placed reports whether b is placed by arrival (a fallback or a
// projection), identified by its ID.
func (b *Block) placed() bool { return b.Source != SourceEnvelope }

// identTooLong reports whether an identifier of b is over MaxIdentBytes.
func (b *Block) identTooLong() bool {
	if len(b.Key.StreamKey) > MaxIdentBytes || len(b.Key.ID) > MaxIdentBytes || len(b.Parent) > MaxIdentBytes {
		return true
	}
	switch p := b.Payload.(type) {
	case envelope.ToolCall:
		return len(p.Tool) > MaxIdentBytes || len(p.ToolCallID) > MaxIdentBytes
	case envelope.ToolOutputAppend:
		return len(p.Tool) > MaxIdentBytes || len(p.ToolCallID) > MaxIdentBytes
	}
	return false
}

// capText cuts the text of a thinking, text or error payload to max bytes,
// keeping the head and ending on a rune boundary.
func (b *Block) capText(max int) {
	cut := func(s string) string {
		if len(s) <= max {
			return s
		}
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
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

// ToolKey is the key of the tool call a block belongs to ([ToolCall.Key]):
// its streamKey, or the payload's tool_call_id when the streamKey is empty.
func (b *Block) ToolKey() string {
	if b.Key.StreamKey != "" {
		return b.Key.StreamKey
	}
	switch p := b.Payload.(type) {
	case envelope.ToolCall:
		return p.ToolCallID
	case envelope.ToolOutputAppend:
		return p.ToolCallID
	}
	return ""
}

// touchesTool reports whether b changes tool state: a tool_call, a chunk, or
// a done/aborted block of any kind.
func (b *Block) touchesTool() bool {
	if b.Source == SourceFallback {
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
