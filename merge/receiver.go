package merge

// Receiver is a front end's model of a turn, fed with the ops a [Turn]
// produced. Ops are idempotent and may arrive in any order, any number of
// times: once a Receiver has every op of a Turn, its View equals the Turn's
// View in Task, Blocks, ToolCalls, Sealed and the counters Applied, Gaps and
// Fallbacks. Its other counters are its own observations of the ops it got
// (duplicates, conflicts, late ops), since ops do not carry the Turn's.
//
// Give it the Turn's caps: the output cap decides which chunk bytes a view
// shows. A Receiver is not safe for concurrent use.
type Receiver struct {
	core
}

// NewReceiver returns an empty receiver for task under caps.
func NewReceiver(task string, caps Caps) *Receiver {
	return &Receiver{core: newCore(task, caps)}
}

// Apply merges one op. A block op that arrives after the seal op is still
// applied: the Turn applied it before it sealed. An op for another task, of
// an unknown type or with an invalid block is counted in Counters.Invalid
// and ignored.
func (r *Receiver) Apply(op Op) {
	switch {
	case op.Task != r.task:
	case op.Type == OpSeal:
		r.sealed = true
		return
	case op.Type == OpBlock && (op.Block.Source == SourceEnvelope || op.Block.Ordinal >= 1):
		r.apply(&op.Block, false)
		return
	}
	r.counters.Invalid++
}

// View returns a snapshot of what the receiver has.
func (r *Receiver) View() View { return r.view() }
