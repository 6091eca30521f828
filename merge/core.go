package merge

import (
	"math"
	"slices"

	"github.com/tfrs/a2a-progress/envelope"
)

// core is the merge state that Turn and Receiver share. Every piece of the
// view is a function of the set of applied blocks (plus the placement that
// fallbacks carry), never of their arrival order; that is what lets a
// Receiver rebuild a Turn's view from ops in any order.
type core struct {
	task   string
	caps   Caps
	sealed bool

	// recs holds every applied block in arrival order; indices are stable.
	recs []rec
	// bySeq and byID are the identity set: bySeq maps a seq to the first
	// rec with it (recs with the same seq and another streamKey are chained
	// through rec.next), byID a fallback's ID to its rec. Both hold applied
	// blocks only, so Caps.MaxBlocks bounds them.
	bySeq map[int64]int32
	byID  map[string]int32

	// order lists the recs shown in View.Blocks (all but chunks). It is in
	// view order while sorted is true; an out-of-order append clears sorted
	// and View sorts it once, in place.
	order  []int32
	sorted bool

	// seqs holds each applied seq once; sorted like order.
	seqs       []int64
	seqsSorted bool
	hasSeq     bool
	maxSeq     int64

	fallbacks int64 // fallbacks applied: the ordinal source

	streams []*stream
	byKey   map[string]int32

	counters Counters
}

// rec is one applied block.
type rec struct {
	b    Block
	next int32 // next rec with the same seq, or -1
	// For a chunk: its size, and whether the output cap evicted its text
	// (then b.Payload is nil and tool/callID keep what a duplicate is
	// compared with).
	size    int32
	evicted bool
	tool    string
	callID  string
}

func newCore(task string, caps Caps) core {
	return core{
		task:       task,
		caps:       caps.withDefaults(),
		bySeq:      make(map[int64]int32),
		byID:       make(map[string]int32),
		byKey:      make(map[string]int32),
		sorted:     true,
		seqsSorted: true,
	}
}

// apply merges one block. place is true on the Turn, which stamps a
// fallback's placement from its arrival; a Receiver keeps the op's.
func (c *core) apply(b Block, place bool) Change {
	if !b.valid() {
		c.counters.Invalid++
		return Change{Result: Invalid}
	}
	b.capText(c.caps.MaxTextBytes)
	// Identity first: a duplicate of an applied block is a duplicate even
	// when a cap is full.
	var chain int32 = -1
	if b.Source == SourceFallback {
		if i, ok := c.byID[b.Key.ID]; ok {
			return c.duplicate(i, &b)
		}
	} else if i, ok := c.bySeq[b.Key.Seq]; ok {
		chain = i
		for j := i; j >= 0; j = c.recs[j].next {
			if c.recs[j].b.Key.StreamKey == b.Key.StreamKey {
				return c.duplicate(j, &b)
			}
		}
	}
	if len(c.recs) >= c.caps.MaxBlocks || b.identTooLong() {
		c.counters.DroppedByCap++
		return Change{Result: DroppedCap}
	}
	var st *stream
	if b.touchesTool() {
		if st = c.stream(b.toolKey()); st == nil {
			c.counters.DroppedByCap++
			return Change{Result: DroppedCap}
		}
	}

	idx := int32(len(c.recs))
	late := false
	if b.Source == SourceFallback {
		if place {
			b.Anchored, b.After, b.Ordinal = c.hasSeq, c.maxSeq, c.fallbacks+1
		}
		c.fallbacks++
		c.byID[b.Key.ID] = idx
		if c.counters.Fallbacks == nil {
			c.counters.Fallbacks = make(map[envelope.Reason]int64)
		}
		c.counters.Fallbacks[b.Reason]++
	} else {
		seq := b.Key.Seq
		late = c.hasSeq && seq < c.maxSeq
		if late {
			c.counters.Late++
		}
		if !c.hasSeq || seq > c.maxSeq {
			c.hasSeq, c.maxSeq = true, seq
		}
		if chain < 0 {
			if len(c.seqs) > 0 && seq < c.seqs[len(c.seqs)-1] {
				c.seqsSorted = false
			}
			c.seqs = append(c.seqs, seq)
		}
		// The new rec heads the chain of recs with this seq.
		c.bySeq[seq] = idx
	}

	op := Op{Type: OpBlock, Task: c.task, Block: b}
	r := rec{b: b, next: chain}
	if p, ok := b.Payload.(envelope.ToolOutputAppend); ok {
		r.size = int32(len(p.Chunk))
	} else {
		if c.sorted && len(c.order) > 0 && comparePlace(&c.recs[c.order[len(c.order)-1]].b, &b) > 0 {
			c.sorted = false
		}
		c.order = append(c.order, idx)
	}
	c.recs = append(c.recs, r)
	c.counters.Applied++

	ch := Change{Result: Applied, Late: late, Op: op}
	if st != nil {
		was, wasTool := st.status(c.sealed), st.isTool
		st.add(c, idx)
		if st.isTool {
			tc := st.summary(c.sealed)
			ch.Tool = &tc
			ch.ToolStatusChanged = !wasTool || tc.Status != was
		}
	}
	return ch
}

// duplicate reports a second arrival of rec i's identity.
func (c *core) duplicate(i int32, b *Block) Change {
	if c.recs[i].same(b) {
		c.counters.Duplicates++
		return Change{Result: Duplicate}
	}
	c.counters.Conflicts++
	return Change{Result: Conflict}
}

// same reports whether b has the content of r. The placement of a fallback
// is not content: it depends on when the copy arrived.
func (r *rec) same(b *Block) bool {
	a := &r.b
	if a.Kind != b.Kind || a.Status != b.Status || a.Reason != b.Reason {
		return false
	}
	if p, ok := b.Payload.(envelope.ToolOutputAppend); ok && r.evicted {
		// The text is gone; compare what is left.
		return p.Tool == r.tool && p.ToolCallID == r.callID && len(p.Chunk) == int(r.size)
	}
	return a.Payload == b.Payload
}

// stream returns the tool state of key, creating it unless that would go
// over Caps.MaxStreamKeys (then nil).
func (c *core) stream(key string) *stream {
	if i, ok := c.byKey[key]; ok {
		return c.streams[i]
	}
	if len(c.streams) >= c.caps.MaxStreamKeys {
		return nil
	}
	st := &stream{key: key}
	c.byKey[key] = int32(len(c.streams))
	c.streams = append(c.streams, st)
	return st
}

// view builds the snapshot. It sorts the internal indexes in place if an
// out-of-order arrival left them unsorted, so that repeated views and
// in-order arrivals after it stay cheap.
func (c *core) view() View {
	if !c.sorted {
		slices.SortFunc(c.order, func(i, j int32) int { return comparePlace(&c.recs[i].b, &c.recs[j].b) })
		c.sorted = true
	}
	if !c.seqsSorted {
		slices.Sort(c.seqs)
		c.seqsSorted = true
	}
	v := View{Task: c.task, Sealed: c.sealed, Counters: c.counters.clone()}
	v.Counters.Gaps = missing(c.seqs)
	if len(c.order) > 0 {
		v.Blocks = make([]Block, len(c.order))
		for k, i := range c.order {
			v.Blocks[k] = c.recs[i].b
		}
	}
	for _, st := range c.streams {
		if st.isTool {
			v.ToolCalls = append(v.ToolCalls, st.render(c))
		}
	}
	slices.SortFunc(v.ToolCalls, func(a, b ToolCall) int {
		if a.FirstSeq != b.FirstSeq {
			if a.FirstSeq < b.FirstSeq {
				return -1
			}
			return 1
		}
		if a.Key < b.Key {
			return -1
		}
		if a.Key > b.Key {
			return 1
		}
		return 0
	})
	return v
}

// missing counts the seqs absent from the range of the sorted, distinct
// seqs.
func missing(seqs []int64) int64 {
	if len(seqs) < 2 {
		return 0
	}
	return between(seqs, 0, len(seqs)-1)
}

// between counts the seqs absent strictly between seqs[i] and seqs[j]
// (i < j). uint64 arithmetic keeps the span exact across the whole int64
// range.
func between(seqs []int64, i, j int) int64 {
	span := uint64(seqs[j]) - uint64(seqs[i])
	return int64(min(span-uint64(j-i), math.MaxInt64))
}
