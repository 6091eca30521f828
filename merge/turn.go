package merge

import "github.com/tfrs/a2a-progress/envelope"

// Turn merges the progress of one turn (one A2A taskId) into a view.
//
// A Turn is not safe for concurrent use; [Turns] is. Its zero value is not
// usable: call [NewTurn].
type Turn struct {
	core
}

// NewTurn returns an empty turn for task under caps (zero fields take their
// defaults).
func NewTurn(task string, caps Caps) *Turn {
	return &Turn{core: newCore(task, caps)}
}

// Apply merges one reading, the per-event hot path: O(1) amortised for an
// in-order envelope, O(log n) at worst (a chunk into its call's output
// heap), never O(n). An in-order block is delivered at once; Apply never
// waits for a missing seq. A late one is inserted in its place and reported
// with Change.Late.
//
// After [Turn.Seal] nothing is applied; the reading is counted as
// DroppedAfterSeal.
func (t *Turn) Apply(r envelope.Reading) Change {
	if t.sealed {
		t.counters.DroppedAfterSeal++
		return Change{Result: DroppedSealed}
	}
	e := &r.Envelope
	b := Block{Kind: e.Kind, Status: e.Status, Payload: e.Payload, OverSoftLimit: r.OverSoftLimit}
	switch {
	case r.Fallback:
		b.Key.ID, b.Source, b.Reason = r.ID, SourceFallback, r.Reason
	case r.ID != "":
		// Not from envelope.FromMessage: progress with a seq space of its
		// own (SourceProjection).
		b.Key = Key{StreamKey: e.StreamKey, Seq: e.Seq, ID: r.ID}
		b.Source = SourceProjection
	default:
		b.Key.StreamKey, b.Key.Seq, b.Source = e.StreamKey, e.Seq, SourceEnvelope
	}
	return t.apply(&b, true)
}

// Seal marks that the turn's verdict arrived (the terminal state decides the
// answer; progress never does). Tool calls still running become unfinished,
// and later readings are counted as DroppedAfterSeal. It returns the seal op
// to forward. Sealing twice changes nothing and returns the same op.
func (t *Turn) Seal() Op {
	t.sealed = true
	return Op{Type: OpSeal, Task: t.task}
}

// Sealed reports whether the turn is sealed.
func (t *Turn) Sealed() bool { return t.sealed }

// Task returns the turn's taskId.
func (t *Turn) Task() string { return t.task }

// View returns a snapshot of the turn. It costs O(n) (O(n log n) after late
// arrivals) and builds each tool call's output once: call it to render, not
// per event — per event, forward Change.Op.
func (t *Turn) View() View { return t.view() }
