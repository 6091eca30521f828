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
