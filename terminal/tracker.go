package terminal

import (
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// Option configures a [Tracker].
type Option func(*Tracker)

// WithArtifactProgress installs the seam for peers that send progress in
// the artifact channel (PROTOCOL.md §5.1: the `_remote_invocation`
// frames). f is called for every artifact update observed before a
// terminal state, and for every artifact of a Task snapshot (wrapped in an
// update with the snapshot's task and context id). When f returns true the
// artifact is progress, not output: it never reaches [Outcome.Artifacts],
// [EventCounts.ProgressArtifacts] counts it, and the Observation of the event
// hands it back with f's reading of it ([Observation.Routed]), for the
// caller to merge. f must not modify the event. f is called with the
// Tracker's lock held: it must not call back into the Tracker. nil removes
// the seam. Its signature is that of client.WithArtifactProgress.
func WithArtifactProgress(f func(*a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool)) Option {
	return func(t *Tracker) { t.progress = f }
}

// WithLimits sets the memory limits for assembled artifacts; see [Limits].
func WithLimits(l Limits) Option {
	return func(t *Tracker) { t.arts.limits = l.withDefaults() }
}

// EventCounts are the tallies of a [Tracker], counted in events (a merge
// counts blocks: schema.Counters): what it observed, ignored,
// routed and dropped. They are meant for logs and metrics.
type EventCounts struct {
	// Events counts every call to Observe.
	Events int
	// IgnoredAfterSettle counts events observed after a terminal state
	// (the task is over; its state never changes again). An interrupted
	// state does not make later events ignored.
	IgnoredAfterSettle int
	// Conflicts counts events, after a terminal state, that carried a
	// different terminal state. The first terminal state stands. (Also
	// counted in IgnoredAfterSettle.)
	Conflicts int
	// ProgressArtifacts counts artifacts routed away by the
	// [WithArtifactProgress] seam (updates and snapshot artifacts).
	ProgressArtifacts int
	// OtherTask counts events ignored because they named a task other than
	// the one this Tracker follows (the first task id it saw).
	OtherTask int
	// StrayMessages counts Message events ignored because a task was
	// already observed: a Message is a reply only in a task-less exchange.
	StrayMessages int
	// Invalid counts events ignored because they were nil or had no
	// artifact.
	Invalid int
	// Resumed counts interrupted states superseded by a later state (the
	// caller responded on the same task, or a snapshot showed it running).
	Resumed int
	// OrphanAppends counts append updates for an artifact id never seen
	// before (the artifact is created from them).
	OrphanAppends int
	// AppendsAfterLastChunk counts append updates to an artifact whose
	// lastChunk was already seen (the parts are kept).
	AppendsAfterLastChunk int
	// ArtifactsDropped counts artifact updates not kept because
	// Limits.MaxArtifacts was reached, or because the artifact's own fields
	// (name, description, metadata, …) did not fit Limits.MaxBytes.
	ArtifactsDropped int
	// MetadataDropped counts append updates whose artifact metadata was not
	// merged because it did not fit Limits.MaxBytes (their parts are
	// judged on their own).
	MetadataDropped int
	// PartsDropped counts parts not kept because Limits.MaxParts or
	// Limits.MaxBytes was reached.
	PartsDropped int
	// MalformedInterrupts counts interrupted status messages whose
	// _interrupt metadata had a value of the wrong type somewhere (what was
	// usable was kept).
	MalformedInterrupts int
}

// Observation says what one event did to a [Tracker].
type Observation struct {
	// State is the tracker's state after the event, canonical: the A2A
	// 1.0 name, also for a v0.3 name ("input-required") in an event
	// decoded by hand; v0.3 "unknown" is the unspecified state.
	State a2a.TaskState
	// Settled reports that the turn has ended after the event: a terminal
	// or interrupted state.
	Settled bool
	// Ignored reports that the event changed nothing: it came after a
	// terminal state, named another task, was a stray Message, or was
	// invalid. See [EventCounts] for which.
	Ignored bool
	// Conflict reports an event after a terminal state carrying a
	// different terminal state (Ignored is set too).
	Conflict bool
	// Progress reports an artifact update routed away by the
	// [WithArtifactProgress] seam.
	Progress bool
	// Routed lists what the [WithArtifactProgress] seam routed away during
	// the event, in order: the artifact update itself (Progress is set),
	// or artifacts of a Task snapshot. nil when none.
	Routed []ProgressArtifact
}

// ProgressArtifact is an artifact that the [WithArtifactProgress] seam
// routed away, with the seam's reading of the progress it carries.
type ProgressArtifact struct {
	// Event is the artifact update; for an artifact of a Task snapshot, an
	// update wrapping it with the snapshot's task and context id. It is
	// shared with the observed event: do not modify it.
	Event *a2a.TaskArtifactUpdateEvent
	// Reading is what the seam read from it.
	Reading envelope.Reading
}

// Tracker follows the events of one turn of one task and decides its
// outcome. The zero value is not usable; call [NewTracker]. A Tracker is
// safe for concurrent use, though a stream is normally observed from one
// goroutine and read from another only for EventCounts.
type Tracker struct {
	mu       sync.Mutex
	progress func(*a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool)

	taskID    a2a.TaskID
	contextID string
	sawTask   bool // a Task, status or artifact update was observed
	state     a2a.TaskState
	msg       *a2a.Message // status message of state (or the direct reply)
	question  string       // _interrupt.message of an interrupted state
	items     []schema.InterruptItem
	arts      artifactSet
	c         EventCounts
}

// NewTracker returns a Tracker with no events observed: its state is
// unspecified, it is not settled, and Outcome reports a cut.
func NewTracker(opts ...Option) *Tracker {
	t := &Tracker{}
	t.arts.limits = Limits{}.withDefaults()
	for _, o := range opts {
		o(t)
	}
	return t
}

// Observe folds one event in and says what it did. It accepts the four
// event types of a2a-go streams: *a2a.Task (a snapshot, from a
// resubscription or GetTask), *a2a.TaskStatusUpdateEvent,
// *a2a.TaskArtifactUpdateEvent and *a2a.Message (a direct reply). It never
// fails: an event it cannot use is ignored and counted.
//
// The rules, in order:
//   - An event naming a task other than the first task id seen is ignored.
//   - After a terminal state every event is ignored; a different terminal
//     state is a conflict (the first stands).
//   - A status update or snapshot sets the state and its status message,
//     whatever the message says; a snapshot also replaces the artifacts.
//   - An interrupted state is superseded by any later state.
//   - A Message is a completed reply when no task was observed before it;
//     otherwise it is ignored.
func (t *Tracker) Observe(ev a2a.Event) Observation {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.c.Events++
	var o Observation
	o.Ignored = !t.observe(ev, &o)
	o.State = t.state
	o.Settled = classify(t.state) != classInProgress
	return o
}

// observe applies ev and reports whether it was used.
func (t *Tracker) observe(ev a2a.Event, o *Observation) bool {
	if isNil(ev) {
		t.c.Invalid++
		return false
	}
	info := ev.TaskInfo()
	if info.TaskID != "" && t.taskID != "" && info.TaskID != t.taskID {
		t.c.OtherTask++
		return false
	}
	if classify(t.state) == classTerminal {
		t.c.IgnoredAfterSettle++
		if s, ok := stateOf(ev); ok && classify(s) == classTerminal && canonical(s) != t.state {
			t.c.Conflicts++
			o.Conflict = true
		}
		return false
	}
	switch e := ev.(type) {
	case *a2a.Message:
		if t.sawTask {
			t.c.StrayMessages++
			return false
		}
		t.recordIDs(info)
		t.state, t.msg = a2a.TaskStateCompleted, e
		t.question, t.items = "", nil
		return true
	case *a2a.TaskStatusUpdateEvent:
		t.recordIDs(info)
		t.setStatus(e.Status)
		return true
	case *a2a.Task:
		t.recordIDs(info)
		t.setStatus(e.Status)
		t.arts.reset()
		for _, a := range e.Artifacts {
			if a == nil {
				continue
			}
			u := &a2a.TaskArtifactUpdateEvent{TaskID: e.ID, ContextID: e.ContextID, Artifact: a}
			if !t.routedAway(u, o) {
				t.applyArtifact(u)
			}
		}
		return true
	case *a2a.TaskArtifactUpdateEvent:
		if e.Artifact == nil {
			t.c.Invalid++
			return false
		}
		t.recordIDs(info)
		if o.Progress = t.routedAway(e, o); !o.Progress {
			t.applyArtifact(e)
		}
		return true
	}
	t.c.Invalid++
	return false
}

// recordIDs keeps the first task and context ids the events name.
func (t *Tracker) recordIDs(info a2a.TaskInfo) {
	if t.taskID == "" {
		t.taskID = info.TaskID
	}
	if t.contextID == "" {
		t.contextID = info.ContextID
	}
}

func (t *Tracker) setStatus(s a2a.TaskStatus) {
	t.sawTask = true
	next := canonical(s.State)
	if classify(t.state) == classInterrupted && next != t.state {
		t.c.Resumed++
	}
	t.state, t.msg = next, s.Message
	t.question, t.items = "", nil
	if classify(next) == classInterrupted {
		var bad bool
		t.question, t.items, bad = parseInterrupt(s.Message)
		if bad {
			t.c.MalformedInterrupts++
		}
	}
}

// routedAway reports whether the progress seam takes e, counts it and
// hands it back in o.
func (t *Tracker) routedAway(e *a2a.TaskArtifactUpdateEvent, o *Observation) bool {
	if t.progress == nil {
		return false
	}
	r, ok := t.progress(e)
	if !ok {
		return false
	}
	t.c.ProgressArtifacts++
	o.Routed = append(o.Routed, ProgressArtifact{Event: e, Reading: r})
	return true
}

func (t *Tracker) applyArtifact(e *a2a.TaskArtifactUpdateEvent) {
	t.sawTask = true
	r := t.arts.apply(e)
	if r.droppedArtifact {
		t.c.ArtifactsDropped++
	}
	if r.droppedMetadata {
		t.c.MetadataDropped++
	}
	if r.orphanAppend {
		t.c.OrphanAppends++
	}
	if r.appendAfterClosing {
		t.c.AppendsAfterLastChunk++
	}
	t.c.PartsDropped += r.droppedParts
}

// currentState returns the current state (canonical; unspecified before any
// state was observed).
func (t *Tracker) currentState() a2a.TaskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// isSettled reports whether the turn has ended: a terminal or interrupted
// state is current. isSettled can turn false again when a later state
// supersedes an interrupt; it never does after a terminal state.
func (t *Tracker) isSettled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return classify(t.state) != classInProgress
}

// EventCounts returns a copy of the tallies.
func (t *Tracker) EventCounts() EventCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c
}

// assembled returns copies of the artifacts assembled so far, whatever the
// state, in order of first appearance. Unlike [Outcome.assembled] it is
// available before the turn settles (for display); it is not an answer.
func (t *Tracker) assembled() []*a2a.Artifact {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.arts.snapshot()
}

func isNil(ev a2a.Event) bool {
	switch e := ev.(type) {
	case nil:
		return true
	case *a2a.Message:
		return e == nil
	case *a2a.Task:
		return e == nil
	case *a2a.TaskStatusUpdateEvent:
		return e == nil
	case *a2a.TaskArtifactUpdateEvent:
		return e == nil
	}
	return false
}

// stateOf returns the state a Task or status update carries. A Message
// after a terminal state is not a conflict: it was never the verdict.
func stateOf(ev a2a.Event) (a2a.TaskState, bool) {
	switch e := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		return e.Status.State, true
	case *a2a.Task:
		return e.Status.State, true
	}
	return "", false
}
