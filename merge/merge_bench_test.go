package merge

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/tfrs/a2a-progress/envelope"
)

// benchTrajectory returns n readings of a realistic mix by rising seq:
// chunks of 8 tool calls (40 %), thinking and text (20 % each), tool_call
// starts and done blocks (10 % each). Payloads are shared, as after parsing.
func benchTrajectory(n int) []envelope.Reading {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]string, 8)
	for i := range keys {
		keys[i] = fmt.Sprintf("call-%d", i)
	}
	line := chunk("tail", "2026-11-30T05:00:00Z INFO request served in 3ms\n")
	out := make([]envelope.Reading, n)
	for i := range out {
		seq := int64(i) + 1000
		k := keys[rng.IntN(len(keys))]
		switch x := rng.IntN(10); {
		case x < 4:
			out[i] = run(k, seq, line)
		case x < 6:
			out[i] = run("", seq, think("considering the next step"))
		case x < 8:
			out[i] = run("", seq, text("searching the index"))
		case x < 9:
			out[i] = run(k, seq, call("tail"))
		default:
			out[i] = env(k, seq, envelope.StatusDone, call("tail"))
		}
	}
	return out
}

// shuffle10 delays 10 % of the readings by 1 to 8 places, so that one
// arrival in ten is late.
func shuffle10(rs []envelope.Reading) []envelope.Reading {
	rng := rand.New(rand.NewPCG(3, 4))
	type arrival struct {
		at float64
		r  envelope.Reading
	}
	as := make([]arrival, len(rs))
	for i, r := range rs {
		as[i] = arrival{float64(i), r}
		if rng.IntN(10) == 0 {
			as[i].at += float64(1+rng.IntN(8)) + 0.5
		}
	}
	slices.SortStableFunc(as, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
	out := make([]envelope.Reading, len(rs))
	for i, a := range as {
		out[i] = a.r
	}
	return out
}

// benchApply applies rs round after round; each turn takes len(rs)
// readings (at most MaxBlocks, so every one is applied), then a new turn
// starts — its setup and growth are part of the cost.
func benchApply(b *testing.B, rs []envelope.Reading) {
	caps := Caps{MaxBlocks: len(rs)}
	turn := NewTurn("t1", "m1", caps)
	late := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%len(rs) == 0 && i > 0 {
			turn = NewTurn("t1", "m1", caps)
		}
		if ch := turn.Apply(rs[i%len(rs)]); ch.Effect != Applied {
			b.Fatalf("reading %d: %v", i%len(rs), ch.Effect)
		} else if ch.Late {
			late++
		}
	}
	b.ReportMetric(float64(late)/float64(b.N)*100, "%late")
}

func BenchmarkApplyInOrder(b *testing.B) {
	benchApply(b, benchTrajectory(DefaultMaxBlocks))
}

func BenchmarkApplyOutOfOrder10(b *testing.B) {
	benchApply(b, shuffle10(benchTrajectory(DefaultMaxBlocks)))
}

// The cost per event must not grow with the turn: the same mix, 10 % out of
// order, in turns of 1k, 10k and 100k blocks.
func BenchmarkApplyScaling(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		rs := shuffle10(benchTrajectory(n))
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchApply(b, rs) })
	}
}

// One turn of 1M envelopes (10 % out of order) under the default caps: the
// first MaxBlocks are applied, the rest refused by the cap; memory must
// stay bounded. The readings are made on the fly (a 10k pattern, its seqs
// shifted per round) so that the benchmark's own data does not weigh on
// the heap. Reports: peak-heap-MiB, the highest HeapInuse sampled every 100k
// events (garbage not yet collected included) above the heap before the
// turn; retained-MiB, the live heap the finished turn holds (after a GC);
// alloc-MiB/turn, the bytes allocated per 1M-event turn.
func BenchmarkApply1M(b *testing.B) {
	const n = 1_000_000
	pattern := shuffle10(benchTrajectory(10_000))
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, alloc0 := ms.HeapInuse, ms.TotalAlloc
	var peak uint64
	var turn *Turn
	b.ReportAllocs()
	for b.Loop() {
		turn = NewTurn("t1", "m1", Caps{})
		for i := range n {
			r := pattern[i%len(pattern)]
			r.Envelope.Seq += int64(i / len(pattern) * len(pattern))
			turn.Apply(r)
			if i%100_000 == 99_999 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		if c := turn.View().Counters; c.Applied != DefaultMaxBlocks || c.DroppedByCap != n-DefaultMaxBlocks {
			b.Fatalf("counters %+v", c)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	retained := ms.HeapAlloc
	runtime.KeepAlive(turn)
	turn = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(peak-min(base, peak))/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(retained-min(ms.HeapAlloc, retained))/(1<<20), "retained-MiB")
	b.ReportMetric(float64(ms.TotalAlloc-alloc0)/float64(b.N)/(1<<20), "alloc-MiB/turn")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/event")
}

// View of a full default turn: the price of a snapshot (copy, sort after
// late arrivals, output assembly), paid per render, not per event.
func BenchmarkView(b *testing.B) {
	turn := NewTurn("t1", "m1", Caps{})
	for _, r := range shuffle10(benchTrajectory(DefaultMaxBlocks)) {
		turn.Apply(r)
	}
	b.ReportAllocs()
	for b.Loop() {
		turn.View()
	}
}

// A tail -f flood: one call, 100k chunks of 64 B under a 64 KiB output
// cap. Chunk concatenation is never rebuilt per chunk; eviction is a heap
// pop.
func BenchmarkApplyOutputFlood(b *testing.B) {
	var line envelope.Payload = chunk("tail", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n")
	const n = 100_000
	caps := Caps{MaxBlocks: n, MaxOutputBytes: 64 << 10}
	turn := NewTurn("t1", "m1", caps)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%n == 0 && i > 0 {
			turn = NewTurn("t1", "m1", caps)
		}
		turn.Apply(run("c1", int64(i%n), line))
	}
}
