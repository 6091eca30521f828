package terminal

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/envelope"

	"github.com/tfrs/a2a-progress/schema"
)

// outcomeOpts compares Outcome.Err by errors.Is against the wanted sentinel.
var outcomeOpts = cmp.Options{cmpopts.EquateErrors()}

// TestOutcomePerState ends one ordinary turn (submitted snapshot, working,
// an artifact) in each state and checks the whole Outcome.
func TestOutcomePerState(t *testing.T) {
	final := agentMsg("final words")
	arts := []*a2a.Artifact{art("a1", "report")}
	tests := []struct {
		name    string
		state   a2a.TaskState
		want    Outcome
		wantErr error
	}{
		{"completed", a2a.TaskStateCompleted, Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted,
			Verdict: schema.VerdictCompleted, Message: final, Reply: "final words", Artifacts: arts}, nil},
		{"failed", a2a.TaskStateFailed, Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateFailed,
			Verdict: schema.VerdictFailed, Message: final, Reason: "final words", Artifacts: arts, Err: ErrFailed}, ErrFailed},
		{"rejected", a2a.TaskStateRejected, Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateRejected,
			Verdict: schema.VerdictRejected, Message: final, Reason: "final words", Artifacts: arts, Err: ErrRejected}, ErrRejected},
		{"canceled", a2a.TaskStateCanceled, Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCanceled,
			Verdict: schema.VerdictCanceled, Message: final, Reason: "final words", Artifacts: arts, Err: ErrCanceled}, ErrCanceled},
		{"input-required", a2a.TaskStateInputRequired, Outcome{TaskID: taskID, ContextID: ctxID,
			State: a2a.TaskStateInputRequired, Verdict: schema.VerdictInputRequired, Message: final, Artifacts: arts,
			Interrupt: &schema.Interrupt{Question: "final words"}}, nil},
		{"auth-required", a2a.TaskStateAuthRequired, Outcome{TaskID: taskID, ContextID: ctxID,
			State: a2a.TaskStateAuthRequired, Verdict: schema.VerdictAuthRequired, Message: final, Artifacts: arts,
			Interrupt: &schema.Interrupt{Question: "final words"}}, nil},
		{"working is a cut", a2a.TaskStateWorking, Outcome{TaskID: taskID, ContextID: ctxID,
			State: a2a.TaskStateWorking, Verdict: schema.VerdictIncomplete, Err: ErrCut}, ErrCut},
		{"submitted is a cut", a2a.TaskStateSubmitted, Outcome{TaskID: taskID, ContextID: ctxID,
			State: a2a.TaskStateSubmitted, Verdict: schema.VerdictIncomplete, Err: ErrCut}, ErrCut},
		{"unspecified is a cut", a2a.TaskStateUnspecified, Outcome{TaskID: taskID, ContextID: ctxID,
			State: a2a.TaskStateUnspecified, Verdict: schema.VerdictIncomplete, Err: ErrCut}, ErrCut},
		{"unknown state is a cut", "TASK_STATE_PAUSED", Outcome{TaskID: taskID, ContextID: ctxID,
			State: "TASK_STATE_PAUSED", Verdict: schema.VerdictIncomplete, Err: ErrCut}, ErrCut},
		{"v0.3 completed is canonical", "completed", Outcome{TaskID: taskID, ContextID: ctxID,
			State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted, Message: final, Reply: "final words", Artifacts: arts}, nil},
		{"v0.3 input-required is canonical", "input-required", Outcome{TaskID: taskID, ContextID: ctxID,
			State: a2a.TaskStateInputRequired, Verdict: schema.VerdictInputRequired, Message: final, Artifacts: arts,
			Interrupt: &schema.Interrupt{Question: "final words"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			observeAll(tr,
				snapshot(a2a.TaskStateSubmitted, nil),
				statusText(a2a.TaskStateWorking, "thinking"),
				artifact("a1", false, true, "report"),
				status(tt.state, final),
			)
			got, err := tr.Outcome()
			if diff := cmp.Diff(tt.want, got, outcomeOpts); diff != "" {
				t.Errorf("Outcome (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Outcome error = %v, want errors.Is %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want.Err, got.Err, outcomeOpts); diff != "" {
				t.Errorf("Outcome.Err differs from the returned error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerdictCarriesReason checks the fields of the verdict error: the
// state and the status message text as reason.
func TestVerdictCarriesReason(t *testing.T) {
	tests := []struct {
		name string
		ev   a2a.Event
		want VerdictError
	}{
		{"failed with two text parts", status(a2a.TaskStateFailed, agentMsg("tool crashed", "retry later")),
			VerdictError{TaskID: taskID, State: a2a.TaskStateFailed, Reason: "tool crashed\nretry later",
				Message: agentMsg("tool crashed", "retry later")}},
		{"rejected without a message", status(a2a.TaskStateRejected, nil),
			VerdictError{TaskID: taskID, State: a2a.TaskStateRejected}},
		{"canceled by snapshot", snapshot(a2a.TaskStateCanceled, agentMsg("user stopped it")),
			VerdictError{TaskID: taskID, State: a2a.TaskStateCanceled, Reason: "user stopped it",
				Message: agentMsg("user stopped it")}},
		{"reason skips non-text parts", status(a2a.TaskStateFailed, &a2a.Message{ID: "m", Role: a2a.MessageRoleAgent,
			Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"code": 7.0}), a2a.NewTextPart("out of memory"), nil}}),
			VerdictError{TaskID: taskID, State: a2a.TaskStateFailed, Reason: "out of memory",
				Message: &a2a.Message{ID: "m", Role: a2a.MessageRoleAgent,
					Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"code": 7.0}), a2a.NewTextPart("out of memory"), nil}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			tr.Observe(tt.ev)
			_, err := tr.Outcome()
			var ve *VerdictError
			if !errors.As(err, &ve) {
				t.Fatalf("Outcome error = %v (%T), want a *VerdictError", err, err)
			}
			if diff := cmp.Diff(tt.want, *ve); diff != "" {
				t.Errorf("VerdictError (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOutcomeByEventOrder runs whole turns, in the orders a caller meets,
// and checks the Outcome and the counters.
func TestOutcomeByEventOrder(t *testing.T) {
	done := agentMsg("done")
	tests := []struct {
		name         string
		events       []a2a.Event
		want         Outcome
		wantCounters EventCounts
	}{
		{
			name:   "no events is a cut",
			want:   Outcome{Verdict: schema.VerdictIncomplete, Err: ErrCut},
			events: nil,
		},
		{
			name: "direct Message reply is completed",
			events: []a2a.Event{&a2a.Message{ID: "r", Role: a2a.MessageRoleAgent, ContextID: ctxID,
				Parts: a2a.ContentParts{a2a.NewTextPart("hello")}}},
			want: Outcome{ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: &a2a.Message{ID: "r", Role: a2a.MessageRoleAgent, ContextID: ctxID,
					Parts: a2a.ContentParts{a2a.NewTextPart("hello")}}, Reply: "hello"},
			wantCounters: EventCounts{Events: 1},
		},
		{
			name: "submitted, working, artifact chunks, completed",
			events: []a2a.Event{snapshot(a2a.TaskStateSubmitted, nil), statusText(a2a.TaskStateWorking, "step 1"),
				artifact("a1", false, false, "Hel"), artifact("a1", true, true, "lo"), status(a2a.TaskStateCompleted, done)},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done", Artifacts: []*a2a.Artifact{art("a1", "Hel", "lo")}},
			wantCounters: EventCounts{Events: 5},
		},
		{
			name:         "working then end is a cut, not a success",
			events:       []a2a.Event{snapshot(a2a.TaskStateSubmitted, nil), statusText(a2a.TaskStateWorking, "almost done"), artifact("a1", false, false, "partial")},
			want:         Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateWorking, Verdict: schema.VerdictIncomplete, Err: ErrCut},
			wantCounters: EventCounts{Events: 3},
		},
		{
			name:   "GetTask snapshot alone decides",
			events: []a2a.Event{snapshot(a2a.TaskStateCompleted, done, art("a1", "full report"))},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done", Artifacts: []*a2a.Artifact{art("a1", "full report")}},
			wantCounters: EventCounts{Events: 1},
		},
		{
			name: "cut, then resubscription snapshot and completion",
			events: []a2a.Event{statusText(a2a.TaskStateWorking, "w"), artifact("a1", false, false, "stale"),
				snapshot(a2a.TaskStateWorking, agentMsg("w2"), art("a1", "fresh")), artifact("a1", true, true, "+more"),
				status(a2a.TaskStateCompleted, done)},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done", Artifacts: []*a2a.Artifact{art("a1", "fresh", "+more")}},
			wantCounters: EventCounts{Events: 5},
		},
		{
			name:   "completed then failed: first wins, conflict counted",
			events: []a2a.Event{status(a2a.TaskStateCompleted, done), statusText(a2a.TaskStateFailed, "late failure")},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done"},
			wantCounters: EventCounts{Events: 2, IgnoredAfterSettle: 1, Conflicts: 1},
		},
		{
			name:   "failed then completed: first wins, conflict counted",
			events: []a2a.Event{statusText(a2a.TaskStateFailed, "boom"), snapshot(a2a.TaskStateCompleted, done, art("a1", "x"))},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateFailed, Verdict: schema.VerdictFailed,
				Message: agentMsg("boom"), Reason: "boom", Err: ErrFailed},
			wantCounters: EventCounts{Events: 2, IgnoredAfterSettle: 1, Conflicts: 1},
		},
		{
			name:   "same terminal state twice is not a conflict",
			events: []a2a.Event{status(a2a.TaskStateCompleted, done), snapshot(a2a.TaskStateCompleted, done)},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done"},
			wantCounters: EventCounts{Events: 2, IgnoredAfterSettle: 1},
		},
		{
			name: "artifacts after completed are ignored",
			events: []a2a.Event{artifact("a1", false, true, "answer"), status(a2a.TaskStateCompleted, done),
				artifact("a1", true, false, "junk"), artifact("a2", false, false, "junk")},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done", Artifacts: []*a2a.Artifact{art("a1", "answer")}},
			wantCounters: EventCounts{Events: 4, IgnoredAfterSettle: 2},
		},
		{
			name:         "input-required then working: superseded, then cut",
			events:       []a2a.Event{statusText(a2a.TaskStateInputRequired, "approve?"), statusText(a2a.TaskStateWorking, "resumed")},
			want:         Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateWorking, Verdict: schema.VerdictIncomplete, Err: ErrCut},
			wantCounters: EventCounts{Events: 2, Resumed: 1},
		},
		{
			name: "input-required, answered, completed",
			events: []a2a.Event{statusText(a2a.TaskStateInputRequired, "approve?"), statusText(a2a.TaskStateWorking, "resumed"),
				status(a2a.TaskStateCompleted, done)},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done"},
			wantCounters: EventCounts{Events: 3, Resumed: 1},
		},
		{
			name:   "input-required then canceled",
			events: []a2a.Event{statusText(a2a.TaskStateInputRequired, "approve?"), statusText(a2a.TaskStateCanceled, "timed out")},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCanceled, Verdict: schema.VerdictCanceled,
				Message: agentMsg("timed out"), Reason: "timed out", Err: ErrCanceled},
			wantCounters: EventCounts{Events: 2, Resumed: 1},
		},
		{
			name:   "auth-required repeated is not a resumption",
			events: []a2a.Event{statusText(a2a.TaskStateAuthRequired, "log in"), snapshot(a2a.TaskStateAuthRequired, agentMsg("log in"))},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateAuthRequired, Verdict: schema.VerdictAuthRequired,
				Message: agentMsg("log in"), Interrupt: &schema.Interrupt{Question: "log in"}},
			wantCounters: EventCounts{Events: 2},
		},
		{
			name:         "Message after a task is stray",
			events:       []a2a.Event{statusText(a2a.TaskStateWorking, "w"), agentMsg("I am done (not really)")},
			want:         Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateWorking, Verdict: schema.VerdictIncomplete, Err: ErrCut},
			wantCounters: EventCounts{Events: 2, StrayMessages: 1},
		},
		{
			name: "events of another task are ignored",
			events: []a2a.Event{statusText(a2a.TaskStateWorking, "w"),
				&a2a.TaskStatusUpdateEvent{TaskID: "other", ContextID: ctxID, Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}},
				&a2a.TaskArtifactUpdateEvent{TaskID: "other", Artifact: art("x", "other's")},
				statusText(a2a.TaskStateFailed, "real verdict")},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateFailed, Verdict: schema.VerdictFailed,
				Message: agentMsg("real verdict"), Reason: "real verdict", Err: ErrFailed},
			wantCounters: EventCounts{Events: 4, OtherTask: 2},
		},
		{
			name: "nil events are invalid and ignored",
			events: []a2a.Event{nil, (*a2a.TaskStatusUpdateEvent)(nil), (*a2a.Task)(nil), (*a2a.Message)(nil),
				(*a2a.TaskArtifactUpdateEvent)(nil), &a2a.TaskArtifactUpdateEvent{TaskID: taskID}, status(a2a.TaskStateCompleted, done)},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Message: done, Reply: "done"},
			wantCounters: EventCounts{Events: 7, Invalid: 6},
		},
		{
			name:   "completed without a status message keeps the artifacts",
			events: []a2a.Event{artifact("a1", false, true, "answer"), status(a2a.TaskStateCompleted, nil)},
			want: Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
				Artifacts: []*a2a.Artifact{art("a1", "answer")}},
			wantCounters: EventCounts{Events: 2},
		},
		{
			name:         "working message is not the reply",
			events:       []a2a.Event{statusText(a2a.TaskStateWorking, "interim text"), status(a2a.TaskStateCompleted, nil)},
			want:         Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted},
			wantCounters: EventCounts{Events: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			observeAll(tr, tt.events...)
			got, err := tr.Outcome()
			if diff := cmp.Diff(tt.want, got, outcomeOpts); diff != "" {
				t.Errorf("Outcome (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want.Err, err, outcomeOpts); diff != "" {
				t.Errorf("Outcome error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCounters, tr.EventCounts()); diff != "" {
				t.Errorf("EventCounts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObservations checks what each Observe call reports.
func TestObservations(t *testing.T) {
	// The seam's reading names the artifact, so that the test sees which
	// reading came back with which event.
	isProgress := func(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
		return envelope.Reading{ID: "read:" + string(ev.Artifact.ID)}, strings.HasPrefix(string(ev.Artifact.ID), "progress")
	}
	live := artifact("progress", false, false, "RUNNING")
	p1, p2 := art("progress-1", "RUNNING"), art("progress-2", "DONE")
	wrap := func(a *a2a.Artifact) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{TaskID: taskID, ContextID: ctxID, Artifact: a}
	}
	tests := []struct {
		name   string
		events []a2a.Event
		want   []Observation
	}{
		{
			name: "a plain turn",
			events: []a2a.Event{snapshot(a2a.TaskStateSubmitted, nil), statusText(a2a.TaskStateWorking, "w"),
				artifact("a", false, false, "x"), live, status(a2a.TaskStateCompleted, nil)},
			want: []Observation{
				{State: a2a.TaskStateSubmitted},
				{State: a2a.TaskStateWorking},
				{State: a2a.TaskStateWorking},
				{State: a2a.TaskStateWorking, Progress: true,
					Routed: []ProgressArtifact{{Event: live, Reading: envelope.Reading{ID: "read:progress"}}}},
				{State: a2a.TaskStateCompleted, Settled: true},
			},
		},
		{
			name:   "a snapshot's progress artifacts come back wrapped, in order",
			events: []a2a.Event{snapshot(a2a.TaskStateWorking, nil, p1, art("a", "x"), p2)},
			want: []Observation{
				{State: a2a.TaskStateWorking, Routed: []ProgressArtifact{
					{Event: wrap(p1), Reading: envelope.Reading{ID: "read:progress-1"}},
					{Event: wrap(p2), Reading: envelope.Reading{ID: "read:progress-2"}}}},
			},
		},
		{
			name: "after a terminal state",
			events: []a2a.Event{statusText(a2a.TaskStateCanceled, "stop"), statusText(a2a.TaskStateCanceled, "stop"),
				statusText(a2a.TaskStateCompleted, "ok"), artifact("progress", false, false, "RUNNING")},
			want: []Observation{
				{State: a2a.TaskStateCanceled, Settled: true},
				{State: a2a.TaskStateCanceled, Settled: true, Ignored: true},
				{State: a2a.TaskStateCanceled, Settled: true, Ignored: true, Conflict: true},
				{State: a2a.TaskStateCanceled, Settled: true, Ignored: true},
			},
		},
		{
			name: "an interrupt settles, a later state unsettles",
			events: []a2a.Event{statusText(a2a.TaskStateInputRequired, "?"), statusText(a2a.TaskStateWorking, "w"),
				nil, statusText(a2a.TaskStateRejected, "no")},
			want: []Observation{
				{State: a2a.TaskStateInputRequired, Settled: true},
				{State: a2a.TaskStateWorking},
				{State: a2a.TaskStateWorking, Ignored: true},
				{State: a2a.TaskStateRejected, Settled: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(WithArtifactProgress(isProgress))
			got := observeAll(tr, tt.events...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Observations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrackerAccessors(t *testing.T) {
	tests := []struct {
		name        string
		events      []a2a.Event
		wantState   a2a.TaskState
		wantSettled bool
	}{
		{"new tracker", nil, a2a.TaskStateUnspecified, false},
		{"working", []a2a.Event{statusText(a2a.TaskStateWorking, "w")}, a2a.TaskStateWorking, false},
		{"interrupted", []a2a.Event{statusText(a2a.TaskStateAuthRequired, "w")}, a2a.TaskStateAuthRequired, true},
		{"terminal", []a2a.Event{statusText(a2a.TaskStateRejected, "w")}, a2a.TaskStateRejected, true},
		{"v0.3 name stored canonical", []a2a.Event{statusText("failed", "w")}, a2a.TaskStateFailed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			observeAll(tr, tt.events...)
			if diff := cmp.Diff(tt.wantState, tr.currentState()); diff != "" {
				t.Errorf("State (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSettled, tr.isSettled()); diff != "" {
				t.Errorf("Settled (-want +got):\n%s", diff)
			}
		})
	}
}
