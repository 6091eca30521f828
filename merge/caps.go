package merge

import "math"

// Caps bounds what one turn retains, so that memory stays bounded whatever a
// hostile or buggy peer sends. A zero field means its default
// ([DefaultCaps]); a negative field too.
//
// Every cap is counted when it bites: a block refused by MaxBlocks or
// MaxStreamKeys (or by [MaxIdentBytes]) adds one to Counters.DroppedByCap;
// output cut by MaxOutputBytes shows in ToolCall.Truncated; text cut by
// MaxTextBytes shows in Block.Truncated.
//
// A turn holds at most about MaxBlocks × (MaxTextBytes + 3 × MaxIdentBytes +
// 200 B) + MaxStreamKeys × (MaxOutputBytes + 64 KiB) (64 KiB: the hard
// chunk limit, by which the output window may overshoot before its cut).
// With the defaults that is roughly 110 MiB + 80 MiB in the worst case;
// a real turn of 10000 blocks holds about 1.3 MiB (BenchmarkApply1M).
type Caps struct {
	// MaxBlocks caps the blocks applied per turn, of every kind, envelopes
	// and fallbacks alike (default 10000). The identity set used to detect
	// duplicates holds exactly the applied blocks, so it is bounded by this
	// cap too. Once it is reached, a block with a new identity is dropped;
	// a duplicate of an applied block is still reported as a duplicate.
	MaxBlocks int
	// MaxStreamKeys caps the stream keys per turn that hold tool state:
	// keys with a tool_call or tool_output_append block, or a done/aborted
	// block (default 256). A block that would add one more is dropped.
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

// MaxIdentBytes is the longest identifier a block may carry: its streamKey,
// fallback ID, payload tool or tool_call_id. A longer one drops the block
// (DroppedByCap): identifiers are keys, and cutting them would merge blocks
// that differ.
const MaxIdentBytes = identCap

// The default caps.
const (
	DefaultMaxBlocks      = 10000
	DefaultMaxStreamKeys  = 256
	DefaultMaxOutputBytes = 256 << 10
	DefaultMaxTextBytes   = 8 << 10
)

// DefaultCaps returns the default caps.
func DefaultCaps() Caps {
	return Caps{
		MaxBlocks:      DefaultMaxBlocks,
		MaxStreamKeys:  DefaultMaxStreamKeys,
		MaxOutputBytes: DefaultMaxOutputBytes,
		MaxTextBytes:   DefaultMaxTextBytes,
	}
}

// withDefaults replaces zero and negative fields by their defaults.
func (c Caps) withDefaults() Caps {
	d := DefaultCaps()
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
