package merge

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/schema"
)

// The property: a turn's view depends on the set of blocks it received, not
// on the order or the number of times they arrived — with one honest
// exception, fallbacks. A fallback has no seq; it is placed by its arrival
// (after the highest seq applied before it, then by arrival number among
// fallbacks). So the permutations below shuffle envelopes freely except for
// what a fallback's placement is made of:
//
//   - fallbacks keep their order among themselves;
//   - the envelope that precedes a fallback in the in-order trajectory (the
//     one with the fallback's anchor seq) still arrives before it;
//   - every envelope that follows a fallback in the in-order trajectory
//     (a higher seq) still arrives after it.
//
// Every other envelope goes anywhere: late, early, past several fallbacks.
// Copies (exact, or with other content: a conflict) are inserted anywhere
// after the first arrival, since the first arrival wins. Within these rules
// the view must equal the in-order one, except the counters that describe
// the arrival itself (Duplicates, Conflicts, Late), which are checked
// against counts made here.
//
// The output cap is part of the property (it is small in many cases): the
// retained output is the newest chunks by seq, whatever the order. The
// block and stream-key caps are not: which blocks a full turn refuses
// depends on arrival, so they stay out of reach here and have table tests.
//
// Ops are checked too: the ops of each permuted turn (round-tripped through
// JSON in a third of the cases), shuffled with no constraint at all and duplicated, rebuild the same
// view in a Receiver.
const propertyPermutations = 6 // per trajectory

// propertyTrajectories: 500, or 100 under -race (see testdep.Race);
// .ci/run runs them whole without it.
var propertyTrajectories = uint64(500)

func init() {
	if testdep.Race {
		propertyTrajectories = 100
	}
}

func TestPropertyAnyOrderSameView(t *testing.T) {
	cases := 0
	for seed := uint64(1); seed <= propertyTrajectories; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		traj, caps := genTrajectory(rng)
		sealed := rng.IntN(2) == 0
		after := rng.IntN(3) // readings after the seal

		in := NewTurn("t1", "m1", caps)
		for i, r := range traj {
			ch := in.Apply(r)
			if ch.Effect != Applied || ch.Late {
				t.Fatalf("seed %d: in-order reading %d: %v late=%v, want applied in order", seed, i, ch.Effect, ch.Late)
			}
		}
		sealAndTrail(in, sealed, after, traj)
		want := in.View()
		if d := cmp.Diff(naiveOutputs(traj, caps, sealed), toolOutputs(want)); d != "" {
			t.Fatalf("seed %d: tool outputs differ from the naive model (-want +got):\n%s", seed, d)
		}

		for p := range propertyPermutations {
			cases++
			arrival, dups, conflicts := permute(rng, traj)
			got := NewTurn("t1", "m1", caps)
			var ops []schema.Op
			for _, r := range arrival {
				if ch := got.Apply(r); ch.Effect == Applied {
					ops = append(ops, ch.Op)
				}
			}
			if sealed {
				ops = append(ops, got.Seal())
			}
			sealAndTrail(got, sealed, after, traj)
			wantP := want
			wantP.Counters.Duplicates, wantP.Counters.Conflicts, wantP.Counters.Late = dups, conflicts, lateCount(arrival)
			gv := got.View()
			if d := cmp.Diff(wantP, gv); d != "" {
				t.Fatalf("seed %d permutation %d: view differs from the in-order one (-want +got):\n%s\narrival:\n%s",
					seed, p, d, describe(arrival))
			}

			rv, opDups := receive(t, rng, ops, caps, p%3 == 0)
			if d := cmp.Diff(transportFree(gv), transportFree(rv)); d != "" {
				t.Fatalf("seed %d permutation %d: receiver view differs (-turn +receiver):\n%s", seed, p, d)
			}
			if rv.Counters.Duplicates != opDups {
				t.Fatalf("seed %d permutation %d: receiver duplicates = %d, want %d", seed, p, rv.Counters.Duplicates, opDups)
			}

			// A snapshot of the receiver (Receiver.Ops, chunks the output
			// cap dropped as stubs), shuffled, rebuilds the same view.
			if d := cmp.Diff(transportFree(gv), rebuild(t, rng, ops, caps)); d != "" {
				t.Fatalf("seed %d permutation %d: view rebuilt from Receiver.Ops differs (-turn +rebuilt):\n%s", seed, p, d)
			}
		}
	}
	t.Logf("%d trajectories, %d permuted cases, each also replayed as shuffled ops", propertyTrajectories, cases)
}

// genTrajectory returns a random in-order trajectory: envelopes of every
// kind by rising seq (random start, gaps) over several stream keys, with
// fallbacks in between; and caps that the output cap and text cap bite
// into, but not the block and key caps.
func genTrajectory(rng *rand.Rand) ([]envelope.Reading, Caps) {
	caps := Caps{MaxBlocks: 1000, MaxStreamKeys: 100}
	if rng.IntN(2) == 0 {
		caps.MaxOutputBytes = 8 + rng.IntN(120)
	}
	if rng.IntN(3) == 0 {
		caps.MaxTextBytes = 4 + rng.IntN(20)
	}
	n := 3 + rng.IntN(60)
	seq := rng.Int64N(2000) - 1000
	if rng.IntN(20) == 0 {
		seq = -1 << 63 // the bottom of the range
	}
	tools := 1 + rng.IntN(4)
	reasons := []envelope.Reason{envelope.ReasonNoEnvelope, envelope.ReasonBadJSON, envelope.ReasonUnsupportedVersion}
	var out []envelope.Reading
	for i := range n {
		if rng.IntN(7) == 0 {
			out = append(out, fallback(fmt.Sprintf("msg:%d", i), words(rng), reasons[rng.IntN(len(reasons))]))
			continue
		}
		if rng.IntN(5) == 0 {
			seq += int64(1 + rng.IntN(3)) // a gap
		}
		seq++
		// A tool's key is its streamKey, or with no streamKey its
		// tool_call_id.
		k := rng.IntN(tools)
		sk, id, tool := fmt.Sprintf("call-%d", k), "", fmt.Sprintf("tool%d", k)
		if rng.IntN(3) == 0 {
			tool += "-renamed" // the lowest seq must name the call, not the first arrival
		}
		if k == 2 {
			sk, id = "", "id-2"
		}
		status := envelope.StatusRunning
		switch rng.IntN(12) {
		case 0:
			status = envelope.StatusDone
		case 1:
			status = envelope.StatusAborted
		}
		var r envelope.Reading
		switch rng.IntN(10) {
		case 0:
			r = env("", seq, status, think(words(rng)))
		case 1:
			r = env("", seq, envelope.StatusRunning, text(words(rng)))
		case 2:
			r = env(sk, seq, status, errp(words(rng)))
		case 3, 4:
			r = env(sk, seq, status, envelope.ToolCall{Tool: tool, ToolCallID: id})
		default:
			r = env(sk, seq, status, envelope.ToolOutputAppend{Tool: tool, ToolCallID: id, Chunk: words(rng)})
		}
		out = append(out, r)
	}
	return out, caps
}

// words returns a short text, sometimes with a newline or multi-byte runes
// (to exercise cuts at rune boundaries).
func words(rng *rand.Rand) string {
	pool := []string{"alpha ", "béta ", "γάμμα ", "delta\n", "日本語 ", "x", "", "line\n"}
	var b strings.Builder
	for range rng.IntN(5) {
		b.WriteString(pool[rng.IntN(len(pool))])
	}
	return b.String()
}

// permute returns an arrival order of traj under the rules in the comment
// above, with copies; and the numbers of exact and conflicting copies.
func permute(rng *rand.Rand, traj []envelope.Reading) (arrival []envelope.Reading, dups, conflicts int64) {
	n := len(traj)
	succ := make([][]int, n)
	indeg := make([]int, n)
	lastFB, lastEnv := -1, -1
	for i, r := range traj {
		if lastFB >= 0 {
			succ[lastFB] = append(succ[lastFB], i)
			indeg[i]++
		}
		if r.Fallback {
			if lastEnv >= 0 {
				succ[lastEnv] = append(succ[lastEnv], i)
				indeg[i]++
			}
			lastFB = i
		} else {
			lastEnv = i
		}
	}
	var ready []int
	for i := range n {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		k := rng.IntN(len(ready))
		i := ready[k]
		ready = slices.Delete(ready, k, k+1)
		arrival = append(arrival, traj[i])
		for _, j := range succ[i] {
			if indeg[j]--; indeg[j] == 0 {
				ready = append(ready, j)
			}
		}
	}
	// Copies go after the original's first arrival.
	for i := 0; i < len(arrival); i++ {
		if rng.IntN(4) != 0 {
			continue
		}
		c := arrival[i]
		if rng.IntN(4) == 0 {
			c.Envelope.Kind, c.Envelope.Payload = envelope.KindText, text("\x00conflict")
			c.Envelope.Status = envelope.StatusRunning
			conflicts++
		} else {
			dups++
		}
		at := i + 1 + rng.IntN(len(arrival)-i)
		arrival = slices.Insert(arrival, at, c)
		i = at // do not copy copies: keeps the counts simple
	}
	return arrival, dups, conflicts
}

// lateCount counts the envelopes applied after a higher seq: the first
// arrival of each identity, in arrival order.
func lateCount(arrival []envelope.Reading) int64 {
	seen := map[schema.Key]bool{}
	var late int64
	var top int64
	has := false
	for _, r := range arrival {
		if r.Fallback {
			continue
		}
		k := schema.Key{StreamKey: r.Envelope.StreamKey, Seq: r.Envelope.Seq}
		if seen[k] {
			continue
		}
		seen[k] = true
		if has && r.Envelope.Seq < top {
			late++
		}
		if !has || r.Envelope.Seq > top {
			top, has = r.Envelope.Seq, true
		}
	}
	return late
}

// sealAndTrail seals t when sealed, then applies after readings that must
// be dropped.
func sealAndTrail(t *Turn, sealed bool, after int, traj []envelope.Reading) {
	if !sealed {
		return
	}
	t.Seal()
	for i := range after {
		t.Apply(traj[i%len(traj)])
	}
}

// receive applies ops (round-tripped through JSON when viaJSON), shuffled
// and partly duplicated, to a new Receiver; it returns its view and the
// number of duplicated block ops.
func receive(t *testing.T, rng *rand.Rand, ops []schema.Op, caps Caps, viaJSON bool) (schema.View, int64) {
	t.Helper()
	var dups int64
	var all []schema.Op
	for _, op := range ops {
		back := op
		if viaJSON {
			b, err := json.Marshal(op)
			if err != nil {
				t.Fatalf("marshal %+v: %v", op, err)
			}
			back = schema.Op{}
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("unmarshal %s: %v", b, err)
			}
		}
		all = append(all, back)
		if rng.IntN(5) == 0 {
			all = append(all, back)
			if back.Type == schema.OpBlock {
				dups++
			}
		}
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	r := NewReceiver("t1", caps)
	for _, op := range all {
		r.Apply(op)
	}
	return r.View(), dups
}

// rebuild feeds ops to a receiver, takes its snapshot (Receiver.Ops),
// shuffles it and feeds it to a second receiver, whose view it returns
// (transport-free). Every op of the snapshot must apply.
func rebuild(t *testing.T, rng *rand.Rand, ops []schema.Op, caps Caps) schema.View {
	t.Helper()
	src := NewReceiver("t1", caps)
	for _, op := range ops {
		src.Apply(op)
	}
	snap := src.Ops("m1")
	if len(ops) > 0 && snap == nil {
		t.Fatalf("Ops(m1) = nil, want the turn's ops; turns %q", src.Turns())
	}
	rng.Shuffle(len(snap), func(i, j int) { snap[i], snap[j] = snap[j], snap[i] })
	dst := NewReceiver("t1", caps)
	for _, op := range snap {
		if res := dst.Apply(op); res != Applied {
			t.Fatalf("snapshot op %+v: %v, want applied", op, res)
		}
	}
	if len(ops) == 0 {
		// Nothing applied, nothing to rebuild: the empty view of the task.
		v := src.View()
		v.Turn = "m1"
		return transportFree(v)
	}
	return transportFree(dst.View())
}

// transportFree zeroes the counters that describe arrivals rather than
// content.
func transportFree(v schema.View) schema.View {
	c := &v.Counters
	c.Duplicates, c.Conflicts, c.Late, c.DroppedAfterSeal, c.DroppedByCap, c.Invalid = 0, 0, 0, 0, 0, 0
	return v
}

type toolOutput struct {
	Key, Output string
	Truncated   int64
	Gaps        int
	Status      schema.ToolStatus
}

func toolOutputs(v schema.View) []toolOutput {
	var out []toolOutput
	for _, tc := range v.ToolCalls {
		out = append(out, toolOutput{tc.Key, tc.Output, tc.Truncated, tc.Gaps, tc.Status})
	}
	return out
}

// naiveOutputs computes each tool call's output the slow, obvious way from
// an in-order trajectory: every chunk of the key in seq order, the newest
// MaxOutputBytes kept, markers where the turn misses seqs.
func naiveOutputs(traj []envelope.Reading, caps Caps, sealed bool) []toolOutput {
	caps = caps.withDefaults()
	type piece struct {
		seq   int64
		chunk string
	}
	seqs := map[int64]bool{}
	pieces := map[string][]piece{}
	status := map[string]schema.ToolStatus{}
	var keys []string
	first := map[string]int64{}
	for _, r := range traj {
		if r.Fallback {
			continue
		}
		e := r.Envelope
		seqs[e.Seq] = true
		key := e.StreamKey
		isTool := false
		switch p := e.Payload.(type) {
		case envelope.ToolCall:
			isTool = true
			if key == "" {
				key = p.ToolCallID
			}
		case envelope.ToolOutputAppend:
			isTool = true
			if key == "" {
				key = p.ToolCallID
			}
			pieces[key] = append(pieces[key], piece{e.Seq, p.Chunk})
		}
		if isTool {
			if _, ok := first[key]; !ok {
				first[key] = e.Seq
				keys = append(keys, key)
			}
		}
		if e.Status != envelope.StatusRunning && status[key] == "" {
			status[key] = schema.ToolStatus(e.Status)
		}
	}
	var out []toolOutput
	for _, key := range keys {
		ps := pieces[key]
		total := 0
		for _, p := range ps {
			total += len(p.chunk)
		}
		// Keep the smallest suffix of chunks that reaches the cap.
		start, kept := len(ps), 0
		for start > 0 && kept < caps.MaxOutputBytes {
			start--
			kept += len(ps[start].chunk)
		}
		o := toolOutput{Key: key, Status: status[key]}
		if o.Status == "" {
			o.Status = schema.ToolRunning
			if sealed {
				o.Status = schema.ToolUnfinished
			}
		}
		var b strings.Builder
		for i := start; i < len(ps); i++ {
			c := ps[i].chunk
			if i == start && kept > caps.MaxOutputBytes {
				c = c[kept-caps.MaxOutputBytes:]
				for c != "" && c[0]&0xC0 == 0x80 {
					c = c[1:]
				}
			}
			if i > start {
				miss := int64(0)
				for s := ps[i-1].seq + 1; s < ps[i].seq; s++ {
					if !seqs[s] {
						miss++
					}
				}
				if miss > 0 {
					if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
						b.WriteByte('\n')
					}
					b.WriteString(gapMarker(miss))
					o.Gaps++
				}
			}
			b.WriteString(c)
		}
		o.Output = b.String()
		chunkBytes := 0
		for i := start; i < len(ps); i++ {
			chunkBytes += len(ps[i].chunk)
		}
		shown := chunkBytes
		if start < len(ps) {
			// what the first kept chunk lost to the cut
			first := ps[start].chunk
			c := first
			if kept > caps.MaxOutputBytes {
				c = c[kept-caps.MaxOutputBytes:]
				for c != "" && c[0]&0xC0 == 0x80 {
					c = c[1:]
				}
			}
			shown -= len(first) - len(c)
		}
		o.Truncated = int64(total - shown)
		out = append(out, o)
	}
	// View orders tool calls by first seq, then key: in-order first
	// appearance is the same order.
	slices.SortStableFunc(out, func(a, b toolOutput) int { return compareSeqKey(first[a.Key], a.Key, first[b.Key], b.Key) })
	return out
}

func describe(rs []envelope.Reading) string {
	var b strings.Builder
	for _, r := range rs {
		if r.Fallback {
			fmt.Fprintf(&b, "  fallback %s %q\n", r.ID, r.Envelope.Payload)
			continue
		}
		e := r.Envelope
		fmt.Fprintf(&b, "  %q %d %s %s %+v\n", e.StreamKey, e.Seq, e.Kind, e.Status, e.Payload)
	}
	return b.String()
}
