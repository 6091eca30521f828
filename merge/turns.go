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
// tasks. It is safe for concurrent use (one mutex guards every turn). Its
// turns have no id of their own: each is named [TaskTurn] of its task.
//
// It keeps at most maxTurns turns. When a reading or seal for a new task
// arrives and the cap is reached, the sealed turn used least recently is
// evicted to make room; when no turn is sealed, nothing is evicted (that
// would lose live progress) and the new task's reading is dropped
// (DroppedCap) and counted by Refused. Call Forget once a task's view has
// been delivered.
//
// A sealed turn stays sealed until Forget, evicted or not: Turns remembers
// the last maxTurns evicted tasks, and a straggler reading for one of them
// (a replayed history, a duplicate after the verdict) is dropped
// (DroppedSealed) and counted by Refused, instead of opening a new turn
// that nothing would ever seal. A task answered after an interrupt starts
// a new turn under the same taskId: Forget the sealed one first.
type Turns struct {
	mu      sync.Mutex
	caps    Caps
	max     int
	turns   map[string]*turnEntry
	clock   uint64
	refused int64

	// evicted holds the tasks of the last max evicted sealed turns; ring
	// lists them oldest first from next, so the set stays bounded.
	evicted map[string]struct{}
	ring    []string
	next    int
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

// get returns the turn of task, creating it if there is room; nil if not,
// with sealed true when the task's sealed turn was evicted.
func (ts *Turns) get(task string) (t *Turn, sealed bool) {
	ts.clock++
	if e, ok := ts.turns[task]; ok {
		e.used = ts.clock
		return e.turn, false
	}
	if _, ok := ts.evicted[task]; ok {
		ts.refused++
		return nil, true
	}
	if len(ts.turns) >= ts.max && !ts.evictSealed() {
		ts.refused++
		return nil, false
	}
	e := &turnEntry{turn: NewTurn(task, "", ts.caps), used: ts.clock}
	ts.turns[task] = e
	return e.turn, false
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
		ts.remember(oldest)
	}
	return found
}

// remember adds task to the evicted set, dropping the oldest beyond max.
func (ts *Turns) remember(task string) {
	if ts.evicted == nil {
		ts.evicted = make(map[string]struct{}, ts.max)
	}
	if len(ts.ring) < ts.max {
		ts.ring = append(ts.ring, task)
	} else {
		delete(ts.evicted, ts.ring[ts.next])
		ts.ring[ts.next] = task
		ts.next = (ts.next + 1) % ts.max
	}
	ts.evicted[task] = struct{}{}
}

// Apply merges r into the turn of task (see [Turn.Apply]).
func (ts *Turns) Apply(task string, r envelope.Reading) Change {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, sealed := ts.get(task)
	switch {
	case sealed:
		return Change{Result: DroppedSealed}
	case t == nil:
		return Change{Result: DroppedCap}
	}
	return t.Apply(r)
}

// Seal seals the turn of task (creating it, empty, if it is unknown) and
// returns the seal op; ok is false when the turn could not be created. For
// a task whose sealed turn was evicted it returns the seal op again.
func (ts *Turns) Seal(task string) (op Op, ok bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if _, gone := ts.evicted[task]; gone {
		return Op{Type: OpSeal, Task: task, Turn: TaskTurn(task)}, true
	}
	t, _ := ts.get(task)
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

// Forget drops the turn of task, evicted or not, and reports whether
// there was one; the next reading for task opens a new turn.
func (ts *Turns) Forget(task string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	_, ok := ts.turns[task]
	delete(ts.turns, task)
	if _, gone := ts.evicted[task]; gone {
		// Its slot in ring stays until overwritten (which may then end a
		// later tombstone of the same task early): the set only shrinks.
		delete(ts.evicted, task)
		ok = true
	}
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
// reached with no sealed turn to evict, and the readings dropped because
// their task's sealed turn was evicted.
func (ts *Turns) Refused() int64 {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.refused
}
