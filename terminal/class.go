package terminal

import (
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/schema"
)

// Class is what a task state means for the turn that observed it.
//
// Its zero value is [ClassInProgress], so an unknown state never reads as an
// outcome.
type Class int

// The classes of task states (PROTOCOL.md §3.1).
const (
	// ClassInProgress: submitted, working, unspecified or any state this
	// package does not know. Progress only; the turn has not ended.
	ClassInProgress Class = iota
	// ClassInterrupted: input-required or auth-required. The turn has ended
	// and the caller can answer on the same task; the task is not over.
	ClassInterrupted
	// ClassTerminal: completed, failed, canceled or rejected. The task is
	// over and its state never changes again.
	ClassTerminal
)

// String returns "in-progress", "interrupted" or "terminal" (or "Class(n)"
// for a value outside the three).
func (c Class) String() string {
	switch c {
	case ClassInProgress:
		return "in-progress"
	case ClassInterrupted:
		return "interrupted"
	case ClassTerminal:
		return "terminal"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// classify returns the class of s. It knows the A2A 1.0 names
// (TASK_STATE_WORKING, …) and, for events built from raw v0.3 JSON without
// a2a-go's conversion, the v0.3 names (working, input-required, …). Every
// other value — "", the unspecified state, v0.3 "unknown", a typo — is
// [ClassInProgress]: an unknown state can never end a turn.
//
// The verdict comes from the one state → verdict table, [schema.VerdictOf].
func classify(s a2a.TaskState) Class {
	switch schema.VerdictOf(string(canonical(s))) {
	case schema.VerdictCompleted, schema.VerdictFailed, schema.VerdictCanceled, schema.VerdictRejected:
		return ClassTerminal
	case schema.VerdictInputRequired, schema.VerdictAuthRequired:
		return ClassInterrupted
	}
	return ClassInProgress
}

// canonical returns the A2A 1.0 constant for s: v0.3 names are mapped
// ("input-required" → TASK_STATE_INPUT_REQUIRED, "unknown" and
// the 1.0 wire name of the unspecified state → [a2a.TaskStateUnspecified],
// which is ""); every other value
// is returned unchanged. A [Tracker] stores and reports canonical states.
func canonical(s a2a.TaskState) a2a.TaskState {
	// a2a-go converts v0.3 events itself; the v0.3 names are for events
	// decoded by hand. A switch, not a map: canonical runs several times per
	// event, and a 1.0 name then costs no hashing.
	switch s {
	case "submitted":
		return a2a.TaskStateSubmitted
	case "working":
		return a2a.TaskStateWorking
	case "input-required":
		return a2a.TaskStateInputRequired
	case "auth-required":
		return a2a.TaskStateAuthRequired
	case "completed":
		return a2a.TaskStateCompleted
	case "failed":
		return a2a.TaskStateFailed
	case "canceled":
		return a2a.TaskStateCanceled
	case "rejected":
		return a2a.TaskStateRejected
	case "unknown":
		return a2a.TaskStateUnspecified
	}
	if s == unspecifiedName {
		return a2a.TaskStateUnspecified
	}
	return s
}

// unspecifiedName is the wire name of the unspecified state, which a2a-go
// decodes to a2a.TaskStateUnspecified ("") but an event decoded by hand may
// carry; a2a-go's String spells it.
var unspecifiedName = a2a.TaskState(a2a.TaskStateUnspecified.String())
