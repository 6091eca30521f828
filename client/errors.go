package client

import (
	"errors"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/idle"
)

// ErrIncomplete is matched (errors.Is) by the error of a stream whose turn
// could not be brought to an end: the events stopped before a terminal or
// interrupted state, and neither resubscribing nor GetTask could resolve
// the task. It is never a success, whatever progress was seen. The
// concrete error is an [*IncompleteError] carrying the last known state.
var ErrIncomplete = errors.New("client: turn incomplete")

// ErrStreamUsed is returned when a [Stream] is iterated a second time. A
// Stream is a single pass over one turn.
var ErrStreamUsed = errors.New("client: stream already consumed")

// ErrNotFinished is returned by [Stream.Outcome] before the stream's
// iteration has ended.
var ErrNotFinished = errors.New("client: stream not finished")

// errCleanClose is the cause of a cut where the server closed the stream
// cleanly before the turn settled (the silent cut of a2a-go: the event
// iterator just ends, without an error).
var errCleanClose = errors.New("stream closed before a terminal or interrupted state")

// errIdle is the cause of a cut where nothing arrived for the idle timeout.
var errIdle = idle.ErrIdle

// IncompleteError says that a turn ended without a verdict. It matches
// [ErrIncomplete] with errors.Is, and whatever Err matches (the last
// transport error, [a2a.ErrTaskNotFound], …).
//
// It is final, unlike the [terminal.CutError] of a bare Tracker: a cut
// says "the events stopped, resume", and a Stream does resume it itself
// (SubscribeToTask, GetTask) — the two types are the two moments of one
// concept. A Stream never returns a CutError; an IncompleteError is what
// is left when resuming could not bring a verdict.
type IncompleteError struct {
	// TaskID is the task the turn belongs to; "" when no event named one
	// (a send whose stream failed before the first event; for a message to
	// an existing task, that task).
	TaskID a2a.TaskID
	// State is the last state observed: submitted, working, or unspecified
	// ("") when no state was observed. Never a terminal state.
	State a2a.TaskState
	// Attempts is how many times the client tried to resume (subscriptions
	// and GetTask calls after the first cut).
	Attempts int
	// Err is the last cause: the transport error, the subscription's
	// refusal, or the reason the stream ended.
	Err error
	// MessageID and ContextID are set when a send failed before its first
	// event and the task it may have created could not be found: the
	// agent may be running it, and these find it (ListTasks by context,
	// the message in the task's history).
	MessageID string
	ContextID string
	// lookup is why the task was not found (ListTasks refused, or named
	// no task of the message).
	lookup error
}

// Error implements error:
// `client: turn incomplete (task "t-1", last state TASK_STATE_WORKING, 5 attempts): <cause>`.
func (e *IncompleteError) Error() string {
	s := ErrIncomplete.Error() + " ("
	if e.TaskID != "" {
		s += "task " + strconv.Quote(string(e.TaskID)) + ", "
	}
	s += "last state " + e.State.String() + ", " + strconv.Itoa(e.Attempts) + " attempt"
	if e.Attempts != 1 {
		s += "s"
	}
	s += ")"
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.TaskID == "" && e.MessageID != "" {
		s += "; the agent may have created a task for the message and be running it: find it by context id " +
			strconv.Quote(e.ContextID) + ", message id " + strconv.Quote(e.MessageID)
		if e.lookup != nil {
			s += " (not found: " + e.lookup.Error() + ")"
		}
	}
	return s
}

// Unwrap returns ErrIncomplete and the cause.
func (e *IncompleteError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrIncomplete}
	}
	return []error{ErrIncomplete, e.Err}
}
