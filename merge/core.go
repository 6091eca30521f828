package merge

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// core is the merge state that Turn and Receiver share. Every piece of the
// view is a function of the set of applied blocks (plus the placement that
// fallbacks carry), never of their arrival order; that is what lets a
// Receiver rebuild a Turn's view from ops in any order.
type core struct {
	task   string
	turn   string
	caps   Caps
	sealed bool

	// envelopes holds the applied envelopes, placed the applied blocks
	// placed by arrival (fallbacks and projections), each in arrival
	// order; indices are stable. A ref (int32) names either: a ref >= 0 is
	// envelopes.at(ref), a ref < 0 is placedAt(ref) (see placedRef).
	envelopes pagedRecs
	placed    []schema.Block

	// The identity set, split so that the common case costs no hashing: an
	// envelope that arrives in order (seq > every seq before it) is
	// appended to inOrder, which therefore holds distinct seqs, sorted, and
	// is searched by bisection; every other one — late, or a tie with the
	// highest seq (a producer bug) — goes into others, keyed by its whole
	// identity. So a lookup costs O(log n) plus one hash, however many
	// blocks share a seq. byID maps the ID of a fallback or projection to
	// its ref. All hold applied blocks only, so Caps.MaxBlocks bounds them.
	inOrder []int32
	others  map[seqKey]int32
	byID    map[string]int32

	// order lists the refs shown in View.Blocks (all but chunks). It is in
	// view order while sorted is true; an out-of-order append clears sorted
	// and View sorts it once, in place.
	order  []int32
	sorted bool

	// seqs holds each seq of the first seqsOf recs once, sorted: the gap
	// counts need it, so View brings it up to date, off the hot path.
	seqs   []int64
	seqsOf int
	hasSeq bool
	maxSeq int64

	streams         []*stream
	byKey           map[string]int32
	byProjectionKey map[string]int32 // the projections' tool keys: a space of their own
	lastStream      *stream          // the envelope stream of the latest lookup: floods hit it

	counters schema.Counters

	// parents holds Block.Parent of the applied envelopes that have one
	// (nest.go), so that a turn without nesting pays nothing for it.
	parents map[seqKey]string

	// budget is charged for what the turn keeps (Caps.MaxTurnBytes, or
	// the shared Caps.Budget); charged is this turn's part of it, which
	// a Receiver gives back when it evicts the turn.
	budget  *Budget
	charged int64
}

// reserve charges n bytes to the turn's budget; false when they do not fit.
func (c *core) reserve(n int64) bool {
	if !c.budget.Reserve(n) {
		return false
	}
	c.charged += n
	return true
}

// release gives n bytes of the turn's charge back.
func (c *core) release(n int64) {
	c.budget.Release(n)
	c.charged -= n
}

// seqKey is an envelope's identity (seq, streamKey).
type seqKey struct {
	seq int64
	key string
}

// rec is one applied envelope, kept compact: it is the bulk of a turn's
// memory and of the per-event cost.
type rec struct {
	payload  envelope.Payload // for a chunk the output cap evicted, its stub: the text is gone
	key      string           // streamKey
	seq      int64
	at       int64 // Block.At in Unix nanoseconds; atUnknown when unknown
	status   envelope.Status
	n        int32 // a chunk's size; for other kinds the bytes cut by MaxTextBytes
	chunk    bool
	overSoft bool
}

// atUnknown is rec.at for a block without an at. Not 0, which is the
// epoch: a time like any other.
const atUnknown = math.MinInt64

// pagedRecs is a list of recs stored in pages, so that growing it never
// copies what it holds (a plain slice grown by append copies each element
// about five times over its life).
type pagedRecs struct {
	pages [][]rec
	n     int
}

const pageBits = 9 // 512 recs, 36 KiB a page

func (rs *pagedRecs) at(i int32) *rec { return &rs.pages[i>>pageBits][i&(1<<pageBits-1)] }

func (rs *pagedRecs) add(r rec) {
	last := len(rs.pages) - 1
	if last < 0 || len(rs.pages[last]) == 1<<pageBits {
		// The first page grows from small, for the many short turns; the
		// next ones are allocated whole.
		size := 1 << pageBits
		if last < 0 {
			size = 16
		}
		rs.pages = append(rs.pages, make([]rec, 0, size))
		last++
	}
	rs.pages[last] = append(rs.pages[last], r)
	rs.n++
}

// placedRef is the ref of placed[i]: refs of placed blocks are negative,
// so that one int32 names a block of either list.
func placedRef(i int) int32 { return ^int32(i) }

// placedAt returns the placed block a negative ref names.
func (c *core) placedAt(ref int32) *schema.Block { return &c.placed[^ref] }

func newCore(task, turn string, caps Caps) core {
	caps = caps.withDefaults()
	budget := caps.Budget
	if budget == nil {
		budget = NewBudget(caps.MaxTurnBytes, nil)
	}
	return core{
		task:   task,
		turn:   turn,
		caps:   caps,
		budget: budget,
		others: make(map[seqKey]int32),
		byID:   make(map[string]int32),
		byKey:  make(map[string]int32),
		sorted: true,
	}
}

// apply merges one block. place is true on the Turn, which stamps a
// fallback's placement from its arrival; a Receiver keeps the op's.
func (c *core) apply(b *schema.Block, place bool) Change {
	if !(b.Validate() == nil) {
		c.counters.Invalid++
		return Change{Effect: Invalid}
	}
	capText(b, c.caps.MaxTextBytes)
	if !b.At.IsZero() && (b.At.Before(schema.MinAt) || b.At.After(schema.MaxAt)) {
		// A time the peer's clock cannot have meant (PROTOCOL.md §4.4).
		b.At = time.Time{}
	}
	// Identity first: a duplicate of an applied block is a duplicate even
	// when a cap is full.
	if placedByArrival(b) {
		if i, ok := c.byID[b.Key.ID]; ok {
			return c.duplicate(samePlaced(c.placedAt(i), b))
		}
	} else if c.hasSeq && b.Key.Seq <= c.maxSeq {
		if r := c.lookup(b.Key.Seq, b.Key.StreamKey); r != nil {
			return c.duplicate(r.same(b) && c.parentOf(r) == b.Parent)
		}
	}
	if c.envelopes.n+len(c.placed) >= c.caps.MaxBlocks {
		return c.dropped(CapBlocks)
	}
	if identTooLong(b) {
		return c.dropped(CapIdent)
	}
	cost := blockCost(b)
	if !c.reserve(cost) {
		return c.dropped(CapBytes)
	}
	var st *stream
	if touchesTool(b) {
		var refused Cap
		if st, refused = c.stream(b.ToolKey(), b.Source == schema.SourceProjection); st == nil {
			c.release(cost)
			return c.dropped(refused)
		}
	}

	ch := Change{Effect: Applied}
	var ref int32
	if placedByArrival(b) {
		if place {
			b.Anchored, b.After, b.Ordinal = c.hasSeq, c.maxSeq, int64(len(c.placed))+1
		}
		ref = placedRef(len(c.placed))
		c.placed = append(c.placed, *b)
		c.byID[b.Key.ID] = ref
		if b.Source == schema.SourceFallback {
			if c.counters.Fallbacks == nil {
				c.counters.Fallbacks = make(map[envelope.Reason]int64)
			}
			c.counters.Fallbacks[b.Reason]++
		}
	} else {
		seq := b.Key.Seq
		inOrder := !c.hasSeq || seq > c.maxSeq
		if c.hasSeq && seq < c.maxSeq {
			ch.Late = true
			c.counters.Late++
		}
		if inOrder {
			c.hasSeq, c.maxSeq = true, seq
		}
		ref = int32(c.envelopes.n)
		r := rec{payload: b.Payload, key: b.Key.StreamKey, seq: seq, n: int32(b.Truncated),
			status: b.Status, overSoft: b.OverSoftLimit}
		r.at = atUnknown
		if !b.At.IsZero() {
			r.at = b.At.UnixNano()
		}
		if p, ok := b.Payload.(envelope.ToolOutputAppend); ok {
			// A chunk's size; a snapshot's stub (see Receiver.Ops) has
			// no text and its size in Truncated.
			r.chunk, r.n = true, int32(len(p.Chunk)+int(b.Truncated))
		}
		if inOrder {
			c.inOrder = append(c.inOrder, ref)
		} else {
			c.others[seqKey{seq, r.key}] = ref
		}
		c.envelopes.add(r)
		c.setParent(&r, b.Parent)
	}
	if b.Kind != envelope.KindToolOutputAppend {
		if c.sorted && len(c.order) > 0 && c.compareRefBlock(c.order[len(c.order)-1], b) > 0 {
			c.sorted = false
		}
		c.order = append(c.order, ref)
	}
	c.counters.Applied++
	ch.Op = schema.Op{Type: schema.OpBlock, Task: c.task, Turn: c.turn, At: b.At, Block: *b}

	if st != nil {
		was := st.last
		var changed bool
		if ref < 0 {
			changed = st.addPlaced(b)
		} else {
			changed = st.add(c, ref)
		}
		if st.isTool && (changed || was == nil || was.Status != st.status(c.sealed)) {
			// Most blocks (chunks) leave the summary as it was: it is
			// shared rather than allocated per event.
			st.last = new(schema.ToolCall)
			*st.last = st.summary(c.sealed)
		}
		if st.isTool {
			ch.Tool = st.last
			ch.ToolStatusChanged = was == nil || was.Status != st.last.Status
		}
	}
	return ch
}

// dropped counts a block refused by cap.
func (c *core) dropped(cap Cap) Change {
	c.counters.DroppedByCap++
	return Change{Effect: DroppedCap, Cap: cap}
}

// lookup returns the applied envelope (seq, key), or nil.
func (c *core) lookup(seq int64, key string) *rec {
	i, _ := slices.BinarySearchFunc(c.inOrder, seq, func(ref int32, seq int64) int {
		return cmp.Compare(c.envelopes.at(ref).seq, seq)
	})
	if i < len(c.inOrder) {
		if r := c.envelopes.at(c.inOrder[i]); r.seq == seq && r.key == key {
			return r
		}
	}
	if len(c.others) > 0 {
		if j, ok := c.others[seqKey{seq, key}]; ok {
			return c.envelopes.at(j)
		}
	}
	return nil
}

// duplicate reports a second arrival of an applied identity.
func (c *core) duplicate(same bool) Change {
	if same {
		c.counters.Duplicates++
		return Change{Effect: Duplicate}
	}
	c.counters.Conflicts++
	return Change{Effect: Conflict}
}

// samePlaced reports whether two placed blocks with one ID have the same
// content (PROTOCOL.md §6.1), overSoftLimit included as for an envelope.
// (A fallback and a projection never share an ID in a Turn: their IDs have
// different prefixes.)
func samePlaced(a, b *schema.Block) bool {
	return a.Source == b.Source && a.Key.StreamKey == b.Key.StreamKey && a.Key.Seq == b.Key.Seq &&
		a.Kind == b.Kind && a.Status == b.Status && a.Payload == b.Payload && a.Reason == b.Reason &&
		a.OverSoftLimit == b.OverSoftLimit
}

// same reports whether envelope b has the content of r.
func (r *rec) same(b *schema.Block) bool {
	if r.status != b.Status || r.overSoft != b.OverSoftLimit {
		return false
	}
	if !r.chunk {
		return r.payload == b.Payload
	}
	p, ok := b.Payload.(envelope.ToolOutputAppend)
	q := r.payload.(envelope.ToolOutputAppend)
	if !ok || p.Tool != q.Tool || p.ToolCallID != q.ToolCallID || int64(len(p.Chunk))+b.Truncated != int64(r.n) {
		return false
	}
	// When a cap dropped either text (here, or upstream: a stub), the size
	// is what is left to compare.
	return len(q.Chunk) != int(r.n) || b.Truncated != 0 || p.Chunk == q.Chunk
}

// block returns the block a ref names.
func (c *core) block(ref int32) schema.Block {
	if ref < 0 {
		return *c.placedAt(ref)
	}
	r := c.envelopes.at(ref)
	b := schema.Block{Key: schema.Key{StreamKey: r.key, Seq: r.seq}, Status: r.status, Payload: r.payload,
		Source: schema.SourceEnvelope, OverSoftLimit: r.overSoft, Parent: c.parentOf(r)}
	if r.at != atUnknown {
		b.At = time.Unix(0, r.at).UTC()
	}
	if r.chunk {
		b.Kind = envelope.KindToolOutputAppend
		// An evicted chunk is given as its stub: no text, its size in
		// Truncated.
		b.Truncated = int64(r.n) - int64(len(r.payload.(envelope.ToolOutputAppend).Chunk))
	} else {
		b.Kind, b.Truncated = r.payload.Kind(), int64(r.n)
	}
	return b
}

// compareRefBlock orders the block of ref against b (see [schema.Block]).
func (c *core) compareRefBlock(ref int32, b *schema.Block) int {
	if ref < 0 {
		return comparePlace(c.placedAt(ref), b)
	}
	r := c.envelopes.at(ref)
	if b.Source == schema.SourceEnvelope { // the common case, without a Block
		return compareSeqKey(r.seq, r.key, b.Key.Seq, b.Key.StreamKey)
	}
	return comparePlace(&schema.Block{Key: schema.Key{StreamKey: r.key, Seq: r.seq}, Source: schema.SourceEnvelope}, b)
}

func (c *core) compareRefs(i, j int32) int {
	if j < 0 {
		return c.compareRefBlock(i, c.placedAt(j))
	}
	r := c.envelopes.at(j)
	return c.compareRefBlock(i, &schema.Block{Key: schema.Key{StreamKey: r.key, Seq: r.seq}, Source: schema.SourceEnvelope})
}

// stream returns the tool state of key — in the projections' key space
// when proj is true — creating it unless that would go over
// Caps.MaxStreamKeys or the budget (then nil, and the cap that refused).
func (c *core) stream(key string, proj bool) (*stream, Cap) {
	if proj {
		if i, ok := c.byProjectionKey[key]; ok {
			return c.streams[i], ""
		}
		if refused := c.newStream(key); refused != "" {
			return nil, refused
		}
		if c.byProjectionKey == nil {
			c.byProjectionKey = make(map[string]int32)
		}
		st := &stream{key: key, proj: true}
		c.byProjectionKey[key] = int32(len(c.streams))
		c.streams = append(c.streams, st)
		return st, ""
	}
	if c.lastStream != nil && c.lastStream.key == key {
		return c.lastStream, ""
	}
	if i, ok := c.byKey[key]; ok {
		c.lastStream = c.streams[i]
		return c.lastStream, ""
	}
	if refused := c.newStream(key); refused != "" {
		return nil, refused
	}
	st := &stream{key: key}
	c.byKey[key] = int32(len(c.streams))
	c.streams = append(c.streams, st)
	return st, ""
}

// newStream checks that one more stream of key fits, and charges it.
func (c *core) newStream(key string) Cap {
	if len(c.streams) >= c.caps.MaxStreamKeys {
		return CapStreamKeys
	}
	if !c.reserve(streamOverhead + int64(len(key))) {
		return CapBytes
	}
	return ""
}

// view builds the snapshot. It sorts the internal indexes in place if an
// out-of-order arrival left them unsorted, so that repeated views and
// in-order arrivals after it stay cheap.
func (c *core) view() schema.View {
	if !c.sorted {
		slices.SortFunc(c.order, c.compareRefs)
		c.sorted = true
	}
	v := schema.View{Task: c.task, Turn: c.turn, Sealed: c.sealed, Counters: c.countersNow()}
	if len(c.order) > 0 {
		v.Blocks = make([]schema.Block, len(c.order))
		for k, ref := range c.order {
			v.Blocks[k] = c.block(ref)
		}
	}
	var tools []*stream
	for _, st := range c.streams {
		if st.isTool {
			tools = append(tools, st)
		}
	}
	slices.SortFunc(tools, compareStreams)
	for _, st := range tools {
		v.ToolCalls = append(v.ToolCalls, st.render(c))
	}
	nestCalls(v.ToolCalls, tools)
	return v
}

// countersNow returns a copy of the counters with Gaps brought up to date.
func (c *core) countersNow() schema.Counters {
	if c.seqsOf < c.envelopes.n {
		for i := int32(c.seqsOf); i < int32(c.envelopes.n); i++ {
			c.seqs = append(c.seqs, c.envelopes.at(i).seq)
		}
		c.seqsOf = c.envelopes.n
		slices.Sort(c.seqs) // mostly sorted already: cheap for pdqsort
		c.seqs = slices.Compact(c.seqs)
	}
	cs := cloneCounters(c.counters)
	cs.Gaps = missing(c.seqs)
	return cs
}

// ops returns an op for every applied block — a chunk whose text the
// output cap dropped as its stub — in view order, chunks at their seq.
func (c *core) ops() []schema.Op {
	refs := make([]int32, 0, c.envelopes.n+len(c.placed))
	for i := range int32(c.envelopes.n) {
		refs = append(refs, i)
	}
	for i := range len(c.placed) {
		refs = append(refs, placedRef(i))
	}
	slices.SortFunc(refs, c.compareRefs)
	ops := make([]schema.Op, len(refs))
	for k, ref := range refs {
		b := c.block(ref)
		ops[k] = schema.Op{Type: schema.OpBlock, Task: c.task, Turn: c.turn, At: b.At, Block: b}
	}
	return ops
}

// compareStreams orders tool calls: by FirstSeq, then Key, among the
// envelopes' calls; a projection's call stands where its first tool_call
// block was placed (its seq counts in another space).
func compareStreams(a, b *stream) int {
	if !a.proj && !b.proj {
		return compareSeqKey(a.first, a.key, b.first, b.key)
	}
	pa, pb := a.placeBlock(), b.placeBlock()
	return comparePlace(&pa, &pb)
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
// (i < j), saturating at MaxInt64. uint64 arithmetic keeps the span exact
// across the whole int64 range.
func between(seqs []int64, i, j int) int64 {
	span := uint64(seqs[j]) - uint64(seqs[i])
	return int64(min(span-uint64(j-i), math.MaxInt64))
}
