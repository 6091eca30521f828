package client

import (
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A peer that answers every resubscription with the snapshot and the same
// old update, then closes, makes no progress: the resume attempts stay
// bounded by WithRetry and the turn ends incomplete. (Only news — a block
// the merge did not have, a new state, an output artifact — starts a fresh
// count.)
func TestResumeWithoutProgressIsBounded(t *testing.T) {
	t.Parallel()
	const maxAttempts = 3
	replay := func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one")))
		w.event(working(2, "two")) // always the same, already merged
	}
	scripts := []func(*sseWriter){func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		w.event(working(1, "one"))
		w.event(working(2, "two"))
	}}
	for range 4 * maxAttempts {
		scripts = append(scripts, replay)
	}
	a := newRawAgent(t, scripts...)
	a.setTask(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one"), envMsg(2, "two")))
	cl := a.client(t, WithRetry(maxAttempts, time.Millisecond, 2*time.Millisecond))
	st, _ := cl.SendText(testCtx(t), "go")
	r := collect(t, st)
	var ie *IncompleteError
	if !errors.As(r.err, &ie) || ie.State != a2a.TaskStateWorking {
		t.Fatalf("err = %v, want an IncompleteError in working", r.err)
	}
	subs := 0
	for _, m := range a.calls() {
		if m == "SubscribeToTask" {
			subs++
		}
	}
	if subs != maxAttempts {
		t.Errorf("%d subscriptions, want %d: resubscribing to a peer that brings nothing new must stay bounded", subs, maxAttempts)
	}
	if got := len(r.view.Blocks); got != 2 {
		t.Errorf("%d blocks, want 2", got)
	}
}
