package client

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/idle"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/internal/transport"
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

// errRetryWindow is the cause of a call ended by the retry window's
// deadline (WithRetryFor).
var errRetryWindow = errors.New("retry window (WithRetryFor) spent")

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

// ErrResponseTooLarge is matched (errors.Is) by the error of a call whose
// response was longer than the 64 MiB a non-streaming response may have. The
// turn asks GetTask for less history on its next attempt, or gives up.
var ErrResponseTooLarge = transport.ErrResponseTooLarge

// ErrEventTooLarge is matched (errors.Is) by the error of a stream one of
// whose events was longer than 10 MiB (all its lines together), on every
// path: the HTTP transports' reader,
// gRPC (a stream message over the bound), recordings (a2a-tail replay)
// and v1query. It is the error of the repository's one SSE framer,
// internal/ssewire.
var ErrEventTooLarge = ssewire.ErrEventTooLarge

// A task that does not exist is reported as [a2a.ErrTaskNotFound], not as
// an incomplete turn: following or polling it can never settle, and a
// caller (the CLI's exit code) must be able to tell a wrong id from a cut.
// a2a-go maps the usual responses itself: JSON-RPC error -32001 (both
// protocol versions), gRPC NotFound, and a REST 404 whose body is a
// google.rpc.Status with the TASK_NOT_FOUND reason. A REST server that
// responds 404 with another body (the JS SDK's {code, message}, plain text)
// leaves a2a-go with nothing but ErrServerError, ErrInternalError or
// ErrParseError — the 404 that says it all is dropped — so the HTTP
// transport records the status of task calls (internal/transport), and
// transport.TaskCallErr puts the meaning back.

// taskGone is the error of a stream whose task the agent does not know
// (err matches a2a.ErrTaskNotFound). When nothing of the task was ever
// seen — a wrong id, a task the agent has forgotten — that is all there is
// to say. When the stream had seen it, the turn was under way and is
// incomplete (the *IncompleteError still matches a2a.ErrTaskNotFound).
func (s *Stream) taskGone(err error) error {
	if s.state == a2a.TaskStateUnspecified {
		return fmt.Errorf("client: task %q: %w", s.TaskID(), err)
	}
	return &IncompleteError{TaskID: s.TaskID(), State: s.state, Attempts: s.attempts, Err: err}
}
