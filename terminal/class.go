package terminal

import (
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/schema"
)

// class is what a task state means for the turn that observed it.
//
// Its zero value is classInProgress, so an unknown state never reads as an
// outcome.
type class int

// The classes of task states (PROTOCOL.md §3.1).
const (
	// classInProgress: submitted, working, unspecified or any state this
	// package does not know. Progress only; the turn has not ended.
	classInProgress class = iota
	// classInterrupted: input-required or auth-required. The turn has ended
	// and the caller can respond on the same task; the task is not over.
	classInterrupted
	// classTerminal: completed, failed, canceled or rejected. The task is
	// over and its state never changes again.
	classTerminal
)

// String returns "in-progress", "interrupted" or "terminal" (or "class(n)"
// for a value outside the three).
func (c class) String() string {
	switch c {
	case classInProgress:
		return "in-progress"
	case classInterrupted:
		return "interrupted"
	case classTerminal:
		return "terminal"
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// classify returns the class of s. It knows the A2A 1.0 names
// (TASK_STATE_WORKING, …) and, for events built from raw v0.3 JSON without
// a2a-go's conversion, the v0.3 names (working, input-required, …). Every
// other value — "", the unspecified state, v0.3 "unknown", a typo — is
// classInProgress: an unknown state can never end a turn.
//
// The verdict comes from the one state → verdict table, [schema.VerdictOf].
func classify(s a2a.TaskState) class {
	switch schema.VerdictOf(string(canonical(s))) {
	case schema.VerdictCompleted, schema.VerdictFailed, schema.VerdictCanceled, schema.VerdictRejected:
		return classTerminal
	case schema.VerdictInputRequired, schema.VerdictAuthRequired:
		return classInterrupted
	}
	return classInProgress
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
