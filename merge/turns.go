package merge

import (
	"slices"
	"sync"

	"github.com/tfrs/a2a-progress/envelope"
)

// DefaultMaxTurns is the number of turns a [Turns] keeps when NewTurns gets
// no positive cap.
const DefaultMaxTurns = 64

// Turns keeps one [Turn] per A2A taskId, for a caller that follows several
// tasks. It is safe for concurrent use (one mutex guards every turn).
//
// It keeps at most maxTurns turns. When a reading or seal for a new task
// arrives and the cap is reached, the sealed turn used least recently is
// forgotten to make room; when no turn is sealed, nothing is forgotten (that
// would lose live progress) and the new task's reading is dropped
// (DroppedCap) and counted by Refused. Call Forget once a task's view has
// been delivered.
type Turns struct {
	mu      sync.Mutex
	caps    Caps
	max     int
	turns   map[string]*turnEntry
	clock   uint64
	refused int64
}

type turnEntry struct {
	turn *Turn
	used uint64
}

// NewTurns returns an empty set of turns; each turn gets caps. maxTurns <= 0
// means DefaultMaxTurns.
func NewTurns(caps Caps, maxTurns int) *Turns {
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	return &Turns{caps: caps, max: maxTurns, turns: make(map[string]*turnEntry)}
}

// get returns the turn of task, creating it if there is room; nil if not.
func (ts *Turns) get(task string) *Turn {
	ts.clock++
	if e, ok := ts.turns[task]; ok {
		e.used = ts.clock
		return e.turn
	}
	if len(ts.turns) >= ts.max && !ts.evictSealed() {
		ts.refused++
		return nil
	}
	e := &turnEntry{turn: NewTurn(task, ts.caps), used: ts.clock}
	ts.turns[task] = e
	return e.turn
}

func (ts *Turns) evictSealed() bool {
	var (
		oldest string
		found  bool
		used   uint64
	)
	for task, e := range ts.turns {
		if e.turn.sealed && (!found || e.used < used) {
			oldest, used, found = task, e.used, true
		}
	}
	if found {
		delete(ts.turns, oldest)
	}
	return found
}

// Apply merges r into the turn of task (see [Turn.Apply]).
func (ts *Turns) Apply(task string, r envelope.Reading) Change {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.get(task)
	if t == nil {
		return Change{Result: DroppedCap}
	}
	return t.Apply(r)
}

// Seal seals the turn of task (creating it, empty, if it is unknown) and
// returns the seal op; ok is false when the turn could not be created.
func (ts *Turns) Seal(task string) (op Op, ok bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.get(task)
	if t == nil {
		return Op{}, false
	}
	return t.Seal(), true
}

// View returns a snapshot of the turn of task; ok is false for an unknown
// task.
func (ts *Turns) View(task string) (v View, ok bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	e, ok := ts.turns[task]
	if !ok {
		return View{}, false
	}
	return e.turn.View(), true
}

// Forget drops the turn of task and reports whether there was one.
func (ts *Turns) Forget(task string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	_, ok := ts.turns[task]
	delete(ts.turns, task)
	return ok
}

// Tasks returns the taskIds of the turns kept, sorted.
func (ts *Turns) Tasks() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]string, 0, len(ts.turns))
	for task := range ts.turns {
		out = append(out, task)
	}
	slices.Sort(out)
	return out
}

// Refused counts the readings and seals dropped because the turn cap was
// reached with no sealed turn to forget.
func (ts *Turns) Refused() int64 {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.refused
}
