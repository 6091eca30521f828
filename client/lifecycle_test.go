package client

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// Breaking out of Updates closes the connection at once: the agent sees
// its request end while it still has the stream open.
func TestBreakClosesConnection(t *testing.T) {
	t.Parallel()
	left := make(chan struct{})
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		w.event(working(1, "one"))
		w.hang()
		close(left)
	})
	st, _ := a.client(t).SendText(testCtx(t), "go")
	for u, err := range st.Updates() {
		if err != nil {
			t.Fatal(err)
		}
		if u.Type == UpdateProgress {
			break
		}
	}
	select {
	case <-left:
	case <-time.After(testdep.Budget(10 * time.Second)):
		t.Fatal("the agent's request is still open after the caller broke out of Updates")
	}
	if _, err := st.Outcome(); err != ErrNotFinished {
		t.Errorf("Outcome err = %v, want ErrNotFinished", err)
	}
}

// The idle watchdog is paused while the consumer holds an update: a slow
// loop body is not the peer's silence. The agent sends the end only once
// the consumer is done, so without the pause the stream would be cut.
func TestSlowConsumerIsNotIdle(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		w.event(working(1, "one"))
		select {
		case <-done:
		case <-w.r.Context().Done():
			return
		}
		w.event(completed("done"))
	})
	st, _ := a.client(t, WithIdleTimeout(1500*time.Millisecond)).SendText(testCtx(t), "go")
	var r result
	for u, err := range st.Updates() {
		if err != nil {
			t.Fatal(err)
		}
		r.updates = append(r.updates, u)
		if u.Type == UpdateProgress {
			time.Sleep(4 * time.Second) // the consumer's own work, over two idle timeouts long
			close(done)
		}
	}
	if n := r.count(UpdateReconnect); n != 0 {
		t.Errorf("%d reconnects: the consumer's time was taken for the peer's silence", n)
	}
	if out, err := st.Outcome(); err != nil || out.Reply != "done" {
		t.Errorf("outcome %q %v", out.Reply, err)
	}
}
