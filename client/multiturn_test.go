package client

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/agenttest"
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
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(3, agenttest.Named("mt-done")))
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
				t.Fatalf("second send to a completed task: outcome %s %q, err %v; want an error", r.out.State, r.out.Reply, r.err)
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

// A second turn on the same task after an interrupt is a turn of its own
// (seq scope = one turn): cut and resumed — by subscription or by GetTask —
// its view equals the uncut second turn. The previous turn's question, which
// a2a-go moves into the history right after the answering user message,
// is not progress of the new turn.
func TestMultiTurnAfterInterruptCut(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(5, agenttest.Named("mt-ask"), agenttest.EndIn(a2a.TaskStateInputRequired)))
	turn2 := agenttest.Trajectory(10, agenttest.Named("mt-answer"), agenttest.PlainText(2))
	s.Register(turn2)
	refCl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1})
	ref := collect(t, continueTurn(t, refCl, interruptedTask(t, refCl), "mt-answer"))
	if ref.err != nil || ref.out.State != a2a.TaskStateCompleted {
		t.Fatalf("reference second turn: %s %v", ref.out.State, ref.err)
	}
	for _, c := range combos() {
		for _, settle := range []bool{false, true} {
			name := fmt.Sprintf("mt-%s-settle=%v", c, settle)
			t.Run(name, func(t *testing.T) {
				s.Register(gated(turn2, name, 7, name))
				cl := newForced(t, s, c, fastRetry)
				id := interruptedTask(t, cl)
				s.CutAfter(3, true)
				st := continueTurn(t, cl, id, name)
				var r result
				for u, err := range st.Updates() {
					if err != nil {
						t.Fatalf("stream: %v", err)
					}
					switch {
					case u.Type == UpdateReconnect && settle:
						// The turn finishes before the client is back:
						// GetTask resolves it from the history.
						s.Release(name)
						other, _ := cl.Follow(testCtx(t), id)
						if o := collect(t, other); o.out.State != a2a.TaskStateCompleted {
							t.Fatalf("other follower: %s %v", o.out.State, o.err)
						}
					case u.Type == UpdateSnapshot && !settle:
						s.Release(name)
					}
					r.updates = append(r.updates, u)
				}
				r.out, r.outErr = st.Outcome()
				r.view = st.View()
				if r.count(UpdateReconnect) != 1 {
					t.Errorf("%d reconnects, want 1", r.count(UpdateReconnect))
				}
				checkSame(t, ref, r, cutViewOpts)
			})
		}
	}
}

// Follow and Poll on a task that waits for input (or for auth) resolve
// to the interrupt — the subscription is refused or answered with a
// snapshot in that state — with the turn's progress backfilled, on every
// transport and version.
func TestFollowAndPollInterrupted(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	for _, st := range []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired} {
		s.Register(agenttest.Trajectory(6, agenttest.Named("int-"+string(st)), agenttest.PlainText(1), agenttest.EndIn(st)))
	}
	for _, state := range []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired} {
		name := "int-" + string(state)
		ref := reference(t, s, name)
		for _, c := range combos() {
			t.Run(fmt.Sprintf("%s-%s", state, c), func(t *testing.T) {
				cl := newForced(t, s, c, fastRetry)
				first, _ := cl.SendText(testCtx(t), name)
				if r := collect(t, first); r.out.State != state {
					t.Fatalf("send: %s %v", r.out.State, r.err)
				}
				follow, _ := cl.Follow(testCtx(t), first.TaskID())
				checkSame(t, ref, collect(t, follow), cutViewOpts)
				poll, _ := cl.Poll(testCtx(t), first.TaskID(), time.Millisecond)
				checkSame(t, ref, collect(t, poll), cutViewOpts)
			})
		}
	}
}
