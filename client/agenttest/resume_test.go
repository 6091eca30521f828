package agenttest

import (
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
)

// gated registers Trajectory(8) named name, blocked before step gateAt by
// the gate of the same name.
func gated(s *Agent, name string, gateAt int) Script {
	sc := Trajectory(8, Named(name))
	sc.Steps[gateAt].Gate = name
	s.Register(sc)
	return sc
}

// subscribeAcrossGate subscribes to task id, takes the snapshot, releases
// the gate, and drains the rest. It returns the envelopes of the snapshot
// (history + current status) and of the following events, and the final
// state.
func subscribeAcrossGate(t *testing.T, s *Agent, cl *a2aclient.Client, id a2a.TaskID, gate string) (snap *a2a.Task, rest []a2a.Event) {
	t.Helper()
	next, stop := iter.Pull2(cl.SubscribeToTask(testCtx(t), &a2a.SubscribeToTaskRequest{ID: id}))
	defer stop()
	ev, err, ok := next()
	if !ok || err != nil {
		t.Fatalf("subscribe: first event: ok=%v err=%v", ok, err)
	}
	snap, isTask := ev.(*a2a.Task)
	if !isTask {
		t.Fatalf("subscribe: first event is %T, want the *a2a.Task snapshot", ev)
	}
	s.Release(gate)
	for {
		ev, err, ok := next()
		if !ok {
			break
		}
		if err != nil {
			t.Fatalf("subscribe: %v", err)
		}
		rest = append(rest, ev)
	}
	return snap, rest
}

func TestGateAndLateSubscribe(t *testing.T) {
	s := startServer(t)
	for _, c := range allCombos() {
		t.Run(c.String(), func(t *testing.T) {
			name := "late-" + c.String()
			sc := gated(s, name, 4)
			want := sc.Envelopes()
			cl := newClient(t, s, c)
			var events []a2a.Event
			for ev, err := range cl.SendStreamingMessage(testCtx(t), userMessage(name)) {
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				events = append(events, ev)
				if len(events) != 5 { // the Task and steps 0-3: the executor waits at the gate
					continue
				}
				snap, rest := subscribeAcrossGate(t, s, newClient(t, s, c), taskID(t, events), name)
				if snap.Status.State != a2a.TaskStateWorking {
					t.Errorf("snapshot state = %v, want working", snap.Status.State)
				}
				if len(snap.History) == 0 || snap.History[0].Role != a2a.MessageRoleUser {
					t.Errorf("snapshot history does not start with the user message: %v", snap.History)
				}
				got, _ := envelopesIn(historyEvents(snap))
				if diff := cmp.Diff(want[:4], got); diff != "" {
					t.Errorf("snapshot envelopes (-want +got):\n%s", diff)
				}
				got, _ = envelopesIn(rest)
				if diff := cmp.Diff(want[4:], got); diff != "" {
					t.Errorf("envelopes after the snapshot (-want +got):\n%s", diff)
				}
				if st, _ := lastStatus(rest); st != a2a.TaskStateCompleted {
					t.Errorf("subscriber's last state = %v, want completed", st)
				}
			}
			got, _ := envelopesIn(events)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("first stream envelopes (-want +got):\n%s", diff)
			}
			if st, _ := lastStatus(events); st != a2a.TaskStateCompleted {
				t.Errorf("first stream's last state = %v, want completed", st)
			}
		})
	}
}

func TestCutAfterThenResubscribe(t *testing.T) {
	s := startServer(t)
	for _, c := range allCombos() {
		for _, abrupt := range []bool{true, false} {
			kind := map[bool]string{true: "abrupt", false: "clean"}[abrupt]
			t.Run(c.String()+"/"+kind, func(t *testing.T) {
				name := fmt.Sprintf("cut-%v-%s", c, kind)
				sc := gated(s, name, 5)
				cl := newClient(t, s, c)
				s.CutAfter(3, abrupt)
				events, err := collect(cl.SendStreamingMessage(testCtx(t), userMessage(name)))
				if len(events) != 3 {
					t.Fatalf("got %d events before the cut, want 3", len(events))
				}
				switch {
				case abrupt && err == nil:
					t.Fatal("abrupt cut: stream ended without an error")
				case abrupt && c.t != a2a.TransportProtocolGRPC && !strings.Contains(err.Error(), "unexpected EOF"):
					t.Errorf("abrupt cut: err = %v, want unexpected EOF", err)
				case !abrupt && err != nil:
					t.Fatalf("clean cut: err = %v, want a silent end", err)
				}
				if err != nil {
					t.Logf("%v abrupt cut: %v", c, err)
				}

				snap, rest := subscribeAcrossGate(t, s, cl, taskID(t, events), name)
				got, _ := envelopesIn(historyEvents(snap))
				after, _ := envelopesIn(rest)
				got = append(got, after...)
				if diff := cmp.Diff(sc.Envelopes(), got); diff != "" {
					t.Errorf("snapshot + resubscription envelopes (-want +got):\n%s", diff)
				}
				if st, _ := lastStatus(rest); st != a2a.TaskStateCompleted {
					t.Errorf("last state = %v, want completed", st)
				}
			})
		}
	}
}

func TestCardURLs(t *testing.T) {
	s := startServer(t)
	resolve := func(t *testing.T, url string, v a2a.ProtocolVersion) *a2a.AgentCard {
		t.Helper()
		r := agentcardResolver(v)
		card, err := r.Resolve(testCtx(t), url)
		if err != nil {
			t.Fatalf("resolve %s: %v", url, err)
		}
		return card
	}
	for _, c := range allCombos() {
		t.Run(c.String(), func(t *testing.T) {
			card := resolve(t, s.CardURLFor(c.t, c.v), c.v)
			if diff := cmp.Diff([]*a2a.AgentInterface{s.Endpoint(c.t, c.v)}, card.SupportedInterfaces); diff != "" {
				t.Fatalf("card interfaces (-want +got):\n%s", diff)
			}
			cl, err := a2aclient.NewFromCard(testCtx(t), card, clientOptions(t, c)...)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cl.Destroy() }()
			events, err := collect(cl.SendStreamingMessage(testCtx(t), userMessage("anything: the default script")))
			if err != nil {
				t.Fatal(err)
			}
			if st, msg := lastStatus(events); st != a2a.TaskStateCompleted || envelope.MessageText(msg) != RealisticReply {
				t.Errorf("final = %v %q, want the Realistic reply", st, envelope.MessageText(msg))
			}
		})
	}
	for _, v := range versions {
		t.Run("all/"+string(v), func(t *testing.T) {
			card := resolve(t, s.CardURL(v), v)
			if diff := cmp.Diff(s.endpoints(v), card.SupportedInterfaces); diff != "" {
				t.Fatalf("card interfaces (-want +got):\n%s", diff)
			}
		})
	}
}
