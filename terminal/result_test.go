package terminal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/schema"
)

// Outcome.Result is the library's JSON form of the verdict: one verdict
// per settled state, the reply only for completed, the callee's reason for
// a failure, the question for an interrupt, and for anything else
// incomplete with the error.
func TestOutcomeResult(t *testing.T) {
	msg := func(text string) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text)) }
	art := &a2a.Artifact{ID: "a1", Name: "report", Parts: []*a2a.Part{a2a.NewTextPart("line 1"), a2a.NewDataPart(map[string]any{"k": 1.0}), a2a.NewTextPart("line 2")}}
	tests := []struct {
		name string
		out  Outcome
		want schema.Result
	}{
		{
			name: "completed",
			out: Outcome{ContextID: "c1", State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted, Message: msg("42"), Reply: "42",
				Artifacts: []*a2a.Artifact{art}, Truncated: true},
			want: schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "42", Context: "c1",
				Artifacts: []schema.Artifact{{ID: "a1", Name: "report", Text: "line 1\nline 2"}}, ArtifactsTruncated: true},
		},
		{
			name: "failed: the reason, never a reply",
			out: Outcome{State: a2a.TaskStateFailed, Verdict: schema.VerdictFailed, Message: msg("quota"), Reason: "quota",
				Err: &VerdictError{State: a2a.TaskStateFailed, Reason: "quota"}},
			want: schema.Result{State: "TASK_STATE_FAILED", Verdict: schema.VerdictFailed, Error: "quota"},
		},
		{
			name: "rejected without a reason",
			out:  Outcome{State: a2a.TaskStateRejected, Verdict: schema.VerdictRejected, Err: &VerdictError{State: a2a.TaskStateRejected}},
			want: schema.Result{State: "TASK_STATE_REJECTED", Verdict: schema.VerdictRejected},
		},
		{
			name: "canceled",
			out: Outcome{State: a2a.TaskStateCanceled, Verdict: schema.VerdictCanceled, Reason: "by user",
				Err: &VerdictError{State: a2a.TaskStateCanceled, Reason: "by user"}},
			want: schema.Result{State: "TASK_STATE_CANCELED", Verdict: schema.VerdictCanceled, Error: "by user"},
		},
		{
			name: "input required: the structured question and its items",
			out: Outcome{State: a2a.TaskStateInputRequired, Verdict: schema.VerdictInputRequired,
				Interrupt: &schema.Interrupt{Question: "Approve?",
					Items: []schema.InterruptItem{{ToolCallID: "call-9", ToolName: "expense-review", Message: "Approve?"}}}},
			want: schema.Result{State: "TASK_STATE_INPUT_REQUIRED", Verdict: schema.VerdictInputRequired,
				Interrupt: &schema.Interrupt{Question: "Approve?", Items: []schema.InterruptItem{{ToolCallID: "call-9", ToolName: "expense-review", Message: "Approve?"}}}},
		},
		{
			name: "auth required: the status text is the question",
			out: Outcome{State: a2a.TaskStateAuthRequired, Verdict: schema.VerdictAuthRequired,
				Interrupt: &schema.Interrupt{Question: "log in"}},
			want: schema.Result{State: "TASK_STATE_AUTH_REQUIRED", Verdict: schema.VerdictAuthRequired, Interrupt: &schema.Interrupt{Question: "log in"}},
		},
		{
			name: "a cut is incomplete, with its error",
			out: Outcome{State: a2a.TaskStateWorking, Verdict: schema.VerdictIncomplete,
				Err: &CutError{TaskID: "t1", LastState: a2a.TaskStateWorking}},
			want: schema.Result{State: "TASK_STATE_WORKING", Verdict: schema.VerdictIncomplete,
				Error: `terminal: stream ended before the turn settled (task "t1", last state TASK_STATE_WORKING)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.out.Result()
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Result (-want +got):\n%s", d)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// Cut is internal/textcut's cut (its cases are tested there).
func TestCut(t *testing.T) {
	if diff := cmp.Diff("éé… [cut: 10 bytes in all, 4 shown]", Cut("ééééé", 5)); diff != "" {
		t.Errorf("Cut (-want +got):\n%s", diff)
	}
}

// A result op stays small whatever the peer sent: its reason, question,
// items and names are cut.
func TestResultCutsPeerStrings(t *testing.T) {
	huge := strings.Repeat("x", 9<<20)
	o := Outcome{State: a2a.TaskStateInputRequired,
		Interrupt: &schema.Interrupt{Question: huge, Items: []schema.InterruptItem{{ToolCallID: huge, ToolName: huge, Message: huge}}},
		Artifacts: []*a2a.Artifact{{ID: a2a.ArtifactID(huge), Name: huge}}}
	r := o.Result()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 4*MaxMessageBytes {
		t.Errorf("the result is %d bytes, want at most %d", len(b), 4*MaxMessageBytes)
	}
	if want := Cut(huge, MaxMessageBytes); r.Interrupt.Question != want {
		t.Errorf("question %q…, want %q…", r.Interrupt.Question[:20], want[:20])
	}
}
