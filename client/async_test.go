package client

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/terminal"
)

// reference runs sc uncut over JSON-RPC 1.0 and returns what a caller
// sees: the view and outcome every other way of following must reproduce.
func reference(t *testing.T, s *agenttest.Agent, name string) result {
	t.Helper()
	cl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1})
	st, _ := cl.SendText(testCtx(t), name)
	r := collect(t, st)
	if r.err != nil {
		t.Fatalf("reference run: %v", r.err)
	}
	return r
}

func dispatch(t *testing.T, cl *Client, text string) a2a.TaskID {
	t.Helper()
	id, err := cl.Dispatch(testCtx(t), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)))
	if err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	return id
}

func TestAsync(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(30, agenttest.Named("async"), agenttest.Reorder(2), agenttest.Duplicate(2), agenttest.PlainText(1)))
	ref := reference(t, s, "async")

	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			cl := newForced(t, s, c)

			t.Run("DispatchFollow", func(t *testing.T) {
				id := dispatch(t, cl, "async")
				st, _ := cl.Follow(testCtx(t), id)
				r := collect(t, st)
				checkSame(t, ref, r, cutViewOpts)
				if st.TaskID() != id {
					t.Errorf("TaskID = %q, want %q", st.TaskID(), id)
				}
			})

			t.Run("FollowFinished", func(t *testing.T) {
				id := dispatch(t, cl, "async")
				first, _ := cl.Follow(testCtx(t), id)
				if r := collect(t, first); r.outErr != nil {
					t.Fatal(r.outErr)
				}
				// The task has settled: the subscription is refused and
				// GetTask resolves it, backfilling the whole history.
				st, _ := cl.Follow(testCtx(t), id)
				r := collect(t, st)
				checkSame(t, ref, r, cutViewOpts)
				for _, u := range r.updates {
					if u.Type == UpdateProgress && !u.Backfill {
						t.Fatalf("a live progress update on a settled task: %+v", u)
					}
				}
			})

			t.Run("Poll", func(t *testing.T) {
				id := dispatch(t, cl, "async")
				st, _ := cl.Poll(testCtx(t), id, 5*time.Millisecond)
				r := collect(t, st)
				checkSame(t, ref, r, cutViewOpts)
			})
		})
	}
}

// A late Follow, after some events: the subscription's snapshot carries
// the history, which is backfilled; the view ends equal to an uncut one.
func TestLateFollowBackfills(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel() // names and gates of its own
			name, gate := "late-"+c.String(), "gate-"+c.String()
			sc := agenttest.Trajectory(24, agenttest.Named(name), agenttest.Duplicate(1), agenttest.PlainText(2))
			sc.Steps[15].Gate = gate
			s.Register(sc)
			s.Release("ref-" + gate)
			ref := func() result {
				refSc := sc
				refSc.Name = "ref-" + name
				refSc.Steps = append([]agenttest.Step(nil), sc.Steps...)
				refSc.Steps[15].Gate = ""
				s.Register(refSc)
				return reference(t, s, refSc.Name)
			}()

			cl := newForced(t, s, c)
			id := dispatch(t, cl, name)
			// An early follower reads the 15 distinct updates sent before
			// the gate, then leaves.
			early, _ := cl.Follow(testCtx(t), id)
			n := 0
			for u, err := range early.Updates() {
				if err != nil {
					t.Fatal(err)
				}
				if u.Type == UpdateProgress && u.Change.Effect == merge.Applied {
					n++
				}
				if n == 15 {
					break
				}
			}
			if _, err := early.Outcome(); !errors.Is(err, ErrNotFinished) {
				t.Errorf("Outcome after break = %v, want ErrNotFinished", err)
			}
			// The late follower starts from the snapshot.
			late, _ := cl.Follow(testCtx(t), id)
			var backfilled, beforeRelease int
			released := false
			r := result{}
			for u, err := range late.Updates() {
				if err != nil {
					t.Fatal(err)
				}
				if u.Type == UpdateProgress && u.Backfill {
					backfilled++
				}
				if u.Type == UpdateProgress && !released {
					beforeRelease++
				}
				if u.Type == UpdateProgress && beforeRelease == 15 && !released {
					released = true
					s.Release(gate)
				}
				r.updates = append(r.updates, u)
			}
			r.out, r.outErr = late.Outcome()
			r.view = late.View()
			checkSame(t, ref, r, cutViewOpts)
			// a2asrv may broadcast the latest event before it lands in the
			// store, so the newest update can arrive live instead.
			if backfilled < 14 || beforeRelease != 15 {
				t.Errorf("backfilled %d, %d before the gate; want ≥ 14 and 15", backfilled, beforeRelease)
			}
		})
	}
}

func checkSame(t *testing.T, want, got result, opts cmp.Options) {
	t.Helper()
	if got.err != nil {
		t.Fatalf("stream error: %v", got.err)
	}
	if d := cmp.Diff(normFallbacks(want.view), normFallbacks(got.view), opts); d != "" {
		t.Errorf("view (-uncut +this):\n%s", d)
	}
	if d := cmp.Diff(want.out, got.out, outcomeOpts); d != "" {
		t.Errorf("outcome (-uncut +this):\n%s", d)
	}
	if verdict(want.outErr) != verdict(got.outErr) {
		t.Errorf("outcome error = %v, want %v", got.outErr, want.outErr)
	}
}

// verdict describes an outcome error without its task id.
func verdict(err error) string {
	var ve *terminal.VerdictError
	if errors.As(err, &ve) {
		return fmt.Sprintf("verdict %s: %s", ve.State, ve.Reason)
	}
	return fmt.Sprint(err)
}
