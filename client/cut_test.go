package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// calls counts the A2A methods a client invokes.
type calls struct {
	a2aclient.PassthroughInterceptor
	mu     sync.Mutex
	n      map[string]int
	params []a2aclient.ServiceParams
}

func (c *calls) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[req.Method]++
	c.params = append(c.params, req.ServiceParams)
	return ctx, nil, nil
}

func (c *calls) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

func (c *calls) option() Option {
	return WithFactoryOptions(a2aclient.WithCallInterceptors(c))
}

// gated returns a copy of sc named name that waits at step i for gate.
func gated(sc agenttest.Script, name string, i int, gate string) agenttest.Script {
	sc.Name = name
	sc.Steps = append([]agenttest.Step(nil), sc.Steps...)
	sc.Steps[i].Gate = gate
	return sc
}

// A cut while the task runs: the client resubscribes, the snapshot's
// history fills what the cut lost, and the view equals the uncut one.
func TestCutResubscribes(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	base := agenttest.Trajectory(20, agenttest.Reorder(2), agenttest.Duplicate(2), agenttest.PlainText(2))
	base.Name = "cut-ref"
	s.Register(base)
	ref := reference(t, s, "cut-ref")
	var points atomic.Int64
	t.Cleanup(func() { t.Logf("%d cut points, each resumed through a subscription", points.Load()) })
	for _, c := range combos() {
		for _, abrupt := range []bool{true, false} {
			for _, k := range []int{1, 2, 7, 12} {
				name := fmt.Sprintf("cut-%s-%v-%d", c, abrupt, k)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					// A callee of its own: a cut is armed per server.
					s := startCallee(t)
					// The execution waits at step 12 (13 events sent) until
					// the resubscription's snapshot is in: the resume goes
					// through SubscribeToTask, not GetTask.
					s.Register(gated(base, name, 12, name))
					var cc calls
					cl := newForced(t, s, c, fastRetry, cc.option())
					s.CutAfter(k, abrupt)
					st, _ := cl.SendText(testCtx(t), name)
					var r result
					reconnects := 0
					for u, err := range st.Updates() {
						if err != nil {
							t.Fatalf("stream: %v", err)
						}
						switch u.Type {
						case UpdateReconnect:
							reconnects++
							if abrupt == errors.Is(u.Err, errCleanClose) {
								t.Errorf("abrupt=%v cut reported as %v", abrupt, u.Err)
							}
						case UpdateSnapshot:
							if reconnects > 0 {
								s.Release(name)
							}
						}
						r.updates = append(r.updates, u)
					}
					r.out, r.outErr = st.Outcome()
					r.view = st.View()
					checkSame(t, ref, r, cutViewOpts)
					if reconnects != 1 {
						t.Errorf("%d reconnects, want 1", reconnects)
					}
					if n := cc.count("SendStreamingMessage"); n != 1 {
						t.Errorf("SendStreamingMessage called %d times: the message was sent again", n)
					}
					if cc.count("SubscribeToTask") != 1 || cc.count("GetTask") != 0 {
						t.Errorf("calls = %v, want one subscription and no GetTask", cc.n)
					}
					points.Add(1)
				})
			}
		}
	}
}

// A cut after which the task settles: the subscription is refused and
// GetTask resolves the turn, backfilling its history.
func TestCutThenSettledResolvesWithGetTask(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	base := agenttest.Trajectory(16, agenttest.Duplicate(1), agenttest.PlainText(1), agenttest.EndIn(a2a.TaskStateFailed))
	base.Name = "settle-ref"
	s.Register(base)
	ref := reference(t, s, "settle-ref")
	for _, c := range combos() {
		for _, abrupt := range []bool{true, false} {
			name := fmt.Sprintf("settle-%s-%v", c, abrupt)
			t.Run(name, func(t *testing.T) {
				s.Register(gated(base, name, 10, name))
				var cc calls
				cl := newForced(t, s, c, fastRetry, cc.option())
				s.CutAfter(4, abrupt)
				st, _ := cl.SendText(testCtx(t), name)
				var r result
				for u, err := range st.Updates() {
					if err != nil {
						t.Fatalf("stream: %v", err)
					}
					if u.Type == UpdateReconnect {
						// Let the task finish, and watch it finish, before
						// the client resubscribes.
						s.Release(name)
						other, _ := cl.Follow(testCtx(t), st.TaskID())
						if o := collect(t, other); o.out.State != a2a.TaskStateFailed {
							t.Fatalf("other follower: %s %v", o.out.State, o.err)
						}
					}
					r.updates = append(r.updates, u)
				}
				r.out, r.outErr = st.Outcome()
				r.view = st.View()
				checkSame(t, ref, r, cutViewOpts)
				last := r.updates[len(r.updates)-1]
				if _, ok := last.Event.(*a2a.Task); !ok || last.State != a2a.TaskStateFailed {
					t.Errorf("settled by %T in %s, want GetTask's *a2a.Task in failed", last.Event, last.State)
				}
				if cc.count("SendStreamingMessage") != 1 {
					t.Errorf("the message was sent again: %v", cc.n)
				}
			})
		}
	}
}

// Many cut points, randomised (seeded, reproducible): one to three cuts
// per turn — the send and the resubscriptions after it — abrupt or clean,
// at any event, on every transport and version, against callees that
// pause or not. The view always equals the uncut one, the verdict is
// right, and the message is sent once.
func TestCutRandom(t *testing.T) {
	t.Parallel()
	trials := 150
	if testing.Short() {
		trials = 30
	}
	rng := rand.New(rand.NewPCG(20261130, 5))
	scripts := []agenttest.Script{
		agenttest.Trajectory(12, agenttest.Named("r0")),
		agenttest.Trajectory(30, agenttest.Named("r1"), agenttest.Reorder(3), agenttest.Duplicate(3), agenttest.SkipSeqs(2), agenttest.PlainText(3)),
		agenttest.Trajectory(24, agenttest.Named("r2"), agenttest.PlainText(4), agenttest.EndIn(a2a.TaskStateInputRequired)),
		agenttest.Trajectory(18, agenttest.Named("r3"), agenttest.Duplicate(4), agenttest.EndIn(a2a.TaskStateCanceled)),
		agenttest.Realistic(),
	}
	refSrv := startCallee(t)
	refs := map[string]result{}
	for _, sc := range scripts {
		refSrv.Register(sc)
		refs[sc.Name] = reference(t, refSrv, sc.Name)
	}
	all := combos()
	// The trials run in parallel, each on its own callee: the choices are
	// drawn here, in order, so a seed still names the same trials.
	var points, viaSub, viaGet atomic.Int64
	t.Cleanup(func() {
		t.Logf("%d trials, %d cut points armed; %d subscriptions and %d GetTask calls to resume", trials, points.Load(), viaSub.Load(), viaGet.Load())
	})
	for i := range trials {
		sc := scripts[rng.IntN(len(scripts))]
		c := all[rng.IntN(len(all))]
		events := len(sc.Steps) + 3
		ncut := 1 + rng.IntN(3)
		type cut struct {
			k      int
			abrupt bool
		}
		var cuts []cut
		for j := range ncut {
			k := rng.IntN(events + 1)
			if j == 0 {
				k = 1 + rng.IntN(events) // a send cut before any event is TestSendCutBeforeFirstEvent
			}
			cuts = append(cuts, cut{k, rng.IntN(2) == 0})
		}
		pause := rng.IntN(2) == 0
		name := fmt.Sprintf("trial-%d-%s-%s-%v-%v", i, sc.Name, c, cuts, pause)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startCallee(t)
			play := sc
			if pause {
				play = sc.WithPause(200_000) // 200µs: resubscriptions land mid-execution
			}
			s.Register(play)
			for _, ct := range cuts {
				s.CutAfter(ct.k, ct.abrupt)
			}
			var cc calls
			cl := newForced(t, s, c, fastRetry, cc.option())
			st, _ := cl.SendText(testCtx(t), sc.Name)
			r := collect(t, st)
			checkSame(t, refs[sc.Name], r, cutViewOpts)
			if cc.count("SendStreamingMessage") != 1 {
				t.Errorf("the message was sent again: %v", cc.n)
			}
			points.Add(int64(len(cuts)))
			viaSub.Add(int64(cc.count("SubscribeToTask")))
			viaGet.Add(int64(cc.count("GetTask")))
		})
	}
}

// The send stream cut before its first event: no event named the task,
// so nothing can be resumed — and the message is not sent again.
func TestSendCutBeforeFirstEvent(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	for _, c := range combos() {
		for _, abrupt := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s-%v", c, abrupt), func(t *testing.T) {
				var cc calls
				cl := newForced(t, s, c, fastRetry, cc.option())
				s.CutAfter(0, abrupt)
				st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
				r := collect(t, st)
				var ie *IncompleteError
				if !errors.As(r.err, &ie) || ie.TaskID != "" || !errors.Is(r.outErr, ErrIncomplete) {
					t.Fatalf("err = %v, outcome err = %v; want an IncompleteError without a task", r.err, r.outErr)
				}
				if cc.count("SendStreamingMessage") != 1 || cc.count("SubscribeToTask") != 0 {
					t.Errorf("calls = %v", cc.n)
				}
			})
		}
	}
}

// A server that closes cleanly without a terminal state (the silent cut)
// is not a success: the client resubscribes, and when the task stays
// unresolved the stream ends with ErrIncomplete and the last state.
func TestSilentEndIsIncomplete(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	sc := agenttest.Trajectory(6, agenttest.Named("silent"))
	sc.Final = ""
	s.Register(sc)
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel() // no cut armed: the callee is shared safely
			var cc calls
			cl := newForced(t, s, c, WithRetry(3, 1e6, 4e6), cc.option())
			st, _ := cl.SendText(testCtx(t), "silent")
			r := collect(t, st)
			var ie *IncompleteError
			if !errors.As(r.err, &ie) {
				t.Fatalf("stream err = %v, want *IncompleteError", r.err)
			}
			if ie.State != a2a.TaskStateWorking || ie.TaskID == "" || ie.Attempts != 4 {
				t.Errorf("incomplete = %+v, want working, a task id, 3 attempts + the last GetTask", ie)
			}
			if !errors.Is(r.outErr, ErrIncomplete) || r.out.State != a2a.TaskStateWorking {
				t.Errorf("Outcome = %s, %v; want working and ErrIncomplete", r.out.State, r.outErr)
			}
			if got := r.count(UpdateReconnect); got != 3 {
				t.Errorf("%d reconnect updates, want 3", got)
			}
			if cc.count("SendStreamingMessage") != 1 || cc.count("SubscribeToTask") != 3 {
				t.Errorf("calls = %v, want 1 send, 3 subscriptions", cc.n)
			}
			if len(r.view.Blocks) == 0 || r.view.Sealed {
				t.Errorf("view: %d blocks, sealed %v; want the progress so far, unsealed", len(r.view.Blocks), r.view.Sealed)
			}
		})
	}
}
