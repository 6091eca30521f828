package merge

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTurnsCap(t *testing.T) {
	ts := NewTurns(Caps{}, 2)
	got := []Result{
		ts.Apply("a", run("", 1, text("a"))).Result,
		ts.Apply("b", run("", 1, text("b"))).Result,
		ts.Apply("c", run("", 1, text("c"))).Result, // full, nothing sealed
	}
	if _, ok := ts.Seal("c"); ok {
		t.Error("Seal of a new task with the cap full and nothing sealed: ok, want refused")
	}
	ts.Seal("b")
	ts.Seal("a")
	ts.Apply("b", run("", 2, text("b"))) // b is sealed but used more recently than a
	got = append(got, ts.Apply("c", run("", 1, text("c"))).Result)
	if d := cmp.Diff([]Result{Applied, Applied, DroppedCap, Applied}, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b", "c"}, ts.Tasks()); d != "" {
		t.Errorf("tasks (-want +got): the least recently used sealed turn goes first\n%s", d)
	}
	if ts.Refused() != 2 {
		t.Errorf("Refused() = %d, want 2", ts.Refused())
	}
	if !ts.Forget("b") || ts.Forget("b") {
		t.Error("Forget: want true once, then false")
	}
	if _, ok := ts.View("b"); ok {
		t.Error("View of a forgotten task: ok")
	}
	v, ok := ts.View("c")
	if !ok || v.Counters.Applied != 1 {
		t.Errorf("View(c) = %+v, %v; want one applied block", v, ok)
	}
	if NewTurns(Caps{}, 0).max != DefaultMaxTurns {
		t.Error("maxTurns 0 does not mean DefaultMaxTurns")
	}
}

// Run with -race: Turns guards every turn with its mutex.
func TestTurnsConcurrent(t *testing.T) {
	ts := NewTurns(Caps{}, 8)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			task := fmt.Sprint("task-", g%2)
			for seq := range int64(200) {
				ts.Apply(task, run("", seq, text("x")))
				if seq%50 == 0 {
					ts.View(task)
				}
			}
		})
	}
	wg.Wait()
	for _, task := range []string{"task-0", "task-1"} {
		v, _ := ts.View(task)
		want := Counters{Applied: 200, Duplicates: 200}
		if d := cmp.Diff(want, v.Counters); d != "" {
			t.Errorf("%s counters (-want +got):\n%s", task, d)
		}
	}
}

// TestTurnsEvictedStaySealed: a straggler reading for a task whose sealed
// turn was evicted is dropped as after the seal; it must not open a new
// turn that nothing seals, which would hold a slot and, once every slot is
// such a turn, refuse every new task. Forget starts the task afresh.
func TestTurnsEvictedStaySealed(t *testing.T) {
	ts := NewTurns(Caps{}, 2)
	ts.Apply("a", run("", 1, text("a")))
	ts.Seal("a")
	ts.Apply("b", run("", 1, text("b")))
	ts.Seal("b")
	ts.Apply("c", run("", 1, text("c"))) // evicts a
	ts.Apply("d", run("", 1, text("d"))) // evicts b
	var got []Result
	for _, task := range []string{"a", "b"} {
		got = append(got, ts.Apply(task, run("", 1, text(task))).Result) // a replayed history
	}
	if d := cmp.Diff([]Result{DroppedSealed, DroppedSealed}, got); d != "" {
		t.Errorf("stragglers for evicted sealed turns (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"c", "d"}, ts.Tasks()); d != "" {
		t.Errorf("tasks (-want +got): a straggler opened a turn\n%s", d)
	}
	if op, ok := ts.Seal("a"); !ok || op != (Op{Type: OpSeal, Task: "a", Turn: "task:a"}) {
		t.Errorf("Seal of an evicted sealed task = %+v, %v; want its seal op", op, ok)
	}
	ts.Seal("c")
	if !ts.Forget("a") {
		t.Error("Forget of an evicted task: false, want true")
	}
	if r := ts.Apply("a", run("", 1, text("a"))).Result; r != Applied {
		t.Errorf("after Forget, a new turn for the task: %v, want applied", r)
	}
	if ts.Refused() != 2 {
		t.Errorf("Refused() = %d, want 2", ts.Refused())
	}
}

// The set of evicted tasks is bounded by maxTurns.
func TestTurnsEvictedIsBounded(t *testing.T) {
	ts := NewTurns(Caps{}, 2)
	for i := range 100 {
		task := fmt.Sprint("t", i)
		ts.Apply(task, run("", 1, text("x")))
		ts.Seal(task)
	}
	if len(ts.evicted) > 2 || len(ts.ring) > 2 {
		t.Errorf("%d evicted tasks remembered in a ring of %d, want at most 2", len(ts.evicted), len(ts.ring))
	}
	if r := ts.Apply("t97", run("", 1, text("x"))).Result; r != DroppedSealed {
		t.Errorf("a recently evicted task: %v, want dropped_sealed", r)
	}
}
