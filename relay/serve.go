package relay

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/tfrs/a2a-progress/relay/internal/sse"
	"github.com/tfrs/a2a-progress/schema"
)

// ServeHTTP serves GET /tasks/{taskId}/events relative to where the handler
// is mounted (strip a prefix with http.StripPrefix), and its CORS preflight.
// Other paths get 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// ServeEvents serves the event stream of task to r, for routers that take
// the task id from the path themselves.
func (h *Handler) ServeEvents(w http.ResponseWriter, r *http.Request, task string) {
	h.cors(w, r)
	if err := ValidateTaskID(task); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := h.authorize(r, task); err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	name := r.URL.Query().Get("format")
	if name == "" {
		name = FormatOps
	}
	format := h.cfg.formats[name]
	if format == nil {
		format = builtinFormats[name]
	}
	if format == nil {
		writeError(w, http.StatusBadRequest, "relay: unknown format "+strconvQuote(name))
		return
	}
	enc, err := format(r, task)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	h.serveEncoder(w, r, task, enc)
}

// waitReady waits until t's upstream responded, so that an unknown task is a
// 404, not an empty stream.
func (h *Handler) waitReady(r *http.Request, t *task) error {
	timer := time.NewTimer(h.cfg.startTimeout)
	defer timer.Stop()
	select {
	case <-t.ready:
	case <-r.Context().Done():
		return r.Context().Err()
	case <-h.ctx.Done():
		return errBusy("relay: closed")
	case <-timer.C:
		return &httpError{http.StatusGatewayTimeout, "relay: agent did not respond in time"}
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.readyErr != nil && len(t.log) == 0 && t.base == 0 {
		return upstreamError(t.readyErr)
	}
	return nil
}

// resumeCursor is the cursor the request resumes after: Last-Event-ID (what
// EventSource sends on reconnect) first, then ?after=.
func resumeCursor(r *http.Request) string {
	if c := r.Header.Get("Last-Event-ID"); c != "" {
		return c
	}
	return r.URL.Query().Get("after")
}

// stream writes the subscription: a resume or a snapshot, then live ops
// until the turn settles, the task goes, the subscriber falls out of the
// log, a write fails or times out, or the request or handler ends. It runs
// on the request's goroutine: the relay starts none per subscriber or op.
// The work of each wake-up is in sub.begin and sub.step, so that the frame
// parked between ops stays small and an idle subscriber's stack shrinks
// back to its minimum.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, t *task, sub *subscriber, enc Encoder) {
	if err := h.syncShared(r, t, resumeCursor(r)); err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	ew := NewEventWriter(w)
	ew.SetWriteDeadline(time.Now().Add(h.cfg.writeTimeout))
	// The first write sends the headers with 200: Begin may still set some.
	if err := enc.Begin(hd, ew); err != nil {
		return
	}
	if ew.Retry(h.cfg.retry) != nil {
		return
	}
	st := &streamState{h: h, t: t, enc: enc, ew: ew}
	if !st.begin(resumeCursor(r)) {
		return
	}
	keep := time.NewTicker(h.cfg.keepAlive)
	defer keep.Stop()
	for st.step() {
		select {
		case <-sub.wake:
		case <-keep.C:
			ew.SetWriteDeadline(time.Now().Add(h.cfg.writeTimeout))
			if ew.Comment("keep-alive") != nil || ew.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			_ = enc.End(ew, false)
			_ = ew.Flush()
			return
		}
	}
}

// streamState is one subscription's position and what it sent.
type streamState struct {
	h     *Handler
	t     *task
	enc   Encoder
	ew    *EventWriter
	pos   uint64 // ops of the log the reader has
	sent  int
	last  *entry   // the settling op, resent to a reader that has it all
	batch []*entry // reused between steps
}

// begin positions the subscription after cursor when the log still holds
// it, and otherwise sends a snapshot. It reports whether to go on.
func (s *streamState) begin(cur string) bool {
	h, t := s.h, s.t
	t.mu.RLock()
	resumed := false
	if h.cfg.store != nil {
		s.pos, resumed = t.findRecord(cur)
	} else if c, ok := parseCursor(cur); ok && c.epoch == h.epoch && c.gen == t.gen && c.n >= t.base && c.n <= t.end() {
		s.pos, resumed = c.n, true
	}
	var snap []schema.Op
	var snapID string // the cursor of the snapshot's last event
	if !resumed {
		s.pos = t.end()
		snap = t.views.snapshot()
		snapID = h.eventID(t, t.lastEntry(), s.pos)
	}
	if n := len(t.log); t.settled && n > 0 {
		s.last = t.log[n-1]
	}
	t.mu.RUnlock()
	if resumed {
		return true
	}
	if s.enc.SnapshotStart(s.ew) != nil {
		return false
	}
	// Each op is encoded as it is written, outside the task's lock: a
	// subscription holds one op's JSON at a time, not its snapshot's. The
	// event before is held back until the next encodes, so that the last
	// one written carries the cursor.
	var held *Event
	for _, op := range snap {
		data, err := json.Marshal(op)
		if err != nil {
			// As publishLocked: said, not silently dropped.
			h.cfg.logger.Warn("relay: snapshot op not encodable", "task", t.id, "err", err)
			continue
		}
		if held != nil {
			if s.enc.Op(s.ew, *held) != nil {
				return false
			}
			s.sent++
		}
		held = &Event{Op: op, JSON: data, Snapshot: true}
	}
	if held != nil {
		held.ID = snapID
		if s.enc.Op(s.ew, *held) != nil {
			return false
		}
		s.sent++
	}
	return s.enc.SnapshotEnd(s.ew) == nil
}

// step sends what the log holds after the reader's position and flushes.
// It reports whether to wait for more.
func (s *streamState) step() bool {
	h, t, enc, ew := s.h, s.t, s.enc, s.ew
	t.mu.RLock()
	if s.pos < t.base {
		// Fell out of the log: too slow. Ending the response is the
		// bound; the reader's reconnect resumes or snapshots.
		t.mu.RUnlock()
		_ = enc.End(ew, false)
		_ = ew.Flush()
		return false
	}
	s.batch = append(s.batch[:0], t.log[s.pos-t.base:]...)
	from := s.pos
	s.pos = t.end()
	settled, gone := t.settled, t.gone
	t.mu.RUnlock()

	ew.SetWriteDeadline(time.Now().Add(h.cfg.writeTimeout))
	for i, e := range s.batch {
		ev := Event{Op: e.op, JSON: e.data, ID: h.eventID(t, e, from+uint64(i)+1)}
		if enc.Op(ew, ev) != nil {
			return false
		}
	}
	s.sent += len(s.batch)
	clear(s.batch)
	if cap(s.batch) > 64 {
		s.batch = nil // a burst's slice is not kept by an idle reader
	}
	if settled && s.sent == 0 && s.last != nil {
		ev := Event{Op: s.last.op, JSON: s.last.data, ID: h.eventID(t, s.last, s.pos)}
		if enc.Op(ew, ev) != nil {
			return false
		}
		s.sent++
	}
	if settled || gone {
		_ = enc.End(ew, settled)
		_ = ew.Flush()
		return false
	}
	return ew.Flush() == nil
}

func (h *Handler) authorize(r *http.Request, task string) error {
	if h.cfg.authorize == nil {
		return &httpError{http.StatusForbidden, "relay: no access policy configured"}
	}
	if err := h.cfg.authorize(r, task); err != nil {
		if errors.Is(err, ErrNotFound) {
			return &httpError{http.StatusNotFound, err.Error()}
		}
		return &httpError{http.StatusForbidden, err.Error()}
	}
	return nil
}

func statusOf(err error) int {
	var he *httpError
	if errors.As(err, &he) {
		return he.status
	}
	return http.StatusInternalServerError
}

// writeError is the one JSON error body of the relay and its front-end
// endpoints (sse.WriteError).
var writeError = sse.WriteError

func strconvQuote(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// cors sets the CORS headers for an allowed origin; nothing otherwise.
func (h *Handler) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || (!h.cfg.corsAny && !h.cfg.corsOrigins[origin]) {
		return false
	}
	w.Header().Set("Access-Control-Allow-Origin", origin)
	w.Header().Add("Vary", "Origin")
	w.Header().Set("Access-Control-Allow-Credentials", "true")
	return true
}

// preflight responds to the CORS preflight of the events endpoint.
func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) {
	h.respondPreflight(w, r, "GET", "Last-Event-ID, Authorization")
}

// respondPreflight responds to a CORS preflight for the origins given to
// WithCORS (403 for any other), allowing methods and headers.
func (h *Handler) respondPreflight(w http.ResponseWriter, r *http.Request, methods, headers string) {
	if !h.cors(w, r) {
		writeError(w, http.StatusForbidden, "relay: origin not allowed")
		return
	}
	w.Header().Set("Access-Control-Allow-Methods", methods)
	w.Header().Set("Access-Control-Allow-Headers", headers)
	w.Header().Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}
