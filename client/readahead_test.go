package client

import (
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// What Stream.TaskID says when Send returns, for each kind of first
// event, and that the iteration then handles that event as the first one
// (the turn ends as it would have without the read-ahead).
func TestSendTaskIDFromFirstEvent(t *testing.T) {
	t.Parallel()
	reply := &a2a.Message{ID: "r1", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("hi there")}}
	tests := []struct {
		name    string
		script  func(w *sseWriter) // nil: the agent refuses with TaskNotFound
		taskID  a2a.TaskID
		state   a2a.TaskState // the outcome's
		refused bool          // the stream ends with the agent's refusal
	}{
		{name: "task first", script: func(w *sseWriter) {
			w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
			w.event(completed("done"))
		}, taskID: rawTask, state: a2a.TaskStateCompleted},
		{name: "status update first", script: func(w *sseWriter) {
			w.event(working(1, "a"))
			w.event(completed("done"))
		}, taskID: rawTask, state: a2a.TaskStateCompleted},
		{name: "message reply", script: func(w *sseWriter) { w.event(reply) }, taskID: "", state: a2a.TaskStateCompleted},
		{name: "refused", script: nil, taskID: "", refused: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a *rawAgent
			if tc.script != nil {
				a = newRawAgent(t, tc.script)
			} else {
				a = newRawAgent(t)
			}
			st, err := a.client(t).SendText(testCtx(t), "go")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.taskID, st.TaskID()); d != "" {
				t.Errorf("TaskID after Send (-want +got):\n%s", d)
			}
			r := collect(t, st)
			if got := errors.Is(r.err, a2a.ErrTaskNotFound); got != tc.refused {
				t.Errorf("stream error %v, want a refusal: %v", r.err, tc.refused)
			}
			if !tc.refused {
				if d := cmp.Diff(tc.state, r.out.State); d != "" || r.outErr != nil {
					t.Errorf("outcome %v (-want +got state):\n%s", r.outErr, d)
				}
			}
			if got := a.calls(); len(got) != 1 || got[0] != "SendStreamingMessage" {
				t.Errorf("calls = %v, want one SendStreamingMessage", got)
			}
		})
	}
}

// The caller's time between Send and the iteration is not the peer's
// silence: a stream whose first event arrived is not cut by the idle
// timeout while nobody reads it.
func TestReadAheadIdleIsTheCallers(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		select {
		case <-release:
		case <-w.r.Context().Done():
			return
		}
		w.event(working(1, "a"))
		w.event(completed("done"))
	})
	const idle = time.Second
	st, err := a.client(t, WithIdleTimeout(idle)).SendText(testCtx(t), "go")
	if err != nil {
		t.Fatal(err)
	}
	// Waiting is the point here: several idle timeouts pass before the
	// caller iterates.
	time.Sleep(3 * idle)
	close(release)
	r := collect(t, st)
	if r.err != nil || r.out.State != a2a.TaskStateCompleted || r.count(UpdateReconnect) != 0 {
		t.Errorf("stream %v, outcome %s, %d reconnects; want completed without a cut", r.err, r.out.State, r.count(UpdateReconnect))
	}
	if got := a.calls(); len(got) != 1 {
		t.Errorf("calls = %v, want only the send", got)
	}
}
