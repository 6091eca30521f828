package terminal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// FuzzObserve feeds arbitrary frames (one JSON StreamResponse a line) to a
// Tracker and checks the invariants that hold whatever a peer sends: no
// panic; a terminal state never changes; the error is nil exactly for
// completed and interrupted outcomes; a cut carries no reply.
func FuzzObserve(f *testing.F) {
	f.Add(seedRunning + "\n" + seedInputRequiredFrame + "\n" + seedInterrupt)
	f.Add(`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"}}}` + "\n" +
		`{"artifactUpdate":{"taskId":"t","append":true,"artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}` + "\n" +
		`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_COMPLETED"}}}` + "\n" +
		`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_FAILED"}}}`)
	f.Add(`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}`)
	f.Add(`{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"m","role":"ROLE_AGENT","parts":[],"metadata":{"_interrupt":{"items":[1,"x",{"toolCallId":2}]}}}},"artifacts":[{"artifactId":"a","parts":[{"data":{"k":[[[]]]}}]}]}}`)
	f.Fuzz(func(t *testing.T, frames string) {
		tr := NewTracker(WithArtifactProgress(isRemoteInvocation), WithLimits(Limits{MaxArtifacts: 3, MaxParts: 5, MaxBytes: 64}))
		var terminal a2a.TaskState
		for _, line := range strings.Split(frames, "\n") {
			var sr a2a.StreamResponse
			if json.Unmarshal([]byte(line), &sr) != nil {
				continue
			}
			o := tr.Observe(sr.Event)
			if terminal != "" && o.State != terminal {
				t.Fatalf("terminal state %s changed to %s", terminal, o.State)
			}
			if classify(o.State) == classTerminal {
				terminal = o.State
			}
		}
		out, err := tr.Outcome()
		if (err == nil) != (classify(out.State) != classInProgress && (out.State == a2a.TaskStateCompleted || out.Interrupt != nil)) {
			t.Fatalf("Outcome %s with error %v", out.State, err)
		}
		if out.Err != err {
			t.Fatalf("Outcome.Err %v differs from the error %v", out.Err, err)
		}
		if classify(out.State) == classInProgress && (out.Message != nil || out.Reply != "" || out.Artifacts != nil) {
			t.Fatalf("a cut carries a reply: %+v", out)
		}
		for _, a := range out.Artifacts {
			if len(a.Parts) > 5 {
				t.Fatalf("artifact %s has %d parts over the limit", a.ID, len(a.Parts))
			}
		}
	})
}
