package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// A Follower starts a Stream that follows a task: [client.Client] is one.
// The relay calls Follow at most once at a time per task, for the first
// subscriber of a task that no attached stream feeds.
type Follower interface {
	Follow(ctx context.Context, taskID a2a.TaskID) (*client.Stream, error)
}

// Handler serves the event streams of tasks (see the package doc). It is
// safe for concurrent use. Close it to stop its upstreams; its context does
// the same.
type Handler struct {
	cfg    config
	src    Follower
	epoch  string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // upstream goroutines and the janitor
	mux    *http.ServeMux

	// shared counts what the Store brings (WithStore; zero without).
	shared sharedStats

	mu    sync.Mutex
	tasks map[string]*task
	// dispatched maps a task to the turn its dispatcher named (Dispatched),
	// at most maxTasks of them.
	dispatched map[string]string
	nextGen    uint64
	subs       int // open subscriptions, all tasks
	held       int // running turns of the front-end endpoints (Hold), at most cfg.maxTurns
	closed     bool

	bytes   atomic.Int64  // what the op logs of all tasks hold (entryCost)
	refused atomic.Uint64 // requests refused with 503 past a cap
	// merged is charged for what the tasks' merged views and front-end
	// subscribers keep (each task's budget is under it); its limit is
	// what maxBytes leaves past the logs, at most maxBytes.
	merged *merge.Budget
}

// entry is one op of a task's log, encoded once for every subscriber.
type entry struct {
	op   schema.Op
	data []byte
	id   string // the Store's record id (WithStore), "" in memory
}

// entryCost is what an entry holds, for the byte caps: its JSON, the
// decoded op (whose strings are about as long as the JSON), and the
// entry's own structures.
func entryCost(e *entry) int { return 2*len(e.data) + entryOverhead }

// entryOverhead is the fixed part of an entry's cost: the entry, its
// pointer in the log and the op's structs.
const entryOverhead = 512

// task is what the relay holds for one task id: its op log, the view for
// snapshots and its subscribers.
//
// Locks: Handler.mu guards the task map and the lifecycle fields marked
// below; task.mu guards the rest. A publish takes task.mu for an append and
// one non-blocking send per subscriber; subscribers read the log under the
// read lock, so readers of one task never wait for each other and tasks
// never wait for each other. Order: Handler.mu before task.mu.
type task struct {
	id  string
	gen uint64

	// Under Handler.mu: follow is the cancel of the running Follow;
	// attached counts the attached streams feeding the task; idleSince is
	// when its last subscriber left.
	follow    context.CancelFunc
	mirror    context.CancelFunc // WithStore: stops the mirror and its follows
	attached  int
	idleSince time.Time

	mu sync.RWMutex
	// log holds the newest ops; base counts the ops that left it, so the
	// op log[i] has position base+i+1.
	log   []*entry
	base  uint64
	bytes int
	views *views
	// budget is charged for the task's views and front-end subscribers:
	// maxTaskBytes less the log's byte cap (see defaultMaxTaskBytes).
	// fronts, under it, is the front-end subscribers' part: what the views'
	// own budget (merge.DefaultMaxTurnBytes) leaves, so that they never
	// crowd out the view that snapshots are made of.
	budget, fronts *merge.Budget
	// settled: the latest turn has its result and nothing more comes
	// until an attached stream starts another turn.
	settled bool
	// gone is set when the task left the map: its subscribers end and
	// reconnect to a fresh one.
	gone bool
	subs map[*subscriber]struct{}
	// storeN and storeAfter are the number and id of the newest Store
	// record the mirror applied (WithStore).
	storeN     uint64
	storeAfter string
	mirrored   chan struct{} // closed and replaced after each batch the mirror applies
	// ready is closed once the upstream responded (first update, or an
	// error in readyErr).
	ready    chan struct{}
	readyErr error
}

func (t *task) end() uint64 { return t.base + uint64(len(t.log)) }

type subscriber struct {
	wake chan struct{} // cap 1: "something changed", never blocks a publisher
}

// New returns a Handler that follows tasks through src (nil: only attached
// streams are served; a request for another task gets 404). ctx bounds
// everything the handler starts: canceling it is Close.
func New(ctx context.Context, src Follower, opts ...Option) *Handler {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &Handler{cfg: cfg, src: src, epoch: newEpoch(), ctx: ctx, cancel: cancel, tasks: map[string]*task{},
		merged: merge.NewBudget(cfg.maxBytes, nil)}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /tasks/{taskId}/events", func(w http.ResponseWriter, r *http.Request) {
		h.ServeEvents(w, r, r.PathValue("taskId"))
	})
	h.mux.HandleFunc("OPTIONS /tasks/{taskId}/events", h.preflight)
	h.wg.Add(1)
	go h.janitor()
	return h
}

// Close stops the handler: upstream follows are canceled, open event streams
// end (readers reconnect elsewhere), later requests get 503. It waits for the
// goroutines the handler started. Close is idempotent.
func (h *Handler) Close() error {
	h.cancel()
	h.mu.Lock()
	h.closed = true
	for id, t := range h.tasks {
		h.removeLocked(id, t)
	}
	h.mu.Unlock()
	h.wg.Wait()
	return nil
}

// removeLocked drops t from the map, stops its follow and wakes its
// subscribers, who end their responses.
func (h *Handler) removeLocked(id string, t *task) {
	if h.tasks[id] == t {
		delete(h.tasks, id)
	}
	if t.follow != nil {
		t.follow()
		t.follow = nil
	}
	if t.mirror != nil {
		t.mirror()
		t.mirror = nil
	}
	t.mu.Lock()
	if !t.gone {
		h.bytes.Add(-int64(t.bytes)) // the log leaves with its last reader
		t.views.release()            // its front-end subscribers release theirs as they end
	}
	t.gone = true
	t.wakeLocked()
	t.mu.Unlock()
}

func (t *task) wakeLocked() {
	for s := range t.subs {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// newTaskLocked adds an empty task for id, or fails when the task cap is
// reached.
func (h *Handler) newTaskLocked(id string) (*task, error) {
	if len(h.tasks) >= h.cfg.maxTasks {
		h.refused.Add(1)
		return nil, errBusy("relay: too many tasks")
	}
	if h.used() >= h.cfg.maxBytes {
		h.refused.Add(1)
		return nil, errBusy("relay: memory budget reached (the tasks held use it all)")
	}
	h.nextGen++
	budget := merge.NewBudget(max(int64(h.cfg.maxTaskBytes-h.cfg.maxLogBytes), 1), h.merged)
	fronts := merge.NewBudget(max(budget.Limit()-merge.DefaultMaxTurnBytes, 1), budget)
	t := &task{id: id, gen: h.nextGen, views: newViews(id, budget), budget: budget, fronts: fronts, subs: map[*subscriber]struct{}{},
		ready: make(chan struct{}), idleSince: time.Now()}
	h.tasks[id] = t
	return t, nil
}

// followDecodeBytes is what one Follow holds besides its turn, measured
// (TestRelayFloodRSS's heap profile) under a peer sending 1 MiB events:
// the SSE reader's buffer and the event being decoded.
const followDecodeBytes = 4 << 20

// followBytes is what the relay reserves for one running Follow: the
// Follower's turn budget (WithFollowBudget) and its decoding. The Follow
// charges its own budget, which the relay cannot see; reserving its bound
// keeps the handler's total (WithFollowBudget's doc) true of all it holds.
func (h *Handler) followBytes() int64 { return h.cfg.followBudget + followDecodeBytes }

// reserveFollow charges t's budget (and so the handler's) for one Follow,
// or refuses it with 503. It returns the func that gives it back, which
// the Follow calls when it ends.
func (h *Handler) reserveFollow(t *task) (func(), error) {
	n := h.followBytes()
	if !t.budget.Reserve(n) {
		h.refused.Add(1)
		return nil, errBusy("relay: memory budget reached (the tasks held and their follows use it all)")
	}
	return func() { t.budget.Release(n) }, nil
}

// used is what the tasks held cost now: their logs, views and front-end
// subscribers.
func (h *Handler) used() int64 { return h.bytes.Load() + h.merged.Used() }

// reserveFront charges t's budget for the encoder state of a new front-end
// subscriber (frontStateBytes, what sse.Budgeted.StateBytes says) and returns the budget its merged view
// charges (merge.DefaultMaxTurnBytes, under t's fronts), or refuses it with
// 503 when t's budget or the handler's has no room. The subscriber gives
// it all back with ReleaseAll when it ends.
func (h *Handler) reserveFront(t *task, frontStateBytes int64) (*merge.Budget, error) {
	b := merge.NewBudget(merge.DefaultMaxTurnBytes+frontStateBytes, t.fronts)
	if h.used()+frontStateBytes > h.cfg.maxBytes {
		h.refused.Add(1)
		return nil, errBusy("relay: memory budget reached (the tasks held use it all)")
	}
	if !b.Reserve(frontStateBytes) {
		h.refused.Add(1)
		return nil, errBusy("relay: memory budget of this task reached (its views and front-end subscribers use it all)")
	}
	return b, nil
}

// publishLocked appends op to t's log, trims the log to its caps, updates
// the view and wakes the subscribers. It never blocks on a subscriber. The
// caller holds t.mu.
func (h *Handler) publishLocked(t *task, op schema.Op) {
	data, err := json.Marshal(op)
	if err != nil {
		h.cfg.logger.Warn("relay: op not encodable", "task", t.id, "err", err)
		return
	}
	if t.gone {
		return // nobody is served from it any more, and its bytes are not counted
	}
	h.appendLocked(t, &entry{op: op, data: data}, t.views.apply(op))
}

// appendLocked adds e to t's log, trims the log to its caps and wakes the
// subscribers; e.op was just applied to t's views, and newTurn says that it
// opened a turn. The caller holds t.mu.
func (h *Handler) appendLocked(t *task, e *entry, newTurn bool) {
	if t.gone {
		return // nobody is served from it any more, and its bytes are not counted
	}
	t.log = append(t.log, e)
	held := t.bytes
	t.bytes += entryCost(e)
	for len(t.log) > 1 && (len(t.log) > h.cfg.maxOps || t.bytes > h.cfg.maxLogBytes) {
		t.bytes -= entryCost(t.log[0])
		t.log[0] = nil
		t.log = t.log[1:]
		t.base++
	}
	h.bytes.Add(int64(t.bytes - held))
	if newTurn {
		t.settled = false // an attached stream started the task's next turn
	}
	if settles(t, e.op) {
		t.settled = true
	}
	t.markReadyLocked(nil)
	t.wakeLocked()
}

func (t *task) markReadyLocked(err error) {
	select {
	case <-t.ready:
	default:
		t.readyErr = err
		close(t.ready)
	}
}

// janitor evicts tasks nobody watched for the TTL, and stops with the
// handler. One goroutine per Handler, whatever the number of tasks.
func (h *Handler) janitor() {
	defer h.wg.Done()
	every := min(max(h.cfg.ttl/4, time.Millisecond), time.Minute)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case now := <-tick.C:
			h.evict(now)
		}
	}
}

func (h *Handler) evict(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, t := range h.tasks {
		t.mu.RLock()
		idle := len(t.subs) == 0
		t.mu.RUnlock()
		if idle && t.attached == 0 && now.Sub(t.idleSince) >= h.cfg.ttl {
			h.removeLocked(id, t)
		}
	}
}

// acquire returns the task id with a new subscriber registered, starting
// a Follow when nothing feeds it. The caller must release the subscriber.
func (h *Handler) acquire(id string) (*task, *subscriber, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, errBusy("relay: closed")
	}
	if h.subs >= h.cfg.maxSubs {
		h.refused.Add(1)
		return nil, nil, errBusy("relay: too many subscribers")
	}
	t := h.tasks[id]
	if t == nil && h.cfg.store != nil {
		var err error
		if t, err = h.newTaskLocked(id); err != nil {
			return nil, nil, err
		}
		h.startMirrorLocked(t)
	}
	if t == nil {
		if h.src == nil {
			return nil, nil, &httpError{http.StatusNotFound, "relay: task not found"}
		}
		var err error
		if t, err = h.newTaskLocked(id); err != nil {
			return nil, nil, err
		}
		if err := h.startFollowLocked(t); err != nil {
			h.removeLocked(id, t)
			return nil, nil, err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.subs) >= h.cfg.maxPerTask {
		h.refused.Add(1)
		return nil, nil, errBusy("relay: too many subscribers for this task")
	}
	s := &subscriber{wake: make(chan struct{}, 1)}
	t.subs[s] = struct{}{}
	h.subs++
	return t, s, nil
}

func (h *Handler) release(t *task, s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t.mu.Lock()
	_, ok := t.subs[s]
	delete(t.subs, s)
	idle := len(t.subs) == 0
	t.mu.Unlock()
	if !ok {
		return
	}
	h.subs--
	if idle {
		t.idleSince = time.Now()
	}
}

// startFollowLocked runs one Follow of t for every subscriber, or refuses
// it with 503 when t's budget has no room for the Follow's turn
// (reserveFollow).
func (h *Handler) startFollowLocked(t *task) error {
	release, err := h.reserveFollow(t)
	if err != nil {
		return err
	}
	turn := h.dispatched[t.id]
	ctx, cancel := context.WithCancel(h.ctx)
	t.follow = cancel
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		defer release()
		err := h.runFollow(ctx, t, turn)
		h.mu.Lock()
		defer h.mu.Unlock()
		t.mu.Lock()
		if t.attached == 0 {
			// (An attached stream that stopped this follow readies the
			// task with its first op.)
			t.markReadyLocked(err)
		}
		settled := t.settled
		t.mu.Unlock()
		if err != nil && !errors.Is(err, context.Canceled) {
			h.cfg.logger.Info("relay: follow ended", "task", t.id, "err", terminal.Cut(err.Error(), terminal.MaxMessageBytes)) // a peer's words: cut
		}
		if t.follow != nil {
			t.follow = nil
		}
		// A follow that ended before the turn settled (the agent lost the
		// task, the follow gave up) leaves nothing to serve: the next
		// subscriber starts over, from a snapshot.
		if !settled && t.attached == 0 {
			h.removeLocked(t.id, t)
		}
	}()
	return nil
}

// Dispatched tells h that task's latest turn is turn (the messageId of the
// message that opened it), as whoever dispatched the message knows: a
// Follow names its turn from the task's history, so a Follow of a task
// whose agent keeps no history names it "task:" + the task id (merge's
// default), and a page waiting for turn would never see it. h names that
// turn turn instead. It remembers the latest DefaultMaxTasks dispatches.
func (h *Handler) Dispatched(task, turn string) {
	if turn == "" || ValidateTaskID(task) != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dispatched == nil {
		h.dispatched = map[string]string{}
	}
	for id := range h.dispatched {
		if len(h.dispatched) < h.cfg.maxTasks {
			break
		}
		delete(h.dispatched, id) // any one: a page watches its latest
	}
	h.dispatched[task] = turn
}

// dispatchedTurn is the turn Dispatched named for task, "" when none.
func (h *Handler) dispatchedTurn(task string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dispatched[task]
}

// nameTurn gives op the dispatched turn when its Follow could not name
// the turn (see Dispatched).
func nameTurn(op *schema.Op, task, turn string) {
	if turn != "" && op.Turn == "task:"+task {
		op.Turn = turn
	}
}

func (h *Handler) runFollow(ctx context.Context, t *task, turn string) error {
	s, err := h.src.Follow(ctx, a2a.TaskID(t.id))
	if err != nil {
		return err
	}
	for u, err := range s.Updates() {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			// The relay stopped this follow (eviction, Close): the
			// incomplete result the stream reports now is not the agent's.
			return ctx.Err()
		}
		t.mu.Lock()
		op, ok := u.Op()
		nameTurn(&op, t.id, turn)
		switch {
		case ok && op.Type == schema.OpResult && op.Result != nil && op.Result.Verdict == schema.VerdictIncomplete &&
			len(t.log) == 0 && t.base == 0:
			// A follow that got nothing at all (an unknown task) is
			// responded to with its error — 404, 502 — not with a stream
			// that holds only "incomplete".
		case ok:
			h.publishLocked(t, op)
		case u.Type != client.UpdateReconnect:
			// A reconnect notice is not a response: a follow of an agent
			// that is down must end in its error (502), not in an
			// empty stream that a page reconnects to forever.
			t.markReadyLocked(nil)
		}
		t.mu.Unlock()
	}
	return nil
}

// httpError is a refusal with its status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func errBusy(msg string) error { return &httpError{http.StatusServiceUnavailable, msg} }

func upstreamError(err error) error {
	var he *httpError
	if errors.As(err, &he) {
		return he // the relay's own refusal (a Store down: 503)
	}
	if errors.Is(err, a2a.ErrTaskNotFound) {
		return &httpError{http.StatusNotFound, "relay: task not found"}
	}
	return &httpError{http.StatusBadGateway, fmt.Sprintf("relay: agent: %v", err)}
}

// Stats is a point-in-time count of what a Handler holds.
type Stats struct {
	// Tasks is the number of tasks held (their logs and views).
	Tasks int
	// Subscribers is the number of open event streams.
	Subscribers int
	// Follows is the number of upstream Follows running.
	Follows int
	// Bytes is what the op logs of the tasks held hold, as the byte caps
	// count it (defaultMaxLogBytes per task).
	Bytes int64
	// ViewBytes is what the tasks' merged views and their AG-UI and AI SDK
	// subscribers keep, as merge's budgets count it. Bytes + ViewBytes is
	// what defaultMaxBytes caps; per task, its log and its part of
	// ViewBytes are what defaultMaxTaskBytes caps.
	ViewBytes int64
	// Refused counts the requests refused with 503 past a cap (tasks,
	// bytes — the handler's or a task's —, subscribers) since the Handler
	// was made.
	Refused uint64
	// StoreErrors counts the failed calls to the Store (WithStore) since
	// the Handler started; StoreDown says whether the latest one failed.
	// While it is down, new readers get 503 with Retry-After.
	StoreErrors int64
	StoreDown   bool
}

// Stats returns the current counts, for metrics and tests.
func (h *Handler) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Stats{Tasks: len(h.tasks), Subscribers: h.subs, Bytes: h.bytes.Load(),
		ViewBytes: h.merged.Used(), Refused: h.refused.Load()}
	h.shared.fill(&s)
	for _, t := range h.tasks {
		if t.follow != nil {
			s.Follows++
		}
	}
	return s
}
