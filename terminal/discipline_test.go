package terminal

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// workingEnvelope is a working status update carrying a real envelope.
func workingEnvelope(t *testing.T, e envelope.Envelope, text string) *a2a.TaskStatusUpdateEvent {
	t.Helper()
	ev, err := envelope.NewStatusUpdate(a2a.TaskInfo{TaskID: taskID, ContextID: ctxID}, e, text)
	if err != nil {
		t.Fatalf("envelope.NewStatusUpdate: %v", err)
	}
	return ev
}

// noise returns progress events that look like failure (or success) in
// every way except the task state.
func noise(t *testing.T) map[string]a2a.Event {
	withStatusMeta := statusText(a2a.TaskStateWorking, "still going")
	withStatusMeta.Metadata = map[string]any{"error": "fatal", "status": "failed", "final": true}
	msgMeta := agentMsg("progress")
	msgMeta.Metadata = map[string]any{"error": map[string]any{"code": "FAILED"}}
	remoteFailed := &a2a.TaskArtifactUpdateEvent{TaskID: taskID, ContextID: ctxID, Artifact: &a2a.Artifact{ID: "r1",
		Parts: a2a.ContentParts{{Content: a2a.Text("FAILED"), Metadata: map[string]any{"_remote_invocation": map[string]any{
			"kind": "remote_agent_invocation", "toolCallId": "call_1", "sequence": 2.0, "phase": "FAILED", "resultCategory": "FAILED"}}}}}}
	return map[string]a2a.Event{
		"envelope kind error": workingEnvelope(t, envelope.Envelope{V: 1, Kind: envelope.KindError, StreamKey: "call-1", Seq: 1,
			Status: envelope.StatusRunning, Payload: envelope.ErrorPayload{Message: "tool crashed"}}, "error: tool crashed"),
		"envelope status aborted": workingEnvelope(t, envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "call-1", Seq: 2,
			Status: envelope.StatusAborted, Payload: envelope.ToolCall{Tool: "search"}}, "search aborted"),
		"envelope status done with text completed": workingEnvelope(t, envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 3,
			Status: envelope.StatusDone, Payload: envelope.Text{Text: "completed"}}, "completed"),
		"working text saying failed":         statusText(a2a.TaskStateWorking, "failed"),
		"working text saying completed":      statusText(a2a.TaskStateWorking, "Task completed successfully."),
		"status update metadata error":       withStatusMeta,
		"message metadata error":             status(a2a.TaskStateWorking, msgMeta),
		"artifact text FAILED (no seam)":     artifact("noise", false, true, "FAILED"),
		"remote invocation phase FAILED":     remoteFailed,
		"snapshot working with failure text": snapshot(a2a.TaskStateWorking, agentMsg("failed")),
	}
}

// TestDisciplineOnlyTheStateDecides: no envelope, text or metadata changes
// the outcome — before the end (a cut stays a cut), before a terminal state
// (the terminal state decides), or after it (ignored).
func TestDisciplineOnlyTheStateDecides(t *testing.T) {
	done := agentMsg("the answer")
	endings := []struct {
		name  string
		build func(noise a2a.Event) []a2a.Event
		state a2a.TaskState
		err   error
	}{
		{"then the stream ends", func(n a2a.Event) []a2a.Event {
			return []a2a.Event{statusText(a2a.TaskStateWorking, "w"), n}
		}, a2a.TaskStateWorking, ErrCut},
		{"then completed", func(n a2a.Event) []a2a.Event {
			return []a2a.Event{statusText(a2a.TaskStateWorking, "w"), n, status(a2a.TaskStateCompleted, done)}
		}, a2a.TaskStateCompleted, nil},
		{"after completed", func(n a2a.Event) []a2a.Event {
			return []a2a.Event{status(a2a.TaskStateCompleted, done), n}
		}, a2a.TaskStateCompleted, nil},
		{"after input-required, then the stream ends", func(n a2a.Event) []a2a.Event {
			return []a2a.Event{statusText(a2a.TaskStateInputRequired, "approve?"), n}
		}, "", nil}, // artifacts keep the interrupt; a working status supersedes it (see below)
	}
	for name, ev := range noise(t) {
		for _, end := range endings {
			t.Run(name+"/"+end.name, func(t *testing.T) {
				tr := NewTracker()
				observeAll(tr, end.build(ev)...)
				got, err := tr.Outcome()
				wantState, wantErr := end.state, end.err
				if wantState == "" {
					// Only a status or snapshot can supersede an interrupt,
					// and then by its state (working), never by its content.
					wantState = a2a.TaskStateInputRequired
					if _, ok := stateOf(ev); ok {
						wantState, wantErr = a2a.TaskStateWorking, ErrCut
					}
				}
				if diff := cmp.Diff(wantState, got.State); diff != "" {
					t.Errorf("State (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantErr, err, outcomeOpts); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestDisciplineFinalMessageDoesNotChangeVerdict: the text of the final
// status message is the reply or the reason, never the verdict.
func TestDisciplineFinalMessageDoesNotChangeVerdict(t *testing.T) {
	tests := []struct {
		name    string
		ev      a2a.Event
		wantErr error
	}{
		{"completed saying failed", statusText(a2a.TaskStateCompleted, "FAILED: could not do it"), nil},
		{"completed with an error envelope part", status(a2a.TaskStateCompleted,
			workingEnvelope(t, envelope.Envelope{V: 1, Kind: envelope.KindError, Seq: 9, Status: envelope.StatusAborted,
				Payload: envelope.ErrorPayload{Message: "x"}}, "error").Status.Message), nil},
		{"failed saying success", statusText(a2a.TaskStateFailed, "success"), ErrFailed},
		{"canceled saying completed", statusText(a2a.TaskStateCanceled, "completed"), ErrCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			tr.Observe(tt.ev)
			_, err := tr.Outcome()
			if diff := cmp.Diff(tt.wantErr, err, outcomeOpts); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

var terminalStates = []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected}

// TestDisciplineIgnoredAfterTerminal: after each terminal state, events of
// every type are ignored and counted, and the outcome is that of the
// terminal state.
func TestDisciplineIgnoredAfterTerminal(t *testing.T) {
	for _, st := range terminalStates {
		t.Run(st.String(), func(t *testing.T) {
			tr := NewTracker()
			final := agentMsg("verdict")
			tr.Observe(status(st, final))
			before, beforeErr := tr.Outcome()
			late := []a2a.Event{
				statusText(a2a.TaskStateWorking, "zombie update"),
				statusText(a2a.TaskStateInputRequired, "one more question"),
				artifact("late", false, true, "late output"),
				snapshot(a2a.TaskStateWorking, nil, art("late", "x")),
				agentMsg("late message"),
				status(st, agentMsg("same state, other words")),
			}
			for i, ev := range late {
				if o := tr.Observe(ev); !o.Ignored || o.Conflict || o.State != st {
					t.Errorf("late event %d: Observation = %+v, want Ignored in %s without conflict", i, o, st)
				}
			}
			after, afterErr := tr.Outcome()
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("Outcome changed after the terminal state (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(beforeErr, afterErr); diff != "" {
				t.Errorf("error changed after the terminal state (-before +after):\n%s", diff)
			}
			want := EventCounts{Events: 1 + len(late), IgnoredAfterSettle: len(late)}
			if diff := cmp.Diff(want, tr.EventCounts()); diff != "" {
				t.Errorf("EventCounts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDisciplineFirstTerminalWins: for every pair of terminal states, the
// first stands; a different second one is a reported conflict.
func TestDisciplineFirstTerminalWins(t *testing.T) {
	for _, first := range terminalStates {
		for _, second := range terminalStates {
			t.Run(fmt.Sprintf("%s then %s", first, second), func(t *testing.T) {
				tr := NewTracker()
				tr.Observe(statusText(first, "first"))
				o := tr.Observe(snapshot(second, agentMsg("second")))
				wantConflict := first != second
				if diff := cmp.Diff(Observation{State: first, Settled: true, Ignored: true,
					Conflict: wantConflict}, o); diff != "" {
					t.Errorf("Observation of the second (-want +got):\n%s", diff)
				}
				got, _ := tr.Outcome()
				if diff := cmp.Diff(first, got.State); diff != "" {
					t.Errorf("Outcome.State (-want +got):\n%s", diff)
				}
				// The first state's message is the reply or the reason,
				// by its verdict.
				if diff := cmp.Diff("first", got.Reply+got.Reason); diff != "" {
					t.Errorf("Outcome.Reply+Reason (-want +got):\n%s", diff)
				}
				conflicts := 0
				if wantConflict {
					conflicts = 1
				}
				if diff := cmp.Diff(EventCounts{Events: 2, IgnoredAfterSettle: 1, Conflicts: conflicts}, tr.EventCounts()); diff != "" {
					t.Errorf("EventCounts (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestDisciplineInterruptIsSupersededTerminalIsNot: a later state replaces
// an interrupted one, never a terminal one.
func TestDisciplineInterruptIsSupersededTerminalIsNot(t *testing.T) {
	tests := []struct {
		name      string
		first     a2a.TaskState
		then      a2a.TaskState
		wantState a2a.TaskState
		wantCount EventCounts
	}{
		{"input-required then working", a2a.TaskStateInputRequired, a2a.TaskStateWorking, a2a.TaskStateWorking,
			EventCounts{Events: 2, Resumed: 1}},
		{"auth-required then submitted", a2a.TaskStateAuthRequired, a2a.TaskStateSubmitted, a2a.TaskStateSubmitted,
			EventCounts{Events: 2, Resumed: 1}},
		{"input-required then auth-required", a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, a2a.TaskStateAuthRequired,
			EventCounts{Events: 2, Resumed: 1}},
		{"input-required then failed", a2a.TaskStateInputRequired, a2a.TaskStateFailed, a2a.TaskStateFailed,
			EventCounts{Events: 2, Resumed: 1}},
		{"completed then working", a2a.TaskStateCompleted, a2a.TaskStateWorking, a2a.TaskStateCompleted,
			EventCounts{Events: 2, IgnoredAfterSettle: 1}},
		{"completed then input-required", a2a.TaskStateCompleted, a2a.TaskStateInputRequired, a2a.TaskStateCompleted,
			EventCounts{Events: 2, IgnoredAfterSettle: 1}},
		{"canceled then working", a2a.TaskStateCanceled, a2a.TaskStateWorking, a2a.TaskStateCanceled,
			EventCounts{Events: 2, IgnoredAfterSettle: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			observeAll(tr, statusText(tt.first, "1"), statusText(tt.then, "2"))
			if diff := cmp.Diff(tt.wantState, tr.currentState()); diff != "" {
				t.Errorf("State (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCount, tr.EventCounts()); diff != "" {
				t.Errorf("EventCounts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDisciplineCutIsNeverSuccess: whatever progress came before, a cut
// has an error in both places and no reply fields.
func TestDisciplineCutIsNeverSuccess(t *testing.T) {
	tests := []struct {
		name   string
		events []a2a.Event
	}{
		{"nothing", nil},
		{"submitted only", []a2a.Event{snapshot(a2a.TaskStateSubmitted, agentMsg("hi"))}},
		{"working saying done, with artifacts", []a2a.Event{statusText(a2a.TaskStateWorking, "Done! Here is your answer."),
			artifact("a1", false, true, "the whole answer")}},
		{"interrupt answered, then silence", []a2a.Event{statusText(a2a.TaskStateInputRequired, "approve?"),
			statusText(a2a.TaskStateWorking, "resumed"), artifact("a1", false, true, "x")}},
		{"only ignored events", []a2a.Event{nil, &a2a.TaskStatusUpdateEvent{TaskID: taskID}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			observeAll(tr, tt.events...)
			got, err := tr.Outcome()
			if !errors.Is(err, ErrCut) || !errors.Is(got.Err, ErrCut) {
				t.Errorf("Outcome error = %v, Outcome.Err = %v; want both ErrCut", err, got.Err)
			}
			reply := struct {
				Message   *a2a.Message
				Text      string
				Artifacts []*a2a.Artifact
				Interrupt *schema.Interrupt
				Verdict   schema.Verdict
			}{got.Message, got.Reply, got.Artifacts, got.Interrupt, got.Verdict}
			if diff := cmp.Diff(struct {
				Message   *a2a.Message
				Text      string
				Artifacts []*a2a.Artifact
				Interrupt *schema.Interrupt
				Verdict   schema.Verdict
			}{Verdict: schema.VerdictIncomplete}, reply); diff != "" {
				t.Errorf("reply fields of a cut (-want +got):\n%s", diff)
			}
			var ce *CutError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *CutError", err)
			}
			if diff := cmp.Diff(CutError{TaskID: got.TaskID, LastState: got.State, Events: len(tt.events)}, *ce); diff != "" {
				t.Errorf("CutError (-want +got):\n%s", diff)
			}
		})
	}
}

// The A2A frames of the recorded runtime (PROTOCOL.md §5.1, §5.2), as it
// sends them (the results of
// the JSON-RPC frames; ids shortened).
const (
	seedRunning            = `{"artifactUpdate":{"taskId":"3836f437","artifact":{"artifactId":"620157e7","parts":[{"text":"RUNNING","metadata":{"_remote_invocation":{"kind":"remote_agent_invocation","batchId":"d1625ae4","toolCallId":"call_00_32BxucUtBW0bBQZE9mz32638","sequence":1,"target":"expense-review","phase":"RUNNING","latencyMs":0}}}]},"contextId":"0af383b5"}}`
	seedInputRequiredFrame = `{"artifactUpdate":{"taskId":"3836f437","artifact":{"artifactId":"20c478f2","parts":[{"text":"INPUT_REQUIRED","metadata":{"_remote_invocation":{"kind":"remote_agent_invocation","batchId":"d1625ae4","toolCallId":"call_00_32BxucUtBW0bBQZE9mz32638","sequence":2,"target":"expense-review","phase":"INPUT_REQUIRED","resultCategory":"INPUT_REQUIRED","latencyMs":12058}}}]},"contextId":"0af383b5"}}`
	seedInterrupt          = `{"statusUpdate":{"taskId":"3836f437","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"role":"ROLE_AGENT","parts":[{"text":"费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。"}],"messageId":"4e8f72fd","metadata":{"_interrupt":{"message":"费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。","items":[{"toolCallId":"call_00_32BxucUtBW0bBQZE9mz32638","toolName":"expense-review","message":"费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。"}]}}},"timestamp":"2026-07-29T09:07:15.542073509Z"},"contextId":"0af383b5"}}`
	seedQuestion           = "费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。"
)

func decodeEvents(t testing.TB, frames ...string) []a2a.Event {
	t.Helper()
	var evs []a2a.Event
	for _, f := range frames {
		var sr a2a.StreamResponse
		if err := json.Unmarshal([]byte(f), &sr); err != nil {
			t.Fatalf("decode %s: %v", f, err)
		}
		evs = append(evs, sr.Event)
	}
	return evs
}

// isRemoteInvocation is what a compatibility layer plugs into the seam.
func isRemoteInvocation(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
	for _, p := range ev.Artifact.Parts {
		if p != nil && p.Metadata["_remote_invocation"] != nil {
			return envelope.Reading{}, true
		}
	}
	return envelope.Reading{}, false
}

// TestDisciplineProgressArtifactsNeverInOutcome replays the seed's A2A
// stream: with the seam, the two projection frames are progress and the
// interrupt is clean; without it they would pollute the artifacts — the
// seam is what keeps them out. Either way the phase strings in them never
// change the state.
func TestDisciplineProgressArtifactsNeverInOutcome(t *testing.T) {
	wantItems := []schema.InterruptItem{{ToolCallID: "call_00_32BxucUtBW0bBQZE9mz32638", ToolName: "expense-review", Message: seedQuestion}}
	tests := []struct {
		name          string
		opts          []Option
		wantArtifacts []a2a.ArtifactID
		wantCounters  EventCounts
	}{
		{"with the seam", []Option{WithArtifactProgress(isRemoteInvocation)}, nil,
			EventCounts{Events: 4, ProgressArtifacts: 4}},
		{"without the seam the frames pollute", nil, []a2a.ArtifactID{"620157e7", "20c478f2"},
			EventCounts{Events: 4, ProgressArtifacts: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(tt.opts...)
			evs := decodeEvents(t, seedRunning, seedInputRequiredFrame, seedInterrupt)
			// A resubscription snapshot of the runtime's task store holds
			// the projection artifacts too.
			snap := &a2a.Task{ID: "3836f437", ContextID: "0af383b5", Status: evs[2].(*a2a.TaskStatusUpdateEvent).Status,
				Artifacts: []*a2a.Artifact{evs[0].(*a2a.TaskArtifactUpdateEvent).Artifact, evs[1].(*a2a.TaskArtifactUpdateEvent).Artifact}}
			observeAll(tr, append(evs, snap)...)
			got, err := tr.Outcome()
			if err != nil {
				t.Fatalf("Outcome error = %v, want nil (interrupted)", err)
			}
			var ids []a2a.ArtifactID
			for _, a := range got.Artifacts {
				ids = append(ids, a.ID)
			}
			if diff := cmp.Diff(tt.wantArtifacts, ids); diff != "" {
				t.Errorf("artifact ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(a2a.TaskStateInputRequired, got.State); diff != "" {
				t.Errorf("State (-want +got):\n%s", diff)
			}
			if got.Interrupt == nil {
				t.Fatal("Interrupt = nil")
			}
			if diff := cmp.Diff(wantItems, got.Interrupt.Items); diff != "" {
				t.Errorf("Interrupt.Items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(seedQuestion, got.Interrupt.Question); diff != "" {
				t.Errorf("Interrupt.Question (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCounters, tr.EventCounts()); diff != "" {
				t.Errorf("EventCounts (-want +got):\n%s", diff)
			}
		})
	}
}
