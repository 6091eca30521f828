package relay

import (
	"iter"
	"time"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/merge"
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
// While an attached stream runs, its task is not evicted and no Follow is
// started for it (a subscriber that arrives before the stream named its task
// may start one; both feed the same log, and receivers apply a repeated op
// once). Breaking out of the loop detaches: subscribers then see the turn
// end unsettled and reconnect to a Follow.
func (h *Handler) Attach(s *client.Stream) iter.Seq2[client.Update, error] {
	if h.cfg.store != nil {
		return h.attachShared(s)
	}
	return func(yield func(client.Update, error) bool) {
		var t *task
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

// publishAttached publishes op of an attached stream, adopting its task on
// the first op.
//
// Once adopted, a task that is still in the map takes the op under its own
// lock alone, as a Follow's ops do: Handler.mu, shared by every task, is
// taken only to adopt one (first op, or after the task was evicted — Close
// evicts every task, so a closed handler never gets here with a live one).
func (h *Handler) publishAttached(t *task, op merge.Op) *task {
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
	if h.closed {
		return t
	}
	gone := false
	if t != nil {
		t.mu.RLock()
		gone = t.gone
		t.mu.RUnlock()
	}
	if t == nil || gone {
		cur := h.tasks[op.Task]
		if cur == nil {
			var err error
			if cur, err = h.newTaskLocked(op.Task); err != nil {
				h.cfg.logger.Warn("relay: attached stream not published", "task", op.Task, "err", err)
				return t
			}
		}
		if t != nil {
			t.attached--
		}
		t = cur
		t.attached++
	}
	t.mu.Lock()
	h.publishLocked(t, op)
	t.mu.Unlock()
	return t
}
