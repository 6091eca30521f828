package client

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
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

// A peer that replays its turn on every resubscription, making each replay
// look like news — its snapshot back at submitted, then working again; its
// messages under fresh ids; an artifact sent again — and cuts it with an
// unparseable frame, brings nothing the turn lacks: the attempts stay
// bounded and the turn ends incomplete, saying so (ErrNoProgress).
func TestReplayingPeerEnds(t *testing.T) {
	t.Parallel()
	const maxAttempts = 3
	replays := 0
	replay := func(w *sseWriter) {
		replays++
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		w.event(working(1, "one"))
		fresh := &a2a.Message{ID: fmt.Sprintf("fresh-%d", replays), Role: a2a.MessageRoleAgent, TaskID: rawTask, ContextID: "c1",
			Parts: a2a.ContentParts{a2a.NewTextPart("same words, new id")}}
		w.event(a2a.NewStatusUpdateEvent(rawInfo, a2a.TaskStateWorking, fresh))
		w.event(&a2a.TaskArtifactUpdateEvent{TaskID: rawTask, ContextID: "c1",
			Artifact: &a2a.Artifact{ID: "a1", Parts: a2a.ContentParts{a2a.NewTextPart("out")}}})
		w.raw(`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":`) // cut: unparseable
	}
	scripts := []func(*sseWriter){replay}
	for range 4 * maxAttempts {
		scripts = append(scripts, replay)
	}
	a := newRawAgent(t, scripts...)
	a.setTask(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one")))
	cl := a.client(t, WithRetry(maxAttempts, time.Millisecond, 2*time.Millisecond))
	st, _ := cl.SendText(testCtx(t), "go")
	r := collect(t, st)
	if !errors.Is(r.err, ErrIncomplete) || !errors.Is(r.err, ErrNoProgress) {
		t.Fatalf("err = %v, want incomplete with ErrNoProgress", r.err)
	}
	if !strings.Contains(r.err.Error(), "no progress in 3 resubscription(s) in a row") {
		t.Errorf("the reason does not say why: %v", r.err)
	}
	want := []string{"SendStreamingMessage", "SubscribeToTask", "SubscribeToTask", "SubscribeToTask", "GetTask"}
	if diff := cmp.Diff(want, a.calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	// A fallback's identity is its message id, which the peer mints
	// afresh: after a resubscription its text, already shown, is a replay
	// and is shown once.
	wantTexts := []string{"one", "same words, new id"}
	if diff := cmp.Diff(wantTexts, blockTexts(r.view)); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}

// A peer that brings news on every subscription yet never settles still
// ends: WithResubscribeLimit bounds the turn's resubscriptions in all.
func TestResubscribeLimit(t *testing.T) {
	t.Parallel()
	var scripts []func(*sseWriter)
	for i := range 20 {
		scripts = append(scripts, func(w *sseWriter) {
			w.event(taskEv(a2a.TaskStateWorking, userMsg()))
			w.event(working(int64(i+1), fmt.Sprint("news ", i+1)))
		})
	}
	a := newRawAgent(t, scripts...)
	a.setTask(taskEv(a2a.TaskStateWorking, userMsg()))
	cl := a.client(t, WithRetry(2, time.Millisecond, 2*time.Millisecond), WithResubscribeLimit(4, 1000))
	st, _ := cl.SendText(testCtx(t), "go")
	r := collect(t, st)
	if !errors.Is(r.err, ErrIncomplete) || !errors.Is(r.err, ErrResubscribeLimit) {
		t.Fatalf("err = %v, want incomplete with ErrResubscribeLimit", r.err)
	}
	want := []string{"SendStreamingMessage", "SubscribeToTask", "SubscribeToTask", "SubscribeToTask", "SubscribeToTask", "GetTask"}
	if diff := cmp.Diff(want, a.calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got, want := len(r.view.Blocks), 5; got != want {
		t.Errorf("%d blocks, want %d", got, want)
	}
}

// The per-minute bound: the ring of the last perMinute starts makes the
// next one wait until the oldest is a minute old; the per-turn bound
// refuses. Times are given, not read: no sleeping.
func TestResubscribesWindow(t *testing.T) {
	t.Parallel()
	var r resubscribes
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	type step struct {
		Wait time.Duration
		OK   bool
	}
	var got []step
	for _, at := range []time.Duration{0, 10 * time.Second, 20 * time.Second, 30 * time.Second, 70 * time.Second} {
		d, ok := r.wait(t0.Add(at), 4, 3)
		got = append(got, step{d, ok})
		if ok {
			r.record(t0.Add(at+d), 3)
		}
	}
	want := []step{{0, true}, {0, true}, {0, true}, {30 * time.Second, true}, {0, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}
