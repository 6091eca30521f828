package client

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/terminal"
)

// sent records the ids of the messages the client sends.
type sent struct {
	a2aclient.PassthroughInterceptor
	mu   sync.Mutex
	msgs []msgIDs
	last string // the last message's id
}

type msgIDs struct{ Task, Context string }

func (s *sent) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	if r, ok := req.Payload.(*a2a.SendMessageRequest); ok && r.Message != nil {
		s.mu.Lock()
		s.msgs = append(s.msgs, msgIDs{string(r.Message.TaskID), r.Message.ContextID})
		s.last = r.Message.ID
		s.mu.Unlock()
	}
	return ctx, nil, nil
}

func (s *sent) list() []msgIDs {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]msgIDs(nil), s.msgs...)
}

func (s *sent) option() Option { return WithFactoryOptions(a2aclient.WithCallInterceptors(s)) }

// Send returns once the first event has named the task: the id is known
// before a single update is read, while the agent still holds the turn at
// a gate, and it is the task the turn settles.
func TestSendKnowsTaskIDBeforeIteration(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	base := agenttest.Trajectory(4, agenttest.Named("early-ref"))
	s.Register(base)
	ref := reference(t, s, "early-ref")
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			name := "early-" + c.String()
			s.Register(gated(base, name, 0, name))
			cl := newForced(t, s, c)
			st, err := cl.SendText(testCtx(t), name)
			if err != nil {
				t.Fatal(err)
			}
			id := st.TaskID()
			if id == "" {
				s.Release(name)
				t.Fatal("TaskID() is empty after Send")
			}
			// The agent knows the task by that id while the turn waits.
			task, err := cl.A2A().GetTask(testCtx(t), &a2a.GetTaskRequest{ID: id})
			s.Release(name)
			if err != nil {
				t.Fatalf("GetTask(%q): %v", id, err)
			}
			if d := cmp.Diff(id, task.ID); d != "" {
				t.Errorf("GetTask's task (-Send's +agent's):\n%s", d)
			}
			r := collect(t, st)
			checkSame(t, ref, r, viewOpts)
			if d := cmp.Diff(id, r.out.TaskID); d != "" {
				t.Errorf("outcome's task (-known after Send +settled):\n%s", d)
			}
		})
	}
}

// A stream that is closed instead of iterated ends its call (goleak in
// TestMain checks that nothing is left behind); the task goes on, and the
// stream cannot be iterated afterwards.
func TestCloseBeforeIteration(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(gated(agenttest.Trajectory(3), "close-early", 1, "close-early"))
	cl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1})
	st, err := cl.SendText(testCtx(t), "close-early")
	if err != nil {
		t.Fatal(err)
	}
	id := st.TaskID()
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s.Release("close-early")
	for _, err := range st.Updates() {
		if !errors.Is(err, ErrStreamUsed) {
			t.Errorf("iteration after Close: %v, want ErrStreamUsed", err)
		}
	}
	if _, err := st.Outcome(); !errors.Is(err, ErrNotFinished) {
		t.Errorf("Outcome after Close: %v, want ErrNotFinished", err)
	}
	follow, _ := cl.Follow(testCtx(t), id)
	if r := collect(t, follow); r.err != nil || r.out.State != a2a.TaskStateCompleted {
		t.Errorf("the task after Close: %s %v, want it completed", r.out.State, r.err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Respond continues an interrupted task with a message that carries the
// task's id and context id; the new turn is the same as the one Send
// starts with those ids, on every transport and version.
func TestRespond(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(5, agenttest.Named("mt-ask"), agenttest.EndIn(a2a.TaskStateInputRequired)))
	s.Register(agenttest.Trajectory(8, agenttest.Named("mt-answer"), agenttest.PlainText(2)))
	refCl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1})
	ref := collect(t, continueTurn(t, refCl, interruptedTask(t, refCl), "mt-answer"))
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			var msgs sent
			cl := newForced(t, s, c, msgs.option())
			first, _ := cl.SendText(testCtx(t), "mt-ask")
			r1 := collect(t, first)
			if r1.out.Interrupt == nil {
				t.Fatalf("first turn: %s %v, want an interrupt", r1.out.State, r1.outErr)
			}
			st, err := cl.Respond(testCtx(t), first.TaskID(), "mt-answer")
			if err != nil {
				t.Fatalf("Respond: %v", err)
			}
			if d := cmp.Diff(first.TaskID(), st.TaskID()); d != "" {
				t.Errorf("Respond's task (-interrupted +responded):\n%s", d)
			}
			checkSame(t, ref, collect(t, st), viewOpts)
			msgs.mu.Lock()
			last := msgs.last
			msgs.mu.Unlock()
			if d := cmp.Diff(last, st.Turn()); d != "" {
				t.Errorf("Respond's turn (-the response's messageId +Turn()):\n%s", d)
			}
			// Send gives a message without a context a new one (so that a
			// send cut before its first event can be found with ListTasks);
			// the response continues the task in it.
			want := []msgIDs{{Context: r1.out.ContextID}, {string(first.TaskID()), r1.out.ContextID}}
			if d := cmp.Diff(want, msgs.list()); d != "" {
				t.Errorf("messages sent (task, context) (-want +got):\n%s", d)
			}
		})
	}
}

// Respond and Cancel of a task the agent does not know fail with
// a2a.ErrTaskNotFound, and Respond sends nothing.
func TestRespondAndCancelUnknownTask(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			var msgs sent
			cl := newForced(t, s, c, msgs.option())
			if _, err := cl.Respond(testCtx(t), "no-such-task", "hello"); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("Respond: %v, want a2a.ErrTaskNotFound", err)
			}
			if got := msgs.list(); len(got) != 0 {
				t.Errorf("Respond of an unknown task sent %v", got)
			}
			if _, err := cl.Cancel(testCtx(t), "no-such-task"); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("Cancel: %v, want a2a.ErrTaskNotFound", err)
			}
		})
	}
}

// Cancel of a running task: the agent reports it canceled, and the
// stream of its turn ends with the canceled verdict. A settled task
// cannot be canceled.
func TestCancel(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	base := agenttest.Trajectory(4)
	s.Register(agenttest.Trajectory(2, agenttest.Named("cancel-done")))
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			name := "cancel-" + c.String()
			s.Register(gated(base, name, 2, name))
			t.Cleanup(func() { s.Release(name) })
			cl := newForced(t, s, c)
			st, err := cl.SendText(testCtx(t), name)
			if err != nil {
				t.Fatal(err)
			}
			task, err := cl.Cancel(testCtx(t), st.TaskID())
			if err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			if d := cmp.Diff(a2a.TaskStateCanceled, task.Status.State); d != "" {
				t.Errorf("canceled task's state (-want +got):\n%s", d)
			}
			r := collect(t, st)
			if r.err != nil || !errors.Is(r.outErr, terminal.ErrCanceled) {
				t.Errorf("stream: %v, outcome %s %v; want the canceled verdict", r.err, r.out.State, r.outErr)
			}

			done, _ := cl.SendText(testCtx(t), "cancel-done")
			if r := collect(t, done); r.out.State != a2a.TaskStateCompleted {
				t.Fatalf("cancel-done: %s %v", r.out.State, r.err)
			}
			if _, err := cl.Cancel(testCtx(t), done.TaskID()); !errors.Is(err, a2a.ErrTaskNotCancelable) {
				t.Errorf("Cancel of a completed task: %v, want a2a.ErrTaskNotCancelable", err)
			}
		})
	}
}
