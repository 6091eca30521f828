package merge

import "github.com/tfrs/a2a-progress/schema"

// Effect says what Apply did with one reading.
type Effect int

// The effects of Apply. Their String forms are stable lower-case names.
const (
	// Applied: the block is new and is now part of the view.
	Applied Effect = iota + 1
	// Duplicate: a block with the same identity and the same content was
	// applied before; nothing changed (first wins).
	Duplicate
	// Conflict: a block with the same identity but different content was
	// applied before; nothing changed (first wins). It means a producer bug.
	Conflict
	// DroppedSealed: the turn is sealed; the block is counted, not applied.
	DroppedSealed
	// DroppedCap: a cap refused the block (see [Caps]).
	DroppedCap
	// Invalid: the block is not one the envelope package produces (bad kind,
	// status, payload or source); it is counted, not applied. It does not
	// happen for readings from envelope.FromMessage.
	Invalid
)

var effectNames = [...]string{
	Applied:       "applied",
	Duplicate:     "duplicate",
	Conflict:      "conflict",
	DroppedSealed: "dropped_sealed",
	DroppedCap:    "dropped_cap",
	Invalid:       "invalid",
}

// String returns the effect's stable name ("applied", "duplicate",
// "conflict", "dropped_sealed", "dropped_cap", "invalid").
func (r Effect) String() string {
	if r > 0 && int(r) < len(effectNames) {
		return effectNames[r]
	}
	return "unknown"
}

// MarshalText encodes the effect as its name.
func (r Effect) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Change reports what one Apply did.
type Change struct {
	// Effect is what happened to the block.
	Effect Effect
	// Late is true when an envelope was applied although a higher seq had
	// already been applied: it was inserted in its place, not appended.
	Late bool
	// Op is the op to forward to a front end; valid when Effect is Applied.
	Op schema.Op
	// Tool is the tool call the block touched, after the change, or nil.
	// It is a summary: Output, Truncated, Gaps, Chunks and Bytes are left
	// zero (View assembles them), so that a flood of chunks costs O(1) and
	// no allocation per chunk. Changes that leave the summary as it was
	// share one *ToolCall: read it, never modify it.
	Tool *schema.ToolCall
	// ToolStatusChanged is true when the block made Tool appear or changed
	// its Status.
	ToolStatusChanged bool
	// Cap names the cap that refused the block when Effect is DroppedCap.
	Cap Cap
}

// Cap names one of the caps of [Caps].
type Cap string

// The caps that may refuse a block.
const (
	// CapBlocks: Caps.MaxBlocks.
	CapBlocks Cap = "blocks"
	// CapStreamKeys: Caps.MaxStreamKeys.
	CapStreamKeys Cap = "streamKeys"
	// CapIdent: an identifier over envelope.MaxIdentBytes.
	CapIdent Cap = "ident"
	// CapBytes: the turn's byte budget (Caps.MaxTurnBytes, Caps.Budget).
	CapBytes Cap = "bytes"
)
