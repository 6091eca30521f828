package agenttest

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
)

func TestRealisticEveryTransport(t *testing.T) {
	s := startServer(t)
	for _, c := range allCombos() {
		t.Run(c.String(), func(t *testing.T) {
			cl := newClient(t, s, c)
			events, err := collect(cl.SendStreamingMessage(testCtx(t), userMessage(RealisticName)))
			if err != nil {
				t.Fatalf("stream: %v (after %d events)", err, len(events))
			}
			if _, ok := events[0].(*a2a.Task); !ok {
				t.Errorf("first event is %T, want *a2a.Task", events[0])
			}
			envs, texts := envelopesIn(events)
			if diff := cmp.Diff(Realistic().Envelopes(), envs); diff != "" {
				t.Errorf("envelopes (-want +got):\n%s", diff)
			}
			if len(texts) != 0 {
				t.Errorf("fallbacks = %q, want none", texts)
			}
			state, msg := lastStatus(events)
			if state != a2a.TaskStateCompleted || envelope.MessageText(msg) != RealisticReply {
				t.Errorf("final = %v %q, want completed %q", state, envelope.MessageText(msg), RealisticReply)
			}
			var arts int
			for _, ev := range events {
				if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok && a.Artifact.ID == "reply" {
					arts++
				}
			}
			if arts != 1 {
				t.Errorf("reply artifacts = %d, want 1", arts)
			}
		})
	}
}

func TestNewRefusesInvalidScript(t *testing.T) {
	bad := Script{Name: "bad", Final: a2a.TaskStateWorking}
	a, err := New(WithScripts(Realistic().withName("fine"), bad))
	if err == nil {
		a.Close()
		t.Fatal("New accepted a script whose Final is working")
	}
	if want := `agenttest: script "bad": final state "TASK_STATE_WORKING" is neither terminal nor interrupted`; err.Error() != want {
		t.Errorf("New: %v, want %s", err, want)
	}
}

// TestURLIsTheV1Card: URL is the base of the 1.0 card, which lists the
// three transports of 1.0.
func TestURLIsTheV1Card(t *testing.T) {
	s := startServer(t, WithScripts(Trajectory(2, Named("two"))))
	if s.URL != s.CardURL(V1) {
		t.Errorf("URL %q, want CardURL(V1) %q", s.URL, s.CardURL(V1))
	}
	r := agentcardResolver(V1)
	card, err := r.Resolve(testCtx(t), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.endpoints(V1), card.SupportedInterfaces); diff != "" {
		t.Errorf("card interfaces (-want +got):\n%s", diff)
	}
	cl := newClient(t, s, combo{a2a.TransportProtocolJSONRPC, V1})
	events, err := collect(cl.SendStreamingMessage(testCtx(t), userMessage("two")))
	if err != nil {
		t.Fatal(err)
	}
	envs, _ := envelopesIn(events)
	if diff := cmp.Diff(Trajectory(2).Envelopes(), envs); diff != "" {
		t.Errorf("a script given to New (-want +got):\n%s", diff)
	}
}
