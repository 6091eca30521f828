package schema

import (
	"fmt"
	"time"

	"github.com/tfrs/a2a-progress/envelope"
)

// Key is a block's identity within a turn: (StreamKey, Seq) for an envelope,
// ID (envelope.Reading.ID) for a fallback pseudo block, whose StreamKey and
// Seq are then zero, and ID for a projection block, whose StreamKey and Seq
// are then its own seq space (see [SourceProjection]).
type Key struct {
	// StreamKey is the envelope's (or projection's) stream key; "" for a
	// fallback.
	StreamKey string `json:"streamKey"`
	// Seq is the seq within StreamKey; 0 for a fallback.
	Seq int64 `json:"seq"`
	// ID is the fallback's or projection's id; "" for an envelope.
	ID string `json:"id"`
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
// the block's [Op], so a merge.Receiver places it the same way.
type Block struct {
	// Key is the block's identity (see [Key]).
	Key Key
	// Kind is the envelope's kind (text for a fallback).
	Kind envelope.Kind
	// Status is the envelope's status (running for a fallback).
	Status envelope.Status
	// Payload is the per-kind payload (envelope.Text for a fallback).
	Payload envelope.Payload
	// Source says where the block came from: an envelope, a text
	// fallback or a projection.
	Source Source
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

// Validate checks that b has the shape of a block a Turn makes: a kind
// with its payload, a status, a source with its identity (a fallback: with
// a reason of PROTOCOL.md §2.6; a parent only on an envelope, never its
// own call). The JSON decoder checks it (and Envelope.Validate) on every
// block, and package merge on every block it applies; a program that
// builds blocks in Go — a bridge from another protocol, a test double —
// checks them with it. The error wraps [ErrBadOp].
//
// It costs no allocation for a valid block: merge calls it per event.
func (b *Block) Validate() error {
	if !b.valid() {
		return fmt.Errorf("%w: block %q/%d/%q is not a valid %s %s block", ErrBadOp, b.Key.StreamKey, b.Key.Seq, b.Key.ID, b.Source, b.Kind)
	}
	return nil
}

// valid is [Block.Validate] as a bool.
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
