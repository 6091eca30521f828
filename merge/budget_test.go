package merge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
)

// Past the byte budget the newest blocks are dropped, counted and named
// (Change.Cap); what was kept stays, and the budget is never overshot.
func TestBudgetDropsNewest(t *testing.T) {
	b := NewBudget(3*(1000+blockOverhead), nil)
	tr := NewTurn("t1", "m1", Caps{Budget: b})
	var got []Cap
	for i := range 5 {
		ch := tr.Apply(run("", int64(i+1), text(strings.Repeat("x", 1000))))
		got = append(got, ch.Cap)
	}
	if diff := cmp.Diff([]Cap{"", "", "", CapBytes, CapBytes}, got); diff != "" {
		t.Errorf("caps (-want +got):\n%s", diff)
	}
	v := tr.View()
	if v.Counters.Applied != 3 || v.Counters.DroppedByCap != 2 || len(v.Blocks) != 3 {
		t.Errorf("applied %d, dropped %d, %d blocks; want 3, 2, 3", v.Counters.Applied, v.Counters.DroppedByCap, len(v.Blocks))
	}
	if b.Used() > b.Limit() {
		t.Errorf("used %d of %d", b.Used(), b.Limit())
	}
	// A duplicate of a kept block is still a duplicate, budget full or not.
	if ch := tr.Apply(run("", 1, text(strings.Repeat("x", 1000)))); ch.Effect != Duplicate {
		t.Errorf("a duplicate past the budget: %v", ch.Effect)
	}
}

// A tool call's output window gives back what it evicts: one call
// streaming four times the budget loses nothing to it (each chunk's
// record stays charged: blockOverhead and its names).
func TestBudgetEvictionGivesBack(t *testing.T) {
	b := NewBudget(256<<10, nil)
	tr := NewTurn("t1", "m1", Caps{Budget: b, MaxOutputBytes: 4 << 10})
	tr.Apply(run("k", 1, call("sh")))
	for i := range 1000 { // 1 MiB of output
		if ch := tr.Apply(run("k", int64(i+2), chunk("sh", strings.Repeat("y", 1<<10)))); ch.Effect != Applied {
			t.Fatalf("chunk %d: %v (%s), budget %d of %d", i, ch.Effect, ch.Cap, b.Used(), b.Limit())
		}
	}
	v := tr.View()
	if got := len(v.ToolCalls[0].Output); got != 4<<10 {
		t.Errorf("output %d bytes, want %d", got, 4<<10)
	}
	if b.Used() > 256<<10 {
		t.Errorf("used %d", b.Used())
	}
}

// A coding agent's turn: 2 000 tool calls (call, two chunks, done) and
// 2 000 texts, 10 000 blocks in all, far under the byte budget. None is
// dropped: the count caps are a second line, not the first.
func TestThousandsOfToolCallsKeepEveryBlock(t *testing.T) {
	tr := NewTurn("t1", "m1", Caps{})
	seq := int64(0)
	apply := func(r envelope.Reading) {
		if ch := tr.Apply(r); ch.Effect != Applied {
			t.Fatalf("seq %d: %v (%s)", r.Envelope.Seq, ch.Effect, ch.Cap)
		}
	}
	for i := range 2000 {
		key := fmt.Sprintf("call-%d", i)
		seq++
		apply(run("", seq, text(fmt.Sprintf("step %d", i))))
		seq++
		apply(run(key, seq, call("edit")))
		for range 2 {
			seq++
			apply(run(key, seq, chunk("edit", strings.Repeat("o", 100)+"\n")))
		}
		seq++
		apply(env(key, seq, envelope.StatusDone, call("edit")))
	}
	v := tr.View()
	if v.Counters.Applied != 10000 || v.Counters.DroppedByCap != 0 || len(v.ToolCalls) != 2000 {
		t.Errorf("applied %d, dropped %d, %d tool calls; want 10000, 0, 2000", v.Counters.Applied, v.Counters.DroppedByCap, len(v.ToolCalls))
	}
}

// A budget under a parent charges both: the parent bounds the sum of its
// children, and a refused charge leaves neither charged.
func TestBudgetParent(t *testing.T) {
	all := NewBudget(100, nil)
	a, b := NewBudget(80, all), NewBudget(80, all)
	type step struct {
		OK        bool
		A, B, All int64
	}
	var got []step
	for _, r := range []struct {
		b *Budget
		n int64
	}{{a, 60}, {b, 60}, {b, 40}, {a, 30}} {
		ok := r.b.Reserve(r.n)
		got = append(got, step{ok, a.Used(), b.Used(), all.Used()})
	}
	a.ReleaseAll()
	got = append(got, step{true, a.Used(), b.Used(), all.Used()})
	want := []step{{true, 60, 0, 60}, {false, 60, 0, 60}, {true, 60, 40, 100}, {false, 60, 40, 100}, {true, 0, 40, 40}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

// A Receiver that evicts a turn gives its charge back to a shared budget:
// 17 turns of one block each leave 16 charged.
func TestReceiverEvictionReleasesSharedBudget(t *testing.T) {
	b := NewBudget(0, nil)
	r := NewReceiver("t1", Caps{Budget: b})
	per := int64(-1)
	for i := range MaxReceiverTurns + 1 {
		tr := NewTurn("t1", fmt.Sprintf("m%d", i), Caps{})
		ch := tr.Apply(run("", 1, text("hello")))
		if got := r.Apply(ch.Op); got != Applied {
			t.Fatalf("turn %d: %v", i, got)
		}
		if per < 0 {
			per = b.Used()
		}
	}
	if got, want := b.Used(), per*MaxReceiverTurns; got != want {
		t.Errorf("used %d, want %d (16 turns of %d)", got, want, per)
	}
}
