package merge

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/textcut"
	"github.com/tfrs/a2a-progress/schema"
)

// gapMarker is the line put into a tool call's Output between two chunks
// where the turn misses n seqs: "[gap: 3 seqs missing]\n" ("1 seq" for one).
// When the output before it does not end with a newline, a "\n" precedes the
// marker, so that the marker always stands on a line of its own.
//
// A missing seq is one the turn never received from any stream: seqs are
// shared by all stream keys, so a missing seq may or may not have been a
// chunk of this call. Seqs of other streams between two chunks are not gaps.
func gapMarker(n int64) string {
	if n == 1 {
		return "[gap: 1 seq missing]\n"
	}
	return "[gap: " + strconv.FormatInt(n, 10) + " seqs missing]\n"
}

// stream is the tool state of one key. Every field is a commutative
// function of the blocks applied (a minimum by (seq, streamKey), a sum, the
// newest chunks), so the arrival order never shows.
type stream struct {
	key    string
	isTool bool // a tool_call or chunk was seen
	first  int64

	// proj: a projection's call (its own key space and seq space);
	// anchored, after and ordinal are the placement of its tool_call block
	// that arrived first (the lowest Ordinal).
	proj     bool
	anchored bool
	after    int64
	ordinal  int64

	// start is the lowest tool_call block, chunk the names of the lowest
	// chunk (its text is not kept: it may be evicted), end the lowest
	// done or aborted block.
	start lowest[envelope.ToolCall]
	chunk lowest[envelope.ToolCall]
	end   lowest[envelope.Status]
	// startParent and chunkParent are the parents (PROTOCOL.md §10) of
	// the blocks start and chunk keep: the call's parent comes from the
	// block that names it.
	startParent, chunkParent string

	// heap holds the chunk recs kept for the output, a min-heap by
	// (seq, streamKey); retained is their size. Chunks outside the newest
	// Caps.MaxOutputBytes are evicted at once (their size goes to evicted),
	// so the retained set is the smallest seq-suffix of all chunks whose
	// size reaches the cap — the same whatever the arrival order.
	heap     []int32
	retained int64
	evicted  int64
	chunks   int
	bytes    int64

	// last is the summary the latest Change reported; shared, never
	// modified.
	last *schema.ToolCall

	// stub is the payload an evicted chunk keeps — its names without its
	// text (the names never share the text's memory: the envelope reader
	// gives a chunk a buffer of its own) — shared by the evicted chunks
	// of one name, so that a flood evicts without allocating.
	stub envelope.Payload
}

// stubOf returns the stub of an evicted chunk p: p without its text.
func (st *stream) stubOf(p envelope.ToolOutputAppend) envelope.Payload {
	if s, ok := st.stub.(envelope.ToolOutputAppend); ok && s.Tool == p.Tool && s.ToolCallID == p.ToolCallID {
		return st.stub
	}
	st.stub = envelope.ToolOutputAppend{Tool: p.Tool, ToolCallID: p.ToolCallID}
	return st.stub
}

// add applies rec idx, an envelope with this stream's key, and reports
// whether the summary may have changed.
func (st *stream) add(c *core, idx int32) (changed bool) {
	r := c.envelopes.at(idx)
	seq, sk := r.seq, r.key
	switch p := r.payload.(type) {
	case envelope.ToolCall:
		changed = st.markTool(seq)
		if st.start.offer(seq, sk, p) {
			changed, st.startParent = true, c.parentOf(r)
		}
	case envelope.ToolOutputAppend:
		changed = st.markTool(seq)
		if st.chunk.offer(seq, sk, envelope.ToolCall{Tool: p.Tool, ToolCallID: p.ToolCallID}) {
			changed, st.chunkParent = true, c.parentOf(r)
		}
		st.chunks++
		st.bytes += int64(r.n)
		if int(r.n) > len(p.Chunk) {
			// A stub: the output cap of the snapshot's producer already
			// dropped its text. It counts as evicted here too.
			st.evicted += int64(r.n)
			break
		}
		st.retained += int64(r.n)
		st.push(c, idx)
		st.evict(c)
	}
	if r.status != envelope.StatusRunning && st.end.offer(seq, sk, r.status) {
		changed = true
	}
	return changed
}

// addPlaced applies a projection block (never a chunk) with this stream's
// key and reports whether the summary may have changed. Its seq orders it
// within the stream only.
func (st *stream) addPlaced(b *schema.Block) (changed bool) {
	seq, sk := b.Key.Seq, b.Key.StreamKey
	if p, ok := b.Payload.(envelope.ToolCall); ok {
		changed = st.markTool(seq)
		if st.start.offer(seq, sk, p) {
			changed = true
		}
		if st.ordinal == 0 || b.Ordinal < st.ordinal {
			st.anchored, st.after, st.ordinal = b.Anchored, b.After, b.Ordinal
		}
	}
	if b.Status != envelope.StatusRunning && st.end.offer(seq, sk, b.Status) {
		changed = true
	}
	return changed
}

// placeBlock is where the stream's call stands among the turn's blocks.
func (st *stream) placeBlock() schema.Block {
	if st.proj {
		return schema.Block{Key: schema.Key{StreamKey: st.key}, Source: schema.SourceProjection, Anchored: st.anchored, After: st.after, Ordinal: st.ordinal}
	}
	return schema.Block{Key: schema.Key{StreamKey: st.key, Seq: st.first}, Source: schema.SourceEnvelope}
}

// lowest is what the lowest block by (seq, streamKey) of some sort said: a
// minimum, so it does not depend on the order the blocks arrived in.
type lowest[T any] struct {
	set bool
	seq int64
	sk  string
	v   T
}

// offer keeps v when its block (seq, sk) is lower than the one kept, and
// reports whether it did.
func (l *lowest[T]) offer(seq int64, sk string, v T) bool {
	if l.set && !before(seq, sk, l.seq, l.sk) {
		return false
	}
	*l = lowest[T]{set: true, seq: seq, sk: sk, v: v}
	return true
}

func (st *stream) markTool(seq int64) bool {
	if st.isTool && seq >= st.first {
		return false
	}
	st.isTool, st.first = true, seq
	return true
}

// evict drops the oldest chunks while the newer ones alone fill the cap.
func (st *stream) evict(c *core) {
	max := int64(c.caps.MaxOutputBytes)
	for len(st.heap) > 1 {
		top := c.envelopes.at(st.heap[0])
		if st.retained-int64(top.n) < max {
			return
		}
		st.pop(c)
		st.retained -= int64(top.n)
		st.evicted += int64(top.n)
		top.payload = st.stubOf(top.payload.(envelope.ToolOutputAppend))
		c.release(int64(top.n)) // the text is gone; the names stay in the shared stub
	}
}

func (st *stream) status(sealed bool) schema.ToolStatus {
	switch {
	case st.end.set:
		return schema.ToolStatus(st.end.v)
	case sealed:
		return schema.ToolUnfinished
	}
	return schema.ToolRunning
}

// summary is the tool call without what View assembles.
func (st *stream) summary(sealed bool) schema.ToolCall {
	named, parent := st.chunk.v, st.chunkParent
	if st.start.set {
		named, parent = st.start.v, st.startParent
	}
	return schema.ToolCall{Key: st.key, Tool: named.Tool, ToolCallID: named.ToolCallID, Status: st.status(sealed),
		Started: st.start.set, FirstSeq: st.first, Parent: parent}
}

// render is the tool call with its output, assembled once per View.
func (st *stream) render(c *core) schema.ToolCall {
	tc := st.summary(c.sealed)
	tc.Chunks, tc.Bytes, tc.Truncated = st.chunks, st.bytes, st.evicted
	if len(st.heap) == 0 {
		return tc
	}
	idx := slices.Clone(st.heap)
	slices.SortFunc(idx, func(i, j int32) int {
		a, b := c.envelopes.at(i), c.envelopes.at(j)
		return compareSeqKey(a.seq, a.key, b.seq, b.key)
	})
	// The cut lies inside the first retained chunk: the others alone are
	// under the cap (see evict).
	cut := max(st.retained-int64(c.caps.MaxOutputBytes), 0)
	chunk := chunkOf(c, idx[0])
	cut = int64(textcut.After(chunk, int(cut)))
	first := chunk[cut:]
	tc.Truncated += cut
	var sb strings.Builder
	sb.Grow(int(st.retained - cut))
	sb.WriteString(first)
	prev := c.envelopes.at(idx[0]).seq
	for _, i := range idx[1:] {
		seq := c.envelopes.at(i).seq
		if n := c.missingBetween(prev, seq); n > 0 {
			if s := sb.String(); s != "" && s[len(s)-1] != '\n' {
				sb.WriteByte('\n')
			}
			sb.WriteString(gapMarker(n))
			tc.Gaps++
		}
		sb.WriteString(chunkOf(c, i))
		prev = seq
	}
	tc.Output = sb.String()
	return tc
}

func chunkOf(c *core, i int32) string {
	return c.envelopes.at(i).payload.(envelope.ToolOutputAppend).Chunk
}

// missingBetween counts the seqs the turn misses strictly between a and b,
// both applied seqs (c.seqs is sorted).
func (c *core) missingBetween(a, b int64) int64 {
	if a == b {
		return 0
	}
	i, _ := slices.BinarySearch(c.seqs, a)
	j, _ := slices.BinarySearch(c.seqs, b)
	return between(c.seqs, i, j)
}

func (st *stream) less(c *core, i, j int32) bool {
	a, b := c.envelopes.at(i), c.envelopes.at(j)
	return before(a.seq, a.key, b.seq, b.key)
}

func (st *stream) push(c *core, idx int32) {
	h := append(st.heap, idx)
	for k := len(h) - 1; k > 0; {
		parent := (k - 1) / 2
		if !st.less(c, h[k], h[parent]) {
			break
		}
		h[k], h[parent] = h[parent], h[k]
		k = parent
	}
	st.heap = h
}

func (st *stream) pop(c *core) {
	h := st.heap
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for k := 0; ; {
		l, r, m := 2*k+1, 2*k+2, k
		if l < n && st.less(c, h[l], h[m]) {
			m = l
		}
		if r < n && st.less(c, h[r], h[m]) {
			m = r
		}
		if m == k {
			break
		}
		h[k], h[m] = h[m], h[k]
		k = m
	}
	st.heap = h
}
