package merge

import (
	"time"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// Turn merges the progress of one turn into a view, and stamps every op it
// makes with the turn's task and turn id.
//
// A turn is one request on a task and what answers it, up to the state
// that settles it: a send, or the current turn of a task that is followed
// or polled. A task that ends its turn on a question (input-required)
// goes on in a new turn when the caller responds on the same task, and the
// producer's seqs may start anywhere again — so seqs are scoped by turn,
// not by task. The turn id is the messageId of the user message that
// opened the turn (PROTOCOL.md §3.3): a caller that sent it knows it, and
// one that follows the task reads it from the task's history, so two
// processes following one task name its turns alike. When nothing names
// the turn, [taskTurn] of the task is its id.
//
// A Turn is not safe for concurrent use: a caller that shares one guards
// it. Its zero value is not usable: call [NewTurn].
type Turn struct {
	core
}

// NewTurn returns an empty turn of task under caps (zero fields take their
// defaults). turn is the turn's id; "" means [taskTurn](task).
func NewTurn(task, turn string, caps Caps) *Turn {
	if turn == "" {
		turn = taskTurn(task)
	}
	return &Turn{core: newCore(task, turn, caps)}
}

// taskTurn is the turn id of a turn that nothing else names: "task:" and
// the task id. It is derived from the task, so every process agrees on it;
// but every such turn of one task has the same id, so a caller uses it
// only when the peer gives no history to read the opening message from
// (PROTOCOL.md §3.3).
func taskTurn(task string) string { return "task:" + task }

// Apply merges one reading, the per-event hot path: O(1) amortised for an
// in-order envelope, O(log n) at worst (a chunk into its call's output
// heap), never O(n). An in-order block is delivered at once; Apply never
// waits for a missing seq. A late one is inserted in its place and reported
// with Change.Late.
//
// Apply stamps no time: its op has no at. A caller that forwards ops uses
// [Turn.ApplyAt] (package client does), so that the clock is read only
// where the event has no time of its own.
//
// After [Turn.Seal] nothing is applied; the reading is counted as
// DroppedAfterSeal.
func (t *Turn) Apply(r envelope.Reading) Change { return t.applyReading(&r, time.Time{}) }

// ApplyAt is [Turn.Apply] for a reading produced at at: the status
// timestamp of the event that carried it when the event has one, else the
// time it arrived. at travels in the block and its op (Op.At, in UTC); it
// is informational — a duplicate with another at is still a duplicate,
// and the first arrival's stays. A zero at is "unknown".
func (t *Turn) ApplyAt(r envelope.Reading, at time.Time) Change { return t.applyReading(&r, at) }

// applyReading is Apply and ApplyAt: a Reading is large, and is copied once,
// by the exported call.
func (t *Turn) applyReading(r *envelope.Reading, at time.Time) Change {
	if t.sealed {
		t.counters.DroppedAfterSeal++
		return Change{Effect: DroppedSealed}
	}
	e := &r.Envelope
	b := schema.Block{Kind: e.Kind, Status: e.Status, Payload: e.Payload, OverSoftLimit: r.OverSoftLimit}
	if !at.IsZero() {
		b.At = at.UTC()
	}
	switch {
	case r.Fallback:
		b.Key.ID, b.Source, b.Reason = r.ID, schema.SourceFallback, r.Reason
	case r.ID != "":
		// Not from envelope.FromMessage: progress with a seq space of its
		// own (SourceProjection).
		b.Key = schema.Key{StreamKey: e.StreamKey, Seq: e.Seq, ID: r.ID}
		b.Source = schema.SourceProjection
	default:
		b.Key.StreamKey, b.Key.Seq, b.Source, b.Parent = e.StreamKey, e.Seq, schema.SourceEnvelope, e.Parent
	}
	return t.apply(&b, true)
}

// Seal marks that the turn's verdict arrived (the terminal state decides the
// answer; progress never does). Tool calls still running become unfinished,
// and later readings are counted as DroppedAfterSeal. It returns the seal op
// to forward. Sealing twice changes nothing and returns the same op.
func (t *Turn) Seal() schema.Op {
	t.sealed = true
	return schema.Op{Type: schema.OpSeal, Task: t.task, Turn: t.turn}
}

// ResultOp returns the result op of the turn: r, with Counters set to the
// turn's counters now. Call it once the verdict is known — after
// [Turn.Seal] for a settled turn; for an incomplete one (no seal: the task
// may still be running) whenever the caller gives up. r must be valid
// (see [schema.Result.Validate]); ResultOp does not check it.
func (t *Turn) ResultOp(r schema.Result) schema.Op {
	r.Counters = t.countersNow()
	return schema.Op{Type: schema.OpResult, Task: t.task, Turn: t.turn, Result: &r}
}

// ID returns the turn's id (see [Turn]).
func (t *Turn) ID() string { return t.turn }

// View returns a snapshot of the turn. It costs O(n) (O(n log n) after late
// arrivals) and builds each tool call's output once: call it to render, not
// per event — per event, forward Change.Op.
func (t *Turn) View() schema.View { return t.view() }
