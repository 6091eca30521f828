package terminal

import (
	"errors"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Sentinels for errors.Is. A [*VerdictError] matches the sentinel of its
// state; a [*CutError] matches [ErrCut].
var (
	// ErrFailed: the task ended in TASK_STATE_FAILED. A rejected task
	// matches it too, because the spec treats rejected like failed; test
	// [ErrRejected] first to tell them apart.
	ErrFailed = errors.New("terminal: task failed")
	// ErrRejected: the task ended in TASK_STATE_REJECTED (the agent refused
	// it without starting it).
	ErrRejected = errors.New("terminal: task rejected")
	// ErrCanceled: the task ended in TASK_STATE_CANCELED. It does not match
	// ErrFailed.
	ErrCanceled = errors.New("terminal: task canceled")
	// ErrCut: the events ended while the last state was in progress. This is
	// not an outcome of the task — the task may still be running or may
	// already be over — so the caller resubscribes (SubscribeToTask) or
	// asks GetTask, and reports "incomplete" only when that fails too.
	ErrCut = errors.New("terminal: stream ended before the turn settled")
)

// VerdictError is the error of a task that ended in failed, rejected or
// canceled. It carries the verdict: the state, and the text of the final
// status message as the reason. It matches [ErrFailed], [ErrRejected] or
// [ErrCanceled] with errors.Is.
type VerdictError struct {
	// TaskID is the task's id ("" if no event carried one).
	TaskID a2a.TaskID
	// State is TASK_STATE_FAILED, TASK_STATE_REJECTED or TASK_STATE_CANCELED.
	State a2a.TaskState
	// Reason is the text parts of the final status message joined with
	// "\n"; "" when the callee gave none.
	Reason string
	// Message is the final status message, or nil. It is shared with the
	// event it came from: do not modify it.
	Message *a2a.Message
}

// Error implements error: `terminal: task "t-1" failed: quota exceeded`.
func (e *VerdictError) Error() string {
	s := "terminal: task "
	if e.TaskID != "" {
		s += strconv.Quote(string(e.TaskID)) + " "
	}
	s += verb(e.State)
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Is reports whether target is the sentinel of e's state (or ErrFailed for
// a rejected task).
func (e *VerdictError) Is(target error) bool {
	switch e.State {
	case a2a.TaskStateFailed:
		return target == ErrFailed
	case a2a.TaskStateRejected:
		return target == ErrRejected || target == ErrFailed
	case a2a.TaskStateCanceled:
		return target == ErrCanceled
	}
	return false
}

func verb(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateFailed:
		return "failed"
	case a2a.TaskStateRejected:
		return "rejected"
	case a2a.TaskStateCanceled:
		return "canceled"
	}
	return "ended in " + s.String()
}

// CutError says that the turn has no outcome yet: the events ended while
// the last state was in progress. It matches [ErrCut] with errors.Is, and
// whatever Cause matches (a transport error, io.ErrUnexpectedEOF, …).
//
// A cut is not final: the caller resumes and keeps observing with the
// same Tracker. The package client does that itself and reports only a
// cut it could not resolve, as its own, final, IncompleteError (with the
// attempts it made); a caller of client never sees a CutError.
type CutError struct {
	// TaskID is the task to resubscribe to or to ask GetTask about; "" when
	// no event carried one (nothing can be resumed).
	TaskID a2a.TaskID
	// LastState is the last state observed: submitted, working,
	// unspecified ("" when no state was observed at all).
	LastState a2a.TaskState
	// Events is how many events were observed in all.
	Events int
	// Cause is the error that ended the stream, or nil for a clean end.
	Cause error
}

// Error implements error:
// `terminal: stream ended before the turn settled (task "t-1", last state TASK_STATE_WORKING)`.
func (e *CutError) Error() string {
	s := ErrCut.Error() + " ("
	if e.TaskID != "" {
		s += "task " + strconv.Quote(string(e.TaskID)) + ", "
	}
	if e.LastState == a2a.TaskStateUnspecified && e.Events == 0 {
		s += "no events)"
	} else {
		s += "last state " + e.LastState.String() + ")"
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Is reports whether target is [ErrCut].
func (e *CutError) Is(target error) bool { return target == ErrCut }

// Unwrap returns Cause.
func (e *CutError) Unwrap() error { return e.Cause }
