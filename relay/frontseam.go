package relay

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/tfrs/a2a-progress/relay/internal/seam"
)

// This file is what package relay/frontend uses of a Handler beyond the
// public API, handed over through relay/internal/seam so that none of it is
// this package's API.

func init() {
	seam.HostOf = func(h any) any { return frontHost{h.(*Handler)} }
	seam.NewEventWriter = func(w http.ResponseWriter) any { return newEventWriter(w) }
}

// frontHost is a Handler as relay/frontend sees it.
type frontHost struct{ h *Handler }

// Serve asks the Authorizer whether r may watch task, then serves the
// task's subscription with enc, as ServeEvents does with the encoder of
// the request's format.
func (f frontHost) Serve(w http.ResponseWriter, r *http.Request, task string, enc Encoder) {
	if err := f.h.authorize(r, task); err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	f.h.serveEncoder(w, r, task, enc)
}

// Admit sets the CORS headers of a request that opens a turn and asks the
// Authorizer with the task "" (no task exists yet). It reports false when
// the Authorizer refused, with the error already written.
func (f frontHost) Admit(w http.ResponseWriter, r *http.Request) bool {
	f.h.cors(w, r)
	if err := f.h.authorize(r, ""); err != nil {
		writeError(w, statusOf(err), err.Error())
		return false
	}
	return true
}

// Authorize asks the Authorizer whether r may use task (read it, answer
// it); the error carries the status to answer (404 for a task it may not
// know, 403 otherwise).
func (f frontHost) Authorize(r *http.Request, task string) (status int, err error) {
	if err := f.h.authorize(r, task); err != nil {
		return statusOf(err), err
	}
	return 0, nil
}

// Conversation is the A2A context id to send a browser's conversation id
// under (TaskSet.Conversation of the set given to WithStartedTasks); id
// itself without a set, as every task is then readable too.
func (f frontHost) Conversation(id string, create bool) string {
	if f.h.cfg.started == nil {
		return id
	}
	return f.h.cfg.started.Conversation(id, create)
}

// Preflight answers a CORS preflight for the origins given to WithCORS,
// allowing methods and headers.
func (f frontHost) Preflight(w http.ResponseWriter, r *http.Request, methods, headers string) {
	f.h.answerPreflight(w, r, methods, headers)
}

// Hold counts a running turn of the front-end endpoints, a goroutine that
// must end before Close returns, and reserves what its stream holds in the
// handler's budget as a Follow's is (followBytes: the turn it merges runs
// in the endpoints' agent, as a Follow's in the Follower). It returns the
// context that ends when the Handler closes and the func that ends the
// count, or a 503 error once the Handler is closed, WithMaxTurns turns
// run, or the budget has no room.
func (f frontHost) Hold() (context.Context, func(), error) {
	h := f.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, errBusy("relay: closed")
	}
	if h.held >= h.cfg.maxTurns {
		h.refused.Add(1)
		return nil, nil, errBusy("relay: too many turns running")
	}
	n := h.followBytes()
	if h.bytes.Load()+n > int64(h.cfg.maxBytes) || !h.merged.Reserve(n) {
		h.refused.Add(1)
		return nil, nil, errBusy("relay: memory budget reached (the tasks held and their turns use it all)")
	}
	h.held++
	h.wg.Add(1) // under mu, so that Close's Wait never races a late Add
	return h.ctx, func() {
		h.merged.Release(n)
		h.mu.Lock()
		h.held--
		h.mu.Unlock()
		h.wg.Done()
	}, nil
}

// Context ends when the Handler closes.
func (f frontHost) Context() context.Context { return f.h.ctx }

// Store is the Handler's shared Store, nil without one.
func (f frontHost) Store() Store { return f.h.cfg.store }

// StoreFailed records a failed Store call (said in the log and in Stats).
func (f frontHost) StoreFailed(task string, err error) { _ = f.h.storeFailed(task, err) }

// Logger is the Handler's logger (WithLogger).
func (f frontHost) Logger() *slog.Logger { return f.h.cfg.logger }

// serveEncoder serves task's subscription with enc, charging an encoder
// that keeps a view of its own (seam.Budgeted) to the task's budget.
func (h *Handler) serveEncoder(w http.ResponseWriter, r *http.Request, task string, enc Encoder) {
	t, sub, err := h.acquire(task)
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	defer h.release(t, sub)
	if fs, ok := enc.(seam.Budgeted); ok {
		b, err := h.reserveFront(t, fs.StateBytes())
		if err != nil {
			writeError(w, statusOf(err), err.Error())
			return
		}
		defer b.ReleaseAll()
		fs.SetBudget(b)
	}
	if err := h.waitReady(r, t); err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	h.stream(w, r, t, sub, enc)
}
