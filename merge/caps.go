package merge

import "math"

// Caps bounds what one turn retains, so that memory stays bounded whatever a
// hostile or buggy peer sends. A zero field means its default
// ([DefaultCaps]); a negative field too.
//
// The first bound is in bytes: MaxTurnBytes, one budget for everything the
// turn keeps — block texts, tool names and ids, tool outputs, out-of-order
// blocks, each block's bookkeeping ([blockOverhead]) — charged before a
// block is kept and given back when the output window evicts a chunk. A
// block that does not fit is dropped: past the budget the newest blocks
// go, and the view no longer is independent of arrival order (within it,
// it is). The counts (MaxBlocks, MaxStreamKeys) are a second line, far
// above what the budget lets a real turn reach.
//
// Every cap is counted when it bites: a block refused by the budget,
// MaxBlocks or MaxStreamKeys — or by envelope.MaxIdentBytes, the longest
// identifier a block may carry (its streamKey, fallback ID, parent,
// payload tool or tool_call_id: identifiers are keys, and cutting them
// would merge blocks that differ) — adds one to Counters.DroppedByCap, and its Change names the cap ([Change].Cap);
// output cut by MaxOutputBytes shows in ToolCall.Truncated; text cut by
// MaxTextBytes shows in Block.Truncated.
//
// So a turn holds about MaxTurnBytes at most (a charge is taken before
// its block is kept: it never overshoots), plus Go's own allocation
// overhead; a real turn of 10000 blocks holds about 1.3 MiB
// (BenchmarkApply1M).
type Caps struct {
	// MaxTurnBytes is the turn's budget in bytes (default
	// [DefaultMaxTurnBytes], 32 MiB). Ignored when Budget is set.
	MaxTurnBytes int64
	// Budget, when set, is charged instead of a budget of MaxTurnBytes of
	// the turn's own: a caller shares one budget between a turn and what
	// it keeps beside it (the client charges a turn's artifacts to the
	// same budget) or bounds many turns together. Every turn given these
	// Caps charges the same Budget.
	Budget *Budget
	// MaxBlocks caps the blocks applied per turn, of every kind, envelopes
	// and fallbacks alike (default 10000). The identity set used to detect
	// duplicates holds exactly the applied blocks, so it is bounded by this
	// cap too. Once it is reached, a block with a new identity is dropped;
	// a duplicate of an applied block is still reported as a duplicate.
	MaxBlocks int
	// MaxStreamKeys caps the stream keys per turn that hold tool state:
	// keys with a tool_call or tool_output_append block, or a done/aborted
	// block (default 10000, as many as blocks: a coding agent's turn may
	// have thousands of tool calls; the byte budget bounds their output).
	// A block that would add one more is dropped.
	MaxStreamKeys int
	// MaxOutputBytes caps the output retained per tool call (default
	// 256 KiB). The newest bytes are kept; ToolCall.Truncated counts the
	// bytes dropped from the head.
	MaxOutputBytes int
	// MaxTextBytes caps the text of a thinking, text or error block and of a
	// fallback (default 8 KiB, the spec's soft chunk limit). The head is kept
	// (cut at a rune boundary); Block.Truncated counts the bytes cut.
	MaxTextBytes int
}

// The default caps.
const (
	DefaultMaxBlocks      = 10000
	DefaultMaxStreamKeys  = 10000
	DefaultMaxOutputBytes = 256 << 10
	DefaultMaxTextBytes   = 8 << 10
	// DefaultMaxTurnBytes is the default byte budget of a turn: 32 MiB,
	// 25 000 times a real turn of a thousand blocks, an eighth of what
	// 128 tool calls with full output windows would hold.
	DefaultMaxTurnBytes = 32 << 20
)

// DefaultCaps returns the default caps.
func DefaultCaps() Caps {
	return Caps{
		MaxTurnBytes:   DefaultMaxTurnBytes,
		MaxBlocks:      DefaultMaxBlocks,
		MaxStreamKeys:  DefaultMaxStreamKeys,
		MaxOutputBytes: DefaultMaxOutputBytes,
		MaxTextBytes:   DefaultMaxTextBytes,
	}
}

// withDefaults replaces zero and negative fields by their defaults.
func (c Caps) withDefaults() Caps {
	d := DefaultCaps()
	if c.MaxTurnBytes <= 0 {
		c.MaxTurnBytes = d.MaxTurnBytes
	}
	if c.MaxBlocks <= 0 {
		c.MaxBlocks = d.MaxBlocks
	}
	c.MaxBlocks = min(c.MaxBlocks, math.MaxInt32) // blocks are indexed by int32
	if c.MaxStreamKeys <= 0 {
		c.MaxStreamKeys = d.MaxStreamKeys
	}
	if c.MaxOutputBytes <= 0 {
		c.MaxOutputBytes = d.MaxOutputBytes
	}
	if c.MaxTextBytes <= 0 {
		c.MaxTextBytes = d.MaxTextBytes
	}
	return c
}
