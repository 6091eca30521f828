package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// This file is the Handler's side of a shared Store (WithStore): the
// mirror that copies a task's log from the Store into the task's in-memory
// log, the leased follow that feeds the Store from upstream, and the
// publisher behind Attach. Without a Store none of it runs.

// republishWindow bounds how long a publisher whose last appends failed
// keeps trying, in the background, to put its view back into the Store.
const republishWindow = time.Minute

// sharedStats counts what the Store brings, for Stats.
type sharedStats struct {
	follows atomic.Int64 // upstream follows this process runs under a lease
	errors  atomic.Int64
	down    atomic.Bool
	lost    map[string]time.Time // under Handler.mu: see lostLocked
}

func (s *sharedStats) fill(st *Stats) {
	st.Follows += int(s.follows.Load())
	st.StoreErrors = s.errors.Load()
	st.StoreDown = s.down.Load()
}

// storeFailed records a failed Store call and returns the refusal a new
// reader gets meanwhile: 503, with Retry-After.
func (h *Handler) storeFailed(task string, err error) error {
	h.shared.errors.Add(1)
	if !h.shared.down.Swap(true) {
		h.cfg.logger.Error("relay: store unavailable", "task", task, "err", err)
	} else {
		h.cfg.logger.Debug("relay: store still unavailable", "task", task, "err", err)
	}
	return errBusy(fmt.Sprintf("relay: store unavailable: %v", err))
}

func (h *Handler) storeOK() {
	if h.shared.down.Swap(false) {
		h.cfg.logger.Info("relay: store available again")
	}
}

// eventID is the SSE id of entry e at position n of t's log: the Store's
// record id, or this process's cursor.
func (h *Handler) eventID(t *task, e *entry, n uint64) string {
	if e != nil && e.id != "" {
		return e.id
	}
	return cursor{h.epoch, t.gen, n}.String()
}

// lastEntry is the newest op of t's log, nil when it is empty. The caller
// holds t.mu.
func (t *task) lastEntry() *entry {
	if len(t.log) == 0 {
		return nil
	}
	return t.log[len(t.log)-1]
}

// findRecord returns the position just after the record id in t's log, and
// false when the log does not hold it (trimmed, another incarnation of the
// log, malformed): the reader then gets a snapshot. Readers resume near the
// end, so the search starts there. The caller holds t.mu.
func (t *task) findRecord(id string) (uint64, bool) {
	if id == "" || len(id) > maxCursorBytes {
		return 0, false
	}
	for i := len(t.log) - 1; i >= 0; i-- {
		if t.log[i].id == id {
			return t.base + uint64(i) + 1, true
		}
	}
	return 0, false
}

// startMirrorLocked starts copying t's log from the Store. The caller holds
// h.mu.
func (h *Handler) startMirrorLocked(t *task) {
	ctx, cancel := context.WithCancel(h.ctx)
	t.mirror = cancel
	t.mirrored = make(chan struct{})
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		err := h.runMirror(ctx, t)
		if ctx.Err() != nil {
			return // the task left the map, or the handler closed
		}
		// The Store failed or the log started over: what this process
		// holds may be cut. Its readers end and reconnect, to a fresh
		// mirror that resumes them where the Store still has their cursor
		// and sends a snapshot otherwise; meanwhile new readers get 503.
		h.mu.Lock()
		defer h.mu.Unlock()
		t.mu.Lock()
		t.markReadyLocked(err)
		t.mu.Unlock()
		h.removeLocked(t.id, t)
		h.shared.lostLocked(t.id, h.cfg.maxTasks)
	}()
}

// lostLocked remembers, for republishWindow, that the mirror of task was
// dropped after a Store failure: until its publisher puts it back, an empty
// log of that task is a 503 (come back), not a 404. At most max tasks are
// remembered. The caller holds Handler.mu.
func (s *sharedStats) lostLocked(task string, max int) {
	now := time.Now()
	if s.lost == nil {
		s.lost = map[string]time.Time{}
	}
	for id, at := range s.lost {
		if now.Sub(at) > republishWindow {
			delete(s.lost, id)
		}
	}
	for id := range s.lost {
		if len(s.lost) < max {
			break
		}
		delete(s.lost, id) // any one: the map is full of fresh losses
	}
	s.lost[task] = now
}

// wasLost reports whether task's mirror was dropped after a Store failure
// within republishWindow.
func (h *Handler) wasLost(task string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.shared.lost[task]
	return ok && time.Since(at) <= republishWindow
}

// refuseWaiting responds to the readers that wait for task's first op with
// err (the Store's refusal: 503 with its reason) at once, instead of at
// the start timeout (504), when this process serves the task and its log
// is still empty: a Store that refuses writes (a full Redis responds OOM)
// or does not respond will not bring that op. The task leaves the map, so
// that the next reader starts over.
func (h *Handler) refuseWaiting(task string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.tasks[task]
	if t == nil {
		return
	}
	t.mu.Lock()
	empty := len(t.log) == 0 && t.base == 0
	if empty {
		t.markReadyLocked(err)
	}
	t.mu.Unlock()
	if empty {
		h.removeLocked(task, t)
	}
}

// errLogRestarted reports a log whose record numbers did not follow on.
var errLogRestarted = errBusy("relay: store: the task's log started over")

// runMirror copies t's log from the Store until ctx ends or the Store
// fails. After the first read it starts the leased follow when the task is
// not settled and the Handler has a Follower.
func (h *Handler) runMirror(ctx context.Context, t *task) error {
	after := "0"
	first := true
	for {
		wait := storeWait
		if first {
			wait = 0
		}
		recs, err := h.readAll(ctx, t.id, after, wait)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return h.storeFailed(t.id, err)
		}
		h.storeOK()
		t.mu.Lock()
		for _, rec := range recs {
			if t.storeN != 0 && rec.N != t.storeN+1 {
				t.mu.Unlock()
				h.cfg.logger.Warn("relay: store: the task's log started over or was trimmed past this reader",
					"task", t.id, "want", t.storeN+1, "got", rec.N)
				return errLogRestarted
			}
			t.storeN, t.storeAfter, after = rec.N, rec.ID, rec.ID
			h.mirrorLocked(t, rec)
		}
		if len(recs) > 0 && t.mirrored != nil {
			close(t.mirrored) // for awaitMirror, also when every record was a repeat
			t.mirrored = make(chan struct{})
		}
		settled, empty := t.settled, len(t.log) == 0
		if first && !empty {
			t.markReadyLocked(nil)
		}
		t.mu.Unlock()
		if first && empty && h.src == nil {
			// Nothing published it and nothing can follow it: the reader
			// gets 404 — or 503 when a publisher holds the task's lease
			// (its first op, or its view after the Store lost the log, is
			// on its way) or the Store lost the log a moment ago — and the task
			// leaves the map, so that a request for an unknown id holds
			// no mirror (as without a Store it holds nothing).
			var err error = &httpError{http.StatusNotFound, "relay: task not found"}
			leased, lerr := h.cfg.store.Leased(ctx, t.id)
			switch {
			case lerr != nil:
				err = h.storeFailed(t.id, lerr)
			case leased || h.wasLost(t.id):
				err = errBusy("relay: store: the task's log is being published or restored")
			}
			h.mu.Lock()
			t.mu.Lock()
			t.markReadyLocked(err)
			t.mu.Unlock()
			h.removeLocked(t.id, t)
			h.mu.Unlock()
			return nil
		}
		if first && !settled && h.src != nil {
			h.wg.Add(1)
			go func() {
				defer h.wg.Done()
				h.followShared(ctx, t)
			}()
		}
		first = false
	}
}

// readAll is Store.Read, and then, while a read brings more than one
// record, the next ones without waiting, up to the log's op cap: what a
// publisher appended at once (AppendAll: its view, put back) is applied at
// once, so that no reader takes a snapshot of a part of it.
func (h *Handler) readAll(ctx context.Context, task, after string, wait time.Duration) ([]Record, error) {
	recs, err := h.cfg.store.Read(ctx, task, after, wait)
	for n := len(recs); err == nil && n > 1 && len(recs) < h.cfg.maxOps; {
		var more []Record
		more, err = h.cfg.store.Read(ctx, task, recs[len(recs)-1].ID, 0)
		recs, n = append(recs, more...), len(more)
	}
	return recs, err
}

// mirrorLocked adds one Store record to t's log. The op is decoded and
// encoded again, so that what readers get is what this relay writes, and a
// record that repeats what the view has (a publisher putting its view back
// after a Store failure) is not served twice. The caller holds t.mu.
func (h *Handler) mirrorLocked(t *task, rec Record) {
	var op schema.Op
	if err := json.Unmarshal(rec.Op, &op); err != nil {
		h.cfg.logger.Warn("relay: store: a record is not an op; skipped", "task", t.id, "id", rec.ID, "err", err)
		return
	}
	data, err := json.Marshal(op)
	if err != nil {
		h.cfg.logger.Warn("relay: store: op not encodable; skipped", "task", t.id, "id", rec.ID, "err", err)
		return
	}
	if t.gone {
		return // its views gave their bytes back (removeLocked)
	}
	newTurn, res := t.views.applyResult(op)
	if res == merge.Duplicate {
		return
	}
	h.appendLocked(t, &entry{op: op, data: data, id: rec.ID}, newTurn)
}

// followShared follows t upstream while this process holds its lease and
// the task is not settled, so that one process per task asks the agent
// however many replicas serve it. A replica without the lease retries it,
// so that the task is followed on when the holder dies.
func (h *Handler) followShared(ctx context.Context, t *task) {
	st := h.cfg.store
	for {
		t.mu.RLock()
		settled := t.settled
		t.mu.RUnlock()
		if settled {
			return
		}
		ok, err := st.Lease(ctx, t.id, h.epoch, h.leaseTTL())
		switch {
		case err != nil && ctx.Err() == nil:
			h.refuseWaiting(t.id, h.storeFailed(t.id, err))
		case ok:
			// The previous holder may have settled the turn just before it
			// gave the lease back: look at the whole log first.
			if err := h.awaitMirror(ctx, t); err == nil {
				t.mu.RLock()
				settled = t.settled
				t.mu.RUnlock()
			}
			if settled {
				uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
				_ = st.Unlease(uctx, t.id, h.epoch)
				cancel()
				return
			}
			done, published, err := h.followLeased(ctx, t)
			if !done && !published && err != nil && ctx.Err() == nil {
				// The agent responded with nothing (an unknown task): the reader
				// gets its error, and the next one starts over.
				h.cfg.logger.Info("relay: follow ended", "task", t.id, "err", err)
				h.mu.Lock()
				t.mu.Lock()
				t.markReadyLocked(err)
				t.mu.Unlock()
				h.removeLocked(t.id, t)
				h.mu.Unlock()
				return
			}
			if done {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(storeRetry):
		}
	}
}

func (h *Handler) leaseTTL() time.Duration { return defaultLeaseTTL }

// followLeased runs one Follow of t under its lease, publishing to the
// Store, and gives the lease back. done: the turn settled.
func (h *Handler) followLeased(ctx context.Context, t *task) (done, published bool, err error) {
	release, err := h.reserveFollow(t)
	if err != nil {
		return false, false, err
	}
	defer release()
	h.shared.follows.Add(1)
	defer h.shared.follows.Add(-1)
	p := h.newPublisher(ctx, t.id, true) // renews the lease while it follows
	defer p.close()
	turn := h.dispatchedTurn(t.id)
	s, err := h.src.Follow(ctx, a2a.TaskID(t.id))
	if err != nil {
		return false, false, err
	}
	for u, err := range s.Updates() {
		if err != nil {
			return p.settled, p.published, err
		}
		if ctx.Err() != nil {
			return false, p.published, ctx.Err()
		}
		op, ok := u.Op()
		if !ok {
			continue
		}
		nameTurn(&op, t.id, turn)
		if op.Type == schema.OpResult && op.Result != nil && op.Result.Verdict == schema.VerdictIncomplete && !p.published {
			// As runFollow: a follow that got nothing is responded to with its
			// error, not with a stream that holds only "incomplete".
			continue
		}
		p.publish(op)
	}
	return p.settled, p.published, nil
}

// attachShared is Attach with a Store: the ops go to the Store, under the
// task's lease so that no replica follows it meanwhile.
func (h *Handler) attachShared(s *client.Stream) iter.Seq2[client.Update, error] {
	return func(yield func(client.Update, error) bool) {
		var p *publisher
		defer func() {
			if p != nil {
				p.close()
			}
		}()
		for u, err := range s.Updates() {
			if err == nil {
				if op, ok := u.Op(); ok && op.Task != "" && ValidateTaskID(op.Task) == nil {
					if p == nil || p.task != op.Task {
						if p != nil {
							p.close()
						}
						p = h.newPublisher(h.ctx, op.Task, true)
					}
					p.publish(op)
				}
			}
			if !yield(u, err) {
				return
			}
		}
	}
}

// A publisher appends one task's ops to the Store for one source (an
// attached stream, a leased follow). It keeps the view of what it
// published, so that after a failed append it puts the whole view back —
// into the same log when the Store kept it (readers' mirrors skip what
// they have), into a new one when the log was lost (readers' mirrors see
// it start over and send snapshots) — instead of leaving a cut.
type publisher struct {
	h    *Handler
	ctx  context.Context
	task string
	view *views
	// appended: an op of this publisher is in the log, so the next append
	// continues it. dirty: an append failed; the next one puts the view
	// back. settled: the view's latest turn has its result. published:
	// an op reached the Store.
	appended, dirty, settled, published bool
	stopLease                           func()
}

// newPublisher returns a publisher of task; lease: hold the task's lease
// while it publishes (Attach), so that replicas do not follow it.
func (h *Handler) newPublisher(ctx context.Context, task string, lease bool) *publisher {
	p := &publisher{h: h, ctx: ctx, task: task, view: newViews(task, nil), stopLease: func() {}}
	if lease {
		p.stopLease = h.holdLease(ctx, task)
	}
	return p
}

// holdLease takes task's lease and renews it until the returned func is
// called, which gives it back. A lease it cannot take is not an error: two
// sources of one task feed the same log, and readers apply an op once.
func (h *Handler) holdLease(ctx context.Context, task string) func() {
	st, ttl := h.cfg.store, h.leaseTTL()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		for {
			if _, err := st.Lease(ctx, task, h.epoch, ttl); err != nil && ctx.Err() == nil {
				_ = h.storeFailed(task, err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		uctx, ucancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer ucancel()
		_ = st.Unlease(uctx, task, h.epoch)
	}
}

// publish appends op, or puts the whole view back after a failure.
func (p *publisher) publish(op schema.Op) {
	newTurn, _ := p.view.applyResult(op)
	if newTurn {
		p.settled = false
	}
	settles := p.view.settles(op)
	if settles {
		p.settled = true
	}
	if p.dirty {
		p.republish()
		return
	}
	data, err := json.Marshal(op)
	if err != nil {
		p.h.cfg.logger.Warn("relay: op not encodable", "task", p.task, "err", err)
		return
	}
	if _, err := p.h.cfg.store.Append(p.ctx, p.task, data, p.appended, settles); err != nil {
		p.failed(err)
		if errors.Is(err, ErrLogLost) {
			p.republish()
		}
		return
	}
	p.appended, p.published = true, true
	p.h.storeOK()
}

func (p *publisher) failed(err error) {
	p.dirty = true
	if !errors.Is(err, ErrLogLost) {
		p.h.refuseWaiting(p.task, p.h.storeFailed(p.task, err))
		return
	}
	p.h.cfg.logger.Warn("relay: store lost the task's log; publishing the view again", "task", p.task)
}

// republish appends every op of the view at once (Store.AppendAll); it
// reports whether they went in.
func (p *publisher) republish() bool {
	snap := p.view.snapshot()
	ops := make([][]byte, 0, len(snap))
	for _, op := range snap {
		if data, err := json.Marshal(op); err == nil { // else said when it was published
			ops = append(ops, data)
		}
	}
	st := p.h.cfg.store
	err := st.AppendAll(p.ctx, p.task, ops, p.appended, p.settled)
	if errors.Is(err, ErrLogLost) && p.appended {
		err = st.AppendAll(p.ctx, p.task, ops, false, p.settled) // the log is gone: this starts a new one
	}
	if err != nil {
		p.failed(err)
		return false
	}
	p.appended, p.published, p.dirty = true, true, false
	p.h.storeOK()
	return true
}

// close ends the publisher: it gives the lease back, and when its last
// appends failed it keeps trying to put its view back in the background,
// for up to republishWindow.
func (p *publisher) close() {
	p.stopLease()
	if !p.dirty {
		return
	}
	h := p.h
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.wg.Add(1) // under mu, as sendAndServe: Close's Wait never races it
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(h.ctx, republishWindow)
		defer cancel()
		p.ctx = ctx
		for !p.republish() {
			select {
			case <-ctx.Done():
				h.cfg.logger.Error("relay: gave up putting a task's view back into the store", "task", p.task)
				return
			case <-time.After(storeRetry):
			}
		}
	}()
}

// syncShared makes a reader that resumes from cursor cur wait until t's
// mirror holds what the Store held when the reader came: another replica
// may have served it a record that this one has not read yet, and without
// the wait the reader would get a snapshot — every block again — instead of
// a resume. A cursor the Store no longer has still gets a snapshot.
func (h *Handler) syncShared(r *http.Request, t *task, cur string) error {
	if h.cfg.store == nil || cur == "" {
		return nil
	}
	t.mu.RLock()
	_, found := t.findRecord(cur)
	t.mu.RUnlock()
	if found {
		return nil
	}
	return h.awaitMirror(r.Context(), t)
}

// awaitMirror waits until t's mirror has applied every record the Store
// holds now, the task went, or the start timeout passed (then what the
// mirror has is served: a snapshot, then live).
func (h *Handler) awaitMirror(ctx context.Context, t *task) error {
	t.mu.RLock()
	after := t.storeAfter
	t.mu.RUnlock()
	var target uint64
	for {
		recs, err := h.cfg.store.Read(ctx, t.id, after, 0)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return h.storeFailed(t.id, err)
		}
		if len(recs) == 0 {
			break
		}
		target, after = recs[len(recs)-1].N, recs[len(recs)-1].ID
	}
	timer := time.NewTimer(h.cfg.startTimeout)
	defer timer.Stop()
	for {
		t.mu.RLock()
		// A target below what the mirror has is a log that started over:
		// the mirror drops the task.
		done := t.gone || t.storeN >= target
		next := t.mirrored
		t.mu.RUnlock()
		if done {
			return nil
		}
		select {
		case <-next:
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		}
	}
}
