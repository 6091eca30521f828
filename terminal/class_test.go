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
		want  class
	}{
		{"submitted", a2a.TaskStateSubmitted, classInProgress},
		{"working", a2a.TaskStateWorking, classInProgress},
		{"unspecified", a2a.TaskStateUnspecified, classInProgress},
		{"unspecified wire name", unspecifiedName, classInProgress},
		{"v0.3 unknown", "unknown", classInProgress},
		{"unknown string", "TASK_STATE_SOMETHING_NEW", classInProgress},
		{"wrong case is unknown", "Completed", classInProgress},
		{"input-required", a2a.TaskStateInputRequired, classInterrupted},
		{"auth-required", a2a.TaskStateAuthRequired, classInterrupted},
		{"completed", a2a.TaskStateCompleted, classTerminal},
		{"failed", a2a.TaskStateFailed, classTerminal},
		{"canceled", a2a.TaskStateCanceled, classTerminal},
		{"rejected", a2a.TaskStateRejected, classTerminal},
		{"v0.3 submitted", "submitted", classInProgress},
		{"v0.3 working", "working", classInProgress},
		{"v0.3 input-required", "input-required", classInterrupted},
		{"v0.3 auth-required", "auth-required", classInterrupted},
		{"v0.3 completed", "completed", classTerminal},
		{"v0.3 failed", "failed", classTerminal},
		{"v0.3 canceled", "canceled", classTerminal},
		{"v0.3 rejected", "rejected", classTerminal},
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
			if diff := cmp.Diff(s.Terminal(), classify(s) == classTerminal); diff != "" {
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
		c    class
		want string
	}{
		{"in progress", classInProgress, "in-progress"},
		{"interrupted", classInterrupted, "interrupted"},
		{"terminal", classTerminal, "terminal"},
		{"out of range", class(7), "class(7)"},
		{"zero value", class(0), "in-progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.c.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
