package client

import (
	"bytes"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/merge"
)

// One byte budget per turn for the merge and the artifacts: past it the
// newest blocks are dropped and counted (droppedByCap, the Change names
// merge.CapBytes), an artifact that does not fit is cut (Truncated), the
// verdict stands, and the turn never holds more than its budget.
func TestTurnBudget(t *testing.T) {
	t.Parallel()
	const budget = 64 << 10
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		for i := range 20 { // 20 × 8 KiB of text
			w.event(working(int64(i+1), strings.Repeat("t", 8<<10)))
		}
		w.event(&a2a.TaskArtifactUpdateEvent{TaskID: rawTask, ContextID: "c1",
			Artifact: &a2a.Artifact{ID: "a1", Parts: a2a.ContentParts{a2a.NewTextPart(strings.Repeat("a", 100<<10))}}})
		w.event(completed("done"))
	})
	cl := a.client(t, WithTurnBudget(budget))
	st, _ := cl.SendText(testCtx(t), "go")
	r := collect(t, st)
	if r.err != nil || r.out.Reply != "done" {
		t.Fatalf("stream %v, reply %q; want completed", r.err, r.out.Reply)
	}
	var caps []merge.Cap
	for _, u := range r.updates {
		if u.Type == UpdateProgress && u.Change.Effect == merge.DroppedCap {
			caps = append(caps, u.Change.Cap)
		}
	}
	kept := len(r.view.Blocks)
	if kept == 0 || kept+len(caps) != 20 || int64(kept) != r.view.Counters.Applied || int64(len(caps)) != r.view.Counters.DroppedByCap {
		t.Errorf("%d blocks kept, %d dropped (counters %+v): want all 20 accounted for", kept, len(caps), r.view.Counters)
	}
	if kept > budget/(8<<10) {
		t.Errorf("%d blocks of 8 KiB kept under a budget of %d bytes", kept, budget)
	}
	want := make([]merge.Cap, len(caps))
	for i := range want {
		want[i] = merge.CapBytes
	}
	if diff := cmp.Diff(want, caps); diff != "" {
		t.Errorf("caps that dropped (-want +got):\n%s", diff)
	}
	if !r.out.Truncated || len(r.out.Artifacts) != 1 || len(r.out.Artifacts[0].Parts) != 0 {
		t.Errorf("the artifact over the budget: truncated %v, %d artifacts; want kept empty and truncated", r.out.Truncated, len(r.out.Artifacts))
	}
	if b := st.turnBudget(); b.Used() > b.Limit() || b.Limit() != budget {
		t.Errorf("budget: used %d of %d", b.Used(), b.Limit())
	}
}

// The client's budget bounds its turns together: a second turn under a
// client budget the first one filled keeps nothing, and says so.
func TestClientBudgetIsShared(t *testing.T) {
	t.Parallel()
	script := func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		for i := range 8 {
			w.event(working(int64(i+1), strings.Repeat("t", 8<<10)))
		}
		w.event(completed("done"))
	}
	a := newRawAgent(t, script, script)
	cl := a.client(t, WithClientBudget(48<<10))
	first, _ := cl.SendText(testCtx(t), "go")
	r1 := collect(t, first)
	second, _ := cl.SendText(testCtx(t), "go")
	r2 := collect(t, second)
	if r1.err != nil || r2.err != nil {
		t.Fatalf("streams: %v, %v", r1.err, r2.err)
	}
	got := []int64{r1.view.Counters.Applied, r1.view.Counters.DroppedByCap, r2.view.Counters.Applied, r2.view.Counters.DroppedByCap}
	// 48 KiB: five blocks of 8 KiB and their overhead; the second turn
	// finds the budget spent while the first stream is alive.
	want := []int64{5, 3, 0, 8}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("applied/dropped of turn 1 and 2 (-want +got):\n%s", diff)
	}
	runtime.KeepAlive(first) // its charge lives as long as it does
}

// The first block a cap drops is logged once per turn, naming the cap.
func TestCapIsSaidOnce(t *testing.T) {
	t.Parallel()
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		for i := range 10 {
			w.event(working(int64(i+1), strings.Repeat("t", 8<<10)))
		}
		w.event(completed("done"))
	})
	var logs bytes.Buffer
	var mu sync.Mutex
	h := slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelInfo})
	cl := a.client(t, WithTurnBudget(20<<10), WithLogger(slog.New(h)))
	st, _ := cl.SendText(testCtx(t), "go")
	if r := collect(t, st); r.err != nil || r.view.Counters.DroppedByCap == 0 {
		t.Fatalf("stream %v, dropped %d", r.err, r.view.Counters.DroppedByCap)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "turn cap reached"); n != 1 || !strings.Contains(logs.String(), "cap=bytes") {
		t.Errorf("%d cap lines, want 1 naming the byte budget:\n%s", n, logs.String())
	}
}
