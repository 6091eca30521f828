package relay

import (
	"slices"

	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// views rebuilds a task's view for snapshots: a merge.Receiver fed with
// every op the task published, whose Ops(turn) are the ops that rebuild a
// turn (its retained blocks, then seal and result). Its memory is bounded as
// a Receiver's is (merge.MaxReceiverTurns turns under the default caps).
type views struct {
	r *merge.Receiver
	// budget is what r charges (under the task's budget); release gives
	// it back when the task leaves.
	budget *merge.Budget
	// latest is the id of the task's latest turn ("" before any op), kept
	// so that an op of that turn — nearly every publish — costs no copy of
	// r.Turns().
	latest string
}

// newViews returns the views of task, charging parent (nil: none) for what
// they keep.
func newViews(task string, parent *merge.Budget) *views {
	b := merge.NewBudget(merge.DefaultMaxTurnBytes, parent)
	return &views{r: merge.NewReceiver(task, merge.Caps{Budget: b}), budget: b}
}

// release gives back what the views charged: for a task that left, whose
// views take no more ops.
func (v *views) release() { v.budget.ReleaseAll() }

// apply adds op and reports whether it opened a turn the task had not seen.
func (v *views) apply(op schema.Op) (newTurn bool) {
	newTurn, _ = v.applyResult(op)
	return newTurn
}

// applyResult is apply, with what the receiver did with op.
func (v *views) applyResult(op schema.Op) (newTurn bool, res merge.Effect) {
	if op.Turn == v.latest {
		return false, v.r.Apply(op)
	}
	known := slices.Contains(v.r.Turns(), op.Turn)
	res = v.r.Apply(op)
	ts := v.r.Turns()
	if len(ts) > 0 {
		v.latest = ts[len(ts)-1]
	}
	return !known && slices.Contains(ts, op.Turn), res
}

// snapshot returns ops that rebuild the task's view: every retained turn,
// oldest first, so that a receiver orders the turns as the relay does.
func (v *views) snapshot() []schema.Op {
	var ops []schema.Op
	for _, turn := range v.r.Turns() {
		ops = append(ops, v.r.Ops(turn)...)
	}
	return ops
}

// settles reports whether op, just applied to t's views, ends the task's
// latest turn for the relay: its result. An incomplete result is forwarded
// but settles nothing: this relay could not follow the turn to its end, and
// the next subscriber's follow may.
func settles(t *task, op schema.Op) bool { return t.views.settles(op) }

// settles reports whether op, just applied, settles the latest turn (see
// the function settles).
func (v *views) settles(op schema.Op) bool {
	return op.Type == schema.OpResult && op.Result != nil && op.Result.Verdict != schema.VerdictIncomplete &&
		op.Turn == v.latest
}
