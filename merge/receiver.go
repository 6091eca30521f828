package merge

import (
	"slices"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// MaxReceiverTurns is the number of turns a [Receiver] keeps. A task has
// one turn per request on it (a response to an interrupt on the task
// opens the next), so a front end rarely sees more than a few; the cap
// keeps a receiver bounded when a peer invents turn ids.
const MaxReceiverTurns = 16

// Receiver is a front end's model of a task, fed with the ops that [Turn]s
// produced: one view per turn, keyed by the ops' turn id, so a second turn
// on the same task — whose seqs may start anywhere again — never meets the
// first turn's blocks as duplicates or conflicts.
//
// Ops are idempotent and may arrive in any order, any number of times: once
// a Receiver has every op of a Turn, that turn's view equals the Turn's
// View in Task, Turn, Blocks, ToolCalls, Sealed and the counters Applied,
// Gaps and Fallbacks. Its other counters are its own observations of the
// ops it got (duplicates, conflicts, late ops; Invalid counts the invalid
// ops of the whole receiver), since block ops do not carry the Turn's; the
// result op does ([schema.Result].Counters).
//
// Turns are ordered by the first arrival of one of their ops; View is the
// latest. At most [MaxReceiverTurns] are kept: a new turn beyond them
// evicts the oldest, whose later ops are then refused ([DroppedCap],
// counted by Refused) instead of opening it again as the latest turn. The
// evicted turn ids are remembered within the same bound.
//
// Give it the Turn's caps (they bound each turn): the output cap decides
// which chunk bytes a view shows. Its memory is bounded by
// MaxReceiverTurns times a turn's (see [Caps]), and a turn id longer than
// [envelope.MaxIdentBytes] makes its op invalid. A Receiver is not safe for
// concurrent use.
type Receiver struct {
	task    string
	caps    Caps
	turns   []*recvTurn // by first arrival
	byID    map[string]*recvTurn
	invalid int64
	refused int64

	// evicted holds the ids of the last MaxReceiverTurns evicted turns;
	// ring lists them, oldest at next.
	evicted map[string]struct{}
	ring    []string
	next    int
}

type recvTurn struct {
	core
	result *schema.Result
}

// NewReceiver returns an empty receiver for the ops of task under caps.
func NewReceiver(task string, caps Caps) *Receiver {
	return &Receiver{task: task, caps: caps, byID: make(map[string]*recvTurn)}
}

// Apply merges one op and says what it did:
//
//   - a block op: [Applied], [Duplicate] or [Conflict] (first wins), or
//     [DroppedCap] when a cap refused it. A block op that arrives after the
//     seal op is still applied: the Turn applied it before it sealed.
//   - a seal op: Applied the first time, Duplicate after.
//   - a result op: Applied the first time; Duplicate for the same result
//     again, Conflict for another one (the first stands).
//   - an op for another task, without a turn or with one longer than
//     [envelope.MaxIdentBytes], of an unknown type, with an invalid block or result:
//     [Invalid], counted in Counters.Invalid of every view, and ignored.
//   - an op of an evicted turn: DroppedCap, counted by Refused.
func (r *Receiver) Apply(op schema.Op) Effect {
	if op.Task != r.task || op.Turn == "" || len(op.Turn) > envelope.MaxIdentBytes || !validOp(&op) {
		r.invalid++
		return Invalid
	}
	t := r.turn(op.Turn)
	if t == nil {
		r.refused++
		return DroppedCap
	}
	switch op.Type {
	case schema.OpSeal:
		if t.sealed {
			return Duplicate
		}
		t.sealed = true
		return Applied
	case schema.OpResult:
		switch {
		case t.result == nil:
			t.result = cloneResult(op.Result)
			return Applied
		case equalResults(t.result, op.Result):
			return Duplicate
		}
		return Conflict
	}
	b := op.Block
	if !op.At.IsZero() {
		b.At = op.At
	}
	if !b.At.IsZero() {
		b.At = b.At.UTC()
	}
	return t.apply(&b, false).Effect
}

// validOp reports whether op has a known type with a valid block or result.
func validOp(op *schema.Op) bool {
	switch op.Type {
	case schema.OpSeal:
		return true
	case schema.OpResult:
		return op.Result != nil && op.Result.Validate() == nil
	case schema.OpBlock:
		b := &op.Block
		return (b.Source == schema.SourceEnvelope || b.Ordinal >= 1) && (b.Validate() == nil)
	}
	return false
}

// turn returns the turn id's state, opening it (and evicting the oldest
// beyond the cap); nil for an evicted turn.
func (r *Receiver) turn(id string) *recvTurn {
	if t, ok := r.byID[id]; ok {
		return t
	}
	if _, gone := r.evicted[id]; gone {
		return nil
	}
	if len(r.turns) == MaxReceiverTurns {
		old := r.turns[0]
		r.turns = slices.Delete(r.turns, 0, 1)
		delete(r.byID, old.turn)
		old.release(old.charged) // a shared budget (Caps.Budget) gets the turn's bytes back
		r.remember(old.turn)
	}
	t := &recvTurn{core: newCore(r.task, id, r.caps)}
	r.turns = append(r.turns, t)
	r.byID[id] = t
	return t
}

// remember adds an evicted turn id, forgetting the oldest beyond the cap.
func (r *Receiver) remember(id string) {
	if r.evicted == nil {
		r.evicted = make(map[string]struct{}, MaxReceiverTurns)
	}
	if len(r.ring) < MaxReceiverTurns {
		r.ring = append(r.ring, id)
	} else {
		delete(r.evicted, r.ring[r.next])
		r.ring[r.next] = id
		r.next = (r.next + 1) % MaxReceiverTurns
	}
	r.evicted[id] = struct{}{}
}

// View returns a snapshot of the latest turn (the last whose first op
// arrived); before any valid op, an empty view of the task with no turn.
func (r *Receiver) View() schema.View {
	if len(r.turns) == 0 {
		v := schema.View{Task: r.task}
		v.Counters.Invalid = r.invalid
		return v
	}
	return r.viewOf(r.turns[len(r.turns)-1])
}

// TurnView returns a snapshot of the turn with id turn; ok is false when
// the receiver does not keep it.
func (r *Receiver) TurnView(turn string) (v schema.View, ok bool) {
	t, ok := r.byID[turn]
	if !ok {
		return schema.View{}, false
	}
	return r.viewOf(t), true
}

func (r *Receiver) viewOf(t *recvTurn) schema.View {
	v := t.view()
	v.Counters.Invalid = r.invalid
	return v
}

// Turns returns the ids of the turns kept, in the order their first op
// arrived: the last is the latest.
func (r *Receiver) Turns() []string {
	out := make([]string, len(r.turns))
	for i, t := range r.turns {
		out[i] = t.turn
	}
	return out
}

// Result returns a copy of the latest turn's result, or nil before its
// result op arrived.
func (r *Receiver) Result() *schema.Result {
	if len(r.turns) == 0 {
		return nil
	}
	if res := r.turns[len(r.turns)-1].result; res != nil {
		return cloneResult(res)
	}
	return nil
}

// Ops returns a snapshot of the turn with id turn as ops that rebuild it:
// every block in view order (chunks at their seq), then the seal op when
// it is sealed, then the result op when it has one. A receiver with the
// same caps, given them in any order, has this turn's view (its own
// counters of arrivals aside). A chunk whose text the output cap dropped
// is given as its stub: its chunk is "" and Truncated holds its size
// (PROTOCOL.md §4.1), so the rebuilt call counts it, names and closes by
// it, and knows its seq. nil for a turn the receiver does not keep.
//
// A relay uses it to bring a late subscriber up to date before it
// forwards live ops.
func (r *Receiver) Ops(turn string) []schema.Op {
	t, ok := r.byID[turn]
	if !ok {
		return nil
	}
	ops := t.ops()
	if t.sealed {
		ops = append(ops, schema.Op{Type: schema.OpSeal, Task: t.task, Turn: t.turn})
	}
	if t.result != nil {
		ops = append(ops, schema.Op{Type: schema.OpResult, Task: t.task, Turn: t.turn, Result: cloneResult(t.result)})
	}
	return ops
}

// Refused counts the ops refused because their turn was evicted.
func (r *Receiver) Refused() int64 { return r.refused }
