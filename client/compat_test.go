package client

import (
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// remoteInvocation is a projection value as the recorded runtime writes it
// (PROTOCOL.md §5.1).
func remoteInvocation(batch, call string, seq int, phase, category string) map[string]any {
	m := map[string]any{"kind": "remote_agent_invocation", "batchId": batch, "toolCallId": call,
		"sequence": float64(seq), "target": "expense-review", "phase": phase, "latencyMs": float64(10 * seq)}
	if category != "" {
		m["resultCategory"] = category
	}
	return m
}

// compatScript mixes tfrs envelopes, projection frames in every place a
// peer may put them, a duplicate, a malformed frame and an ordinary
// artifact, and ends input-required with an _interrupt (PROTOCOL.md §5.2).
func compatScript() agenttest.Script {
	env := func(kind envelope.Kind, key string, seq int64, status envelope.Status, p envelope.Payload) agenttest.Step {
		return agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: kind, StreamKey: key, Seq: seq, Status: status, Payload: p}}
	}
	onText := func(id string, ri map[string]any) agenttest.Step {
		p := a2a.NewTextPart(ri["phase"].(string))
		p.Metadata = map[string]any{"_remote_invocation": ri}
		return agenttest.Step{Artifact: &a2a.TaskArtifactUpdateEvent{Artifact: &a2a.Artifact{ID: a2a.ArtifactID(id), Parts: a2a.ContentParts{p}}}}
	}
	onData := func(id string, ri map[string]any) agenttest.Step {
		p := a2a.NewDataPart(map[string]any{"content": ri["phase"]})
		p.Metadata = map[string]any{"_remote_invocation": ri}
		return agenttest.Step{Artifact: &a2a.TaskArtifactUpdateEvent{Artifact: &a2a.Artifact{ID: a2a.ArtifactID(id), Parts: a2a.ContentParts{p}}}}
	}
	onArtifact := func(id string, ri map[string]any) agenttest.Step {
		return agenttest.Step{Artifact: &a2a.TaskArtifactUpdateEvent{Artifact: &a2a.Artifact{ID: a2a.ArtifactID(id),
			Metadata: map[string]any{"_remote_invocation": ri}, Parts: a2a.ContentParts{a2a.NewTextPart(ri["phase"].(string))}}}}
	}
	dup := onText("b2", remoteInvocation("batch-1", "call-B", 2, "RUNNING", ""))
	dup.Repeat = 1
	bad := remoteInvocation("batch-1", "call-X", 1, "RUNNING", "")
	bad["sequence"] = "one"
	ordinary := agenttest.Step{Artifact: &a2a.TaskArtifactUpdateEvent{Artifact: &a2a.Artifact{ID: "out", Name: "notes",
		Metadata: map[string]any{"source": "expense-db"}, Parts: a2a.ContentParts{a2a.NewTextPart("3 receipts attached")}}}}
	question := "Approve the expense? Answer 'approved' or give a reason."
	return agenttest.Script{
		Name: "compat",
		Steps: []agenttest.Step{
			env(envelope.KindThinking, "", 100, envelope.StatusRunning, envelope.Thinking{Text: "delegating the review"}),
			onText("a1", remoteInvocation("batch-1", "call-A", 1, "RUNNING", "")),
			env(envelope.KindToolCall, "call-1", 101, envelope.StatusRunning, envelope.ToolCall{Tool: "lookup", ToolCallID: "call-1"}),
			onData("b1", remoteInvocation("batch-1", "call-B", 1, "QUEUED", "")),
			onArtifact("a2", remoteInvocation("batch-1", "call-A", 2, "COMPLETED", "SUCCESS")),
			dup,
			ordinary,
			env(envelope.KindToolCall, "call-1", 102, envelope.StatusDone, envelope.ToolCall{Tool: "lookup", ToolCallID: "call-1"}),
			onText("b3", remoteInvocation("batch-1", "call-B", 3, "TIMED_OUT", "")),
			onText("bad-1", bad),
			onText("c1", remoteInvocation("batch-2", "call-A", 1, "RUNNING", "")),
			onText("c2", remoteInvocation("batch-2", "call-A", 2, "INPUT_REQUIRED", "INPUT_REQUIRED")),
		},
		Final:     a2a.TaskStateInputRequired,
		FinalText: question,
		FinalMeta: map[string]any{"_interrupt": map[string]any{"message": question, "items": []any{
			map[string]any{"toolCallId": "call-A", "toolName": "expense-review", "message": question}}}},
	}
}

func TestCompatProjections(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(compatScript())
	question := "Approve the expense? Answer 'approved' or give a reason."

	call := func(id string) envelope.ToolCall { return envelope.ToolCall{Tool: "expense-review", ToolCallID: id} }
	eb := func(key string, seq int64, kind envelope.Kind, st envelope.Status, p envelope.Payload) schema.Block {
		return schema.Block{Key: schema.Key{StreamKey: key, Seq: seq}, Kind: kind, Status: st, Payload: p, Source: schema.SourceEnvelope}
	}
	pb := func(key string, seq int64, kind envelope.Kind, st envelope.Status, p envelope.Payload, after, ord int64) schema.Block {
		return schema.Block{Key: schema.Key{StreamKey: key, Seq: seq, ID: key + ":" + string(rune('0'+seq))}, Kind: kind, Status: st,
			Payload: p, Source: schema.SourceProjection, Anchored: true, After: after, Ordinal: ord}
	}
	const mA, mB, mC = "ri:batch-1:call-A", "ri:batch-1:call-B", "ri:batch-2:call-A"
	badFallback := schema.Block{Key: schema.Key{ID: "artifact:bad-1"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
		Payload: envelope.Text{Text: "RUNNING"}, Source: schema.SourceFallback, Reason: envelope.ReasonBadField, Anchored: true, After: 102, Ordinal: 6}
	wantView := schema.View{
		Blocks: []schema.Block{
			eb("", 100, envelope.KindThinking, envelope.StatusRunning, envelope.Thinking{Text: "delegating the review"}),
			pb(mA, 1, envelope.KindToolCall, envelope.StatusRunning, call("call-A"), 100, 1),
			eb("call-1", 101, envelope.KindToolCall, envelope.StatusRunning, envelope.ToolCall{Tool: "lookup", ToolCallID: "call-1"}),
			pb(mB, 1, envelope.KindToolCall, envelope.StatusRunning, call("call-B"), 101, 2),
			pb(mA, 2, envelope.KindToolCall, envelope.StatusDone, call("call-A"), 101, 3),
			pb(mB, 2, envelope.KindToolCall, envelope.StatusRunning, call("call-B"), 101, 4),
			eb("call-1", 102, envelope.KindToolCall, envelope.StatusDone, envelope.ToolCall{Tool: "lookup", ToolCallID: "call-1"}),
			pb(mB, 3, envelope.KindError, envelope.StatusAborted, envelope.ErrorPayload{Message: "expense-review: TIMED_OUT"}, 102, 5),
			badFallback,
			pb(mC, 1, envelope.KindToolCall, envelope.StatusRunning, call("call-A"), 102, 7),
			pb(mC, 2, envelope.KindText, envelope.StatusRunning, envelope.Text{Text: "expense-review: awaiting input"}, 102, 8),
		},
		ToolCalls: []schema.ToolCall{
			{Key: mA, Tool: "expense-review", ToolCallID: "call-A", Status: schema.ToolDone, Started: true, FirstSeq: 1},
			{Key: "call-1", Tool: "lookup", ToolCallID: "call-1", Status: schema.ToolDone, Started: true, FirstSeq: 101},
			{Key: mB, Tool: "expense-review", ToolCallID: "call-B", Status: schema.ToolAborted, Started: true, FirstSeq: 1},
			{Key: mC, Tool: "expense-review", ToolCallID: "call-A", Status: schema.ToolUnfinished, Started: true, FirstSeq: 1},
		},
		Counters: schema.Counters{Applied: 11, Duplicates: 1, Fallbacks: map[envelope.Reason]int64{envelope.ReasonBadField: 1}},
		Sealed:   true,
	}
	wantOut := terminal.Outcome{
		State: a2a.TaskStateInputRequired, Verdict: schema.VerdictInputRequired,
		Artifacts: []*a2a.Artifact{{Name: "notes", Metadata: map[string]any{"source": "expense-db"},
			Parts: a2a.ContentParts{a2a.NewTextPart("3 receipts attached")}}},
		Interrupt: &schema.Interrupt{Question: question,
			Items: []schema.InterruptItem{{ToolCallID: "call-A", ToolName: "expense-review", Message: question}}},
	}

	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			st, err := newForced(t, s, c).SendText(testCtx(t), "compat")
			if err != nil {
				t.Fatal(err)
			}
			r := collect(t, st)
			if r.err != nil || r.outErr != nil {
				t.Fatal(r.err, r.outErr)
			}
			if diff := cmp.Diff(wantView, r.view, viewOpts); diff != "" {
				t.Errorf("view (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantOut, r.out, outcomeOpts); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			var diag []error
			for _, u := range r.updates {
				if u.Type == UpdateProgress && u.Reading.Fallback {
					diag = append(diag, u.Reading.Err)
				}
			}
			if len(diag) != 1 || !errors.Is(diag[0], envelope.ReasonBadField) {
				t.Errorf("diagnostics = %v, want the one bad sequence", diag)
			}
			if n := r.count(UpdateArtifact); n != 1 {
				t.Errorf("%d artifact updates, want the ordinary one", n)
			}
		})
	}
}

// Switched off, the layer leaves projection artifacts where the peer put
// them: among the outcome's artifacts, and out of the view.
func TestCompatOff(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(compatScript())
	st, err := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1}, WithCompat(false)).SendText(testCtx(t), "compat")
	if err != nil {
		t.Fatal(err)
	}
	r := collect(t, st)
	if r.err != nil || r.outErr != nil {
		t.Fatal(r.err, r.outErr)
	}
	var ids []string
	for _, a := range r.out.Artifacts {
		ids = append(ids, string(a.ID))
	}
	if diff := cmp.Diff([]string{"a1", "b1", "a2", "b2", "out", "b3", "bad-1", "c1", "c2"}, ids); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(schema.Counters{Applied: 3}, r.view.Counters); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
}

// The caller's own hook sees what the layer did not claim.
func TestCompatThenCallerHook(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(compatScript())
	var seen []string
	hook := WithArtifactProgress(func(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
		seen = append(seen, string(ev.Artifact.ID))
		return envelope.Reading{}, false
	})
	st, err := newForced(t, s, combo{a2a.TransportProtocolHTTPJSON, agenttest.V1}, hook).SendText(testCtx(t), "compat")
	if err != nil {
		t.Fatal(err)
	}
	if r := collect(t, st); r.err != nil || r.outErr != nil {
		t.Fatal(r.err, r.outErr)
	}
	if diff := cmp.Diff([]string{"out"}, seen); diff != "" {
		t.Errorf("the caller's hook saw (-want +got):\n%s", diff)
	}
}
