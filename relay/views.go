package relay

import (
	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/merge"
)

// views rebuilds a task's view for snapshots.
//
// TEMPORARY until merge.Receiver has Ops(turn): it keeps the ops as they
// came, capped like a turn's blocks.
type views struct {
	task string
	ops  []merge.Op
}

func newViews(task string) *views { return &views{task: task} }

func (v *views) apply(op merge.Op) {
	if len(v.ops) < merge.DefaultMaxBlocks+1 {
		v.ops = append(v.ops, op)
	}
}

// snapshot returns ops that rebuild the task's view.
func (v *views) snapshot() []merge.Op { return v.ops }

// opOf is the op an update forwards.
func opOf(u client.Update) (merge.Op, bool) {
	switch {
	case u.Type == client.UpdateProgress && u.Change.Result == merge.Applied:
		return u.Change.Op, true
	case u.Type == client.UpdateState && u.Change.Op.Type == merge.OpSeal:
		return u.Change.Op, true
	}
	return merge.Op{}, false
}

// settles reports whether op ends its turn for the relay.
func settles(op merge.Op) bool { return op.Type == merge.OpSeal }

// startsTurn reports whether op opens a turn after a settled one.
func startsTurn(t *task, op merge.Op) bool { return false }
