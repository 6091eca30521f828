package terminal

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		state a2a.TaskState
		want  Class
	}{
		{"submitted", a2a.TaskStateSubmitted, ClassInProgress},
		{"working", a2a.TaskStateWorking, ClassInProgress},
		{"unspecified", a2a.TaskStateUnspecified, ClassInProgress},
		{"unspecified wire name", unspecifiedName, ClassInProgress},
		{"v0.3 unknown", "unknown", ClassInProgress},
		{"unknown string", "TASK_STATE_SOMETHING_NEW", ClassInProgress},
		{"wrong case is unknown", "Completed", ClassInProgress},
		{"input-required", a2a.TaskStateInputRequired, ClassInterrupted},
		{"auth-required", a2a.TaskStateAuthRequired, ClassInterrupted},
		{"completed", a2a.TaskStateCompleted, ClassTerminal},
		{"failed", a2a.TaskStateFailed, ClassTerminal},
		{"canceled", a2a.TaskStateCanceled, ClassTerminal},
		{"rejected", a2a.TaskStateRejected, ClassTerminal},
		{"v0.3 submitted", "submitted", ClassInProgress},
		{"v0.3 working", "working", ClassInProgress},
		{"v0.3 input-required", "input-required", ClassInterrupted},
		{"v0.3 auth-required", "auth-required", ClassInterrupted},
		{"v0.3 completed", "completed", ClassTerminal},
		{"v0.3 failed", "failed", ClassTerminal},
		{"v0.3 canceled", "canceled", ClassTerminal},
		{"v0.3 rejected", "rejected", ClassTerminal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, classify(tt.state)); diff != "" {
				t.Errorf("classify(%q) (-want +got):\n%s", tt.state, diff)
			}
		})
	}
}

// classify must agree with a2a-go on what is terminal, so that a caller
// mixing TaskState.Terminal and this package never disagrees with itself.
func TestClassifyAgreesWithA2AGo(t *testing.T) {
	for _, s := range []a2a.TaskState{a2a.TaskStateUnspecified, a2a.TaskStateSubmitted, a2a.TaskStateWorking,
		a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateCanceled, a2a.TaskStateRejected} {
		t.Run(s.String(), func(t *testing.T) {
			if diff := cmp.Diff(s.Terminal(), classify(s) == ClassTerminal); diff != "" {
				t.Errorf("(-a2a.Terminal +classify):\n%s", diff)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name string
		in   a2a.TaskState
		want a2a.TaskState
	}{
		{"v1 unchanged", a2a.TaskStateWorking, a2a.TaskStateWorking},
		{"v0.3 submitted", "submitted", a2a.TaskStateSubmitted},
		{"v0.3 working", "working", a2a.TaskStateWorking},
		{"v0.3 input-required", "input-required", a2a.TaskStateInputRequired},
		{"v0.3 auth-required", "auth-required", a2a.TaskStateAuthRequired},
		{"v0.3 completed", "completed", a2a.TaskStateCompleted},
		{"v0.3 failed", "failed", a2a.TaskStateFailed},
		{"v0.3 canceled", "canceled", a2a.TaskStateCanceled},
		{"v0.3 rejected", "rejected", a2a.TaskStateRejected},
		{"v0.3 unknown", "unknown", a2a.TaskStateUnspecified},
		{"unspecified wire name", unspecifiedName, a2a.TaskStateUnspecified},
		{"foreign unchanged", "TASK_STATE_PAUSED", "TASK_STATE_PAUSED"},
		{"wrong case unchanged", "Working", "Working"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, canonical(tt.in)); diff != "" {
				t.Errorf("canonical(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestClassString(t *testing.T) {
	tests := []struct {
		name string
		c    Class
		want string
	}{
		{"in progress", ClassInProgress, "in-progress"},
		{"interrupted", ClassInterrupted, "interrupted"},
		{"terminal", ClassTerminal, "terminal"},
		{"out of range", Class(7), "Class(7)"},
		{"zero value", Class(0), "in-progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.c.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
