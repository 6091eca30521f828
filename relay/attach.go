package relay

import (
	"iter"
	"time"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/schema"
)

// Attach publishes a turn the caller is already running — typically its own
// Client.Send — to the task's subscribers, without a second upstream.
//
// A Stream has one reader, so the relay does not read it behind the
// caller's back: Attach returns the stream's updates, unchanged, for the
// caller to iterate instead of s.Updates(), and publishes each update's op
// as it passes. Publishing never blocks on subscribers. After the loop,
// s.Outcome and s.View work as usual:
//
//	s, err := c.SendText(ctx, "summarise the incident")
//	for u, err := range h.Attach(s) {
//		… // the orchestrator's own handling, if any
//	}
//	out, err := s.Outcome()
//
// The task exists in the relay from the call to Attach on, when the stream
// already knows its id (s.TaskID(): a Send knows it when it returns): a
// subscriber that arrives before the first op waits for it — no 404, no
// Follow of its own, so every op reaches it once. Call Attach as soon as
// Send returns, and iterate what it returns (the task is held for the
// stream until the iteration ends). A stream that learns its task only
// later (an agent that responded with a Message first) is adopted at its
// first op that names one. While an attached stream runs, its task is not
// evicted and no Follow is started for it; a Follow that was running for
// the task (a subscriber came first) is stopped, as the stream now feeds
// the task. Breaking out of the loop detaches: subscribers then see the
// turn end unsettled and reconnect to a Follow.
func (h *Handler) Attach(s *client.Stream) iter.Seq2[client.Update, error] {
	if h.cfg.store != nil {
		return h.attachShared(s)
	}
	t := h.attachID(string(s.TaskID()), s.Turn())
	return func(yield func(client.Update, error) bool) {
		defer func() {
			if t == nil {
				return
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			t.attached--
			t.mu.RLock()
			settled := t.settled
			t.mu.RUnlock()
			if t.attached == 0 && !settled && t.follow == nil {
				h.removeLocked(t.id, t)
			}
			t.idleSince = time.Now()
		}()
		for u, err := range s.Updates() {
			if err == nil {
				if op, ok := u.Op(); ok && op.Task != "" && ValidateTaskID(op.Task) == nil {
					t = h.publishAttached(t, op)
				}
			}
			if !yield(u, err) {
				return
			}
		}
	}
}

// attachID adopts task id for an attached stream of turn before its first
// op; nil when id is empty or not valid, or the handler cannot hold it.
func (h *Handler) attachID(id, turn string) *task {
	if id == "" || ValidateTaskID(id) != nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.adoptLocked(nil, id, turn)
}

// adoptLocked makes t (nil: none yet) the task id held for an attached
// stream: the task in the map, created when missing, with the stream
// counted and any Follow of it stopped. It returns t unchanged when the
// handler is closed or full. The caller holds h.mu.
func (h *Handler) adoptLocked(t *task, id, turn string) *task {
	if h.closed {
		return t
	}
	cur := h.tasks[id]
	if cur == nil {
		var err error
		if cur, err = h.newTaskLocked(id); err != nil {
			h.cfg.logger.Warn("relay: attached stream not published", "task", id, "err", err)
			return t
		}
	}
	if t != nil {
		t.attached--
	}
	cur.attached++
	if h.cfg.started != nil {
		h.cfg.started.Add(id)
	}
	if cur.follow != nil {
		// The stream feeds the task now: a second feed would send every
		// op twice.
		cur.follow()
		cur.follow = nil
	}
	if turn != "" {
		cur.mu.Lock()
		if turn != cur.views.latest {
			cur.settled = false // a new turn of a settled task
		}
		cur.mu.Unlock()
	}
	return cur
}

// publishAttached publishes op of an attached stream, adopting its task
// when it has none (or its task was evicted).
//
// Once adopted, a task that is still in the map takes the op under its own
// lock alone, as a Follow's ops do: Handler.mu, shared by every task, is
// taken only to adopt one (Close evicts every task, so a closed handler
// never gets here with a live one).
func (h *Handler) publishAttached(t *task, op schema.Op) *task {
	if t != nil {
		t.mu.Lock()
		if !t.gone {
			h.publishLocked(t, op)
			t.mu.Unlock()
			return t
		}
		t.mu.Unlock()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	gone := true
	if t != nil {
		t.mu.RLock()
		gone = t.gone
		t.mu.RUnlock()
	}
	if gone {
		if t = h.adoptLocked(t, op.Task, ""); t == nil || h.tasks[op.Task] != t {
			return t
		}
	}
	t.mu.Lock()
	h.publishLocked(t, op)
	t.mu.Unlock()
	return t
}
