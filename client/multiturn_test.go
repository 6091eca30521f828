package client

import (
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/callee"
)

// continueTurn answers the interrupt of task id with a message whose text
// names the script of the next turn, and returns that turn's stream.
func continueTurn(t *testing.T, cl *Client, id a2a.TaskID, script string) *Stream {
	t.Helper()
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(script))
	m.TaskID = id
	st, err := cl.Send(testCtx(t), m)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// interruptedTask runs a first turn that ends input-required and returns
// its task.
func interruptedTask(t *testing.T, cl *Client) a2a.TaskID {
	t.Helper()
	st, _ := cl.SendText(testCtx(t), "mt-ask")
	r := collect(t, st)
	if r.out.State != a2a.TaskStateInputRequired || r.out.Interrupt == nil {
		t.Fatalf("first turn: %s %v, want an interrupt", r.out.State, r.outErr)
	}
	return st.TaskID()
}

// A message to a task that cannot take it (here: a completed task; a2a-go
// refuses with InvalidParams) is refused — the stream must not resolve the
// task and report the previous turn's verdict as the answer to this one.
func TestSendToSettledTaskIsRefused(t *testing.T) {
	s := startCallee(t)
	s.Register(callee.Trajectory(3, callee.Named("mt-done")))
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			var cc calls
			cl := newForced(t, s, c, fastRetry, cc.option())
			first, _ := cl.SendText(testCtx(t), "mt-done")
			if r := collect(t, first); r.out.State != a2a.TaskStateCompleted {
				t.Fatalf("first turn: %s %v", r.out.State, r.err)
			}
			st := continueTurn(t, cl, first.TaskID(), "mt-done")
			r := collect(t, st)
			if r.err == nil || r.outErr == nil {
				t.Fatalf("second send to a completed task: outcome %s %q, err %v; want an error", r.out.State, r.out.Text, r.err)
			}
			if errors.Is(r.err, ErrIncomplete) {
				t.Errorf("err = %v, want the agent's refusal", r.err)
			}
			if n := cc.count("SubscribeToTask") + cc.count("GetTask"); n != 0 {
				t.Errorf("calls = %v: a refused send was resumed", cc.n)
			}
		})
	}
}
