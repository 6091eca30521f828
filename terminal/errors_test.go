package terminal

import (
	"errors"
	"io"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestVerdictErrorIs(t *testing.T) {
	sentinels := []error{ErrFailed, ErrRejected, ErrCanceled, ErrCut}
	tests := []struct {
		name  string
		state a2a.TaskState
		want  []bool // per sentinel, in the order above
	}{
		{"failed", a2a.TaskStateFailed, []bool{true, false, false, false}},
		{"rejected matches failed too", a2a.TaskStateRejected, []bool{true, true, false, false}},
		{"canceled is not failed", a2a.TaskStateCanceled, []bool{false, false, true, false}},
		{"other state matches nothing", a2a.TaskStateCompleted, []bool{false, false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error = &VerdictError{State: tt.state}
			var got []bool
			for _, s := range sentinels {
				got = append(got, errors.Is(err, s))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors.Is per [ErrFailed ErrRejected ErrCanceled ErrCut] (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"failed with reason", &VerdictError{TaskID: "t-1", State: a2a.TaskStateFailed, Reason: "quota exceeded"},
			`terminal: task "t-1" failed: quota exceeded`},
		{"rejected without reason", &VerdictError{TaskID: "t-1", State: a2a.TaskStateRejected},
			`terminal: task "t-1" rejected`},
		{"canceled without task id", &VerdictError{State: a2a.TaskStateCanceled}, `terminal: task canceled`},
		{"cut while working", &CutError{TaskID: "t-1", LastState: a2a.TaskStateWorking, Events: 3},
			`terminal: stream ended before the turn settled (task "t-1", last state TASK_STATE_WORKING)`},
		{"cut before any event", &CutError{},
			`terminal: stream ended before the turn settled (no events)`},
		{"cut with cause", &CutError{TaskID: "t-1", LastState: a2a.TaskStateSubmitted, Events: 1, Cause: io.ErrUnexpectedEOF},
			`terminal: stream ended before the turn settled (task "t-1", last state TASK_STATE_SUBMITTED): unexpected EOF`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCutErrorMatches(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"ErrCut", &CutError{}, ErrCut, true},
		{"cause", &CutError{Cause: io.ErrUnexpectedEOF}, io.ErrUnexpectedEOF, true},
		{"not failed", &CutError{}, ErrFailed, false},
		{"not canceled", &CutError{Cause: io.EOF}, ErrCanceled, false},
		{"wrapped again", errors.Join(errors.New("client"), &CutError{}), ErrCut, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, errors.Is(tt.err, tt.target)); diff != "" {
				t.Errorf("errors.Is(%v, %v) (-want +got):\n%s", tt.err, tt.target, diff)
			}
		})
	}
}
