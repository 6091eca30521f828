package merge

import (
	"math"
	"sync/atomic"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// Budget is a memory budget in bytes: what a turn retains is charged to
// it before it is kept, and given back when it is let go (a tool call's
// output window evicting old chunks). A charge that does not fit is
// refused whole: the caller drops what it was for (the newest block, an
// artifact part) and counts it. A Budget may have a parent, charged
// alongside: a per-turn budget under a budget shared by every turn of a
// process bounds both the turn and their sum.
//
// The bytes counted are those a peer controls — texts, outputs,
// identifiers, artifact parts — plus a fixed estimate per retained block
// for its bookkeeping ([blockOverhead]); the Go runtime's own overhead
// (allocation classes, a map's spare room) comes on top.
//
// A Budget is safe for concurrent use. The zero value is not usable; a
// nil *Budget is an unlimited one.
type Budget struct {
	limit  int64
	used   atomic.Int64
	parent *Budget
}

// NewBudget returns a budget of limit bytes (≤ 0: unlimited) under parent
// (nil: none).
func NewBudget(limit int64, parent *Budget) *Budget {
	if limit <= 0 {
		limit = math.MaxInt64
	}
	return &Budget{limit: limit, parent: parent}
}

// Reserve charges n bytes to b and its ancestors and reports whether all
// of them had room; when one had not, nothing is charged.
func (b *Budget) Reserve(n int64) bool {
	if b == nil || n <= 0 {
		return true
	}
	if b.used.Add(n) > b.limit {
		b.used.Add(-n)
		return false
	}
	if !b.parent.Reserve(n) {
		b.used.Add(-n)
		return false
	}
	return true
}

// Release gives n bytes back to b and its ancestors.
func (b *Budget) Release(n int64) {
	for ; b != nil && n > 0; b = b.parent {
		b.used.Add(-n)
	}
}

// ReleaseAll gives back everything charged to b, to b and its ancestors:
// for the owner of a per-turn budget whose turn is gone.
func (b *Budget) ReleaseAll() {
	if b == nil {
		return
	}
	n := b.used.Swap(0)
	if n > 0 {
		b.parent.Release(n)
	}
}

// Used returns the bytes charged to b now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Limit returns b's limit in bytes (math.MaxInt64 when unlimited).
func (b *Budget) Limit() int64 {
	if b == nil {
		return math.MaxInt64
	}
	return b.limit
}

// blockOverhead is what a retained block is charged on top of its
// strings: its record and its slots in the turn's indexes (about 120
// bytes), rounded up.
const blockOverhead = 128

// streamOverhead is what a tool call's state is charged on top of its key.
const streamOverhead = 320

// blockCost is what keeping b charges the budget: its strings and the
// overhead of its record.
func blockCost(b *schema.Block) int64 {
	n := int64(blockOverhead) + int64(len(b.Key.StreamKey)+len(b.Key.ID))
	switch p := b.Payload.(type) {
	case envelope.Text:
		n += int64(len(p.Text))
	case envelope.Thinking:
		n += int64(len(p.Text))
	case envelope.ErrorPayload:
		n += int64(len(p.Message))
	case envelope.ToolCall:
		n += int64(len(p.Tool) + len(p.ToolCallID))
	case envelope.ToolOutputAppend:
		n += int64(len(p.Tool) + len(p.ToolCallID) + len(p.Chunk))
	}
	if placedByArrival(b) {
		n += 2 * blockOverhead // a placed Block is kept whole, and indexed by ID
	}
	return n
}
