// Package sse is the contract between package relay and the encoders of
// package relay/frontend: the Server-Sent Events writer, the event a
// subscriber gets and the Encoder of a wire format. Package relay names
// them relay.EventWriter, relay.Event and relay.Encoder (aliases), so that
// relay/frontend implements them without importing relay, which serves
// its encoders and endpoints.
package sse

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// Event is one op on its way to a subscriber.
type Event struct {
	// Op is the op.
	Op schema.Op
	// JSON is Op's JSON form, encoded once for every subscriber. It is
	// shared: do not modify it.
	JSON []byte
	// ID is the cursor to send with the event, "" when the event must not
	// move the reader's cursor (a snapshot's ops before its last one: a cut
	// in the middle of a snapshot must give a snapshot again on reconnect).
	ID string
	// Snapshot is true for the ops of a snapshot — the view as it is, sent
	// to a subscriber whose cursor the relay could not resume from — and
	// false for ops sent as they arrive.
	Snapshot bool
}

// An Encoder writes the events of one subscription in one wire format. The
// relay calls it from the subscription's goroutine only, so it may keep
// state (a format whose client checks event order tracks what it sent).
type Encoder interface {
	// Begin is called once, before any event, with the response headers
	// set (text/event-stream) and not yet sent: it may set more in h, then
	// write opening events (its first write sends the headers).
	Begin(h http.Header, ew *EventWriter) error
	// SnapshotStart and SnapshotEnd bracket the events of a snapshot
	// (SnapshotEnd also when the snapshot held no op).
	SnapshotStart(ew *EventWriter) error
	SnapshotEnd(ew *EventWriter) error
	// Op writes one op.
	Op(ew *EventWriter, ev Event) error
	// End is called when the response ends normally: settled is true when
	// the task's latest turn has its result, false when the relay ends the
	// response for another reason (upstream lost, subscriber too slow,
	// shutdown) and the reader should reconnect.
	End(ew *EventWriter, settled bool) error
}

// Budgeted is an Encoder that keeps a merged view of its own (the AG-UI and
// AI SDK encoders): a relay that serves it reserves StateBytes of the
// task's byte budget for the encoder's state and hands it, with SetBudget,
// the budget its merged view charges.
type Budgeted interface {
	StateBytes() int64
	SetBudget(b *merge.Budget)
}

// EventWriter writes Server-Sent Events to one response. A Format's
// [Encoder] writes through it; the relay flushes after each batch. It is
// used by the subscriber's goroutine only.
type EventWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	buf []byte
	err error
}

// NewEventWriter returns an EventWriter writing to w.
func NewEventWriter(w http.ResponseWriter) *EventWriter {
	return &EventWriter{w: w, rc: http.NewResponseController(w)}
}

// Event writes one event: an id: line when id is not empty, an event:
// line when event is not empty, and data split into one data: line per line
// of data ("\r\n", "\r" and "\n" all end a line, as the SSE parser reads
// them), so that any bytes reach the reader as the same data. Errors are
// sticky: after the first, Event does nothing and returns it.
func (ew *EventWriter) Event(id, event string, data []byte) error {
	if ew.err != nil {
		return ew.err
	}
	b := ew.buf[:0]
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, sanitizeField(id)...)
		b = append(b, '\n')
	}
	if event != "" {
		b = append(b, "event: "...)
		b = append(b, sanitizeField(event)...)
		b = append(b, '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		b = append(b, "data: "...)
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, '\n', '\n')
	ew.buf = b
	_, ew.err = ew.w.Write(b)
	return ew.err
}

// Comment writes an SSE comment line (": text"), which readers ignore; it
// keeps idle connections and proxies alive.
func (ew *EventWriter) Comment(text string) error {
	if ew.err != nil {
		return ew.err
	}
	_, ew.err = io.WriteString(ew.w, ": "+sanitizeField(text)+"\n\n")
	return ew.err
}

// Retry tells the reader how long to wait before it reconnects.
func (ew *EventWriter) Retry(d time.Duration) error {
	if ew.err != nil {
		return ew.err
	}
	_, ew.err = io.WriteString(ew.w, "retry: "+strconv.FormatInt(d.Milliseconds(), 10)+"\n\n")
	return ew.err
}

// Flush sends what was written to the client.
func (ew *EventWriter) Flush() error {
	if ew.err != nil {
		return ew.err
	}
	ew.err = ew.rc.Flush()
	return ew.err
}

// SetWriteDeadline bounds the writes until t.
func (ew *EventWriter) SetWriteDeadline(t time.Time) {
	_ = ew.rc.SetWriteDeadline(t) // unsupported by some test writers: then no deadline
}

// sanitizeField removes line breaks and NULs from a single-line SSE field,
// which would otherwise end the field or, for id, make the reader ignore it.
func sanitizeField(s string) string {
	if !bytes.ContainsAny([]byte(s), "\r\n\x00") {
		return s
	}
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		if c != '\r' && c != '\n' && c != 0 {
			out = append(out, c)
		}
	}
	return string(out)
}

// WriteError answers with status and a JSON body {"error": msg}, the one
// error body of the relay and its front-end endpoints; a 503 carries
// Retry-After.
func WriteError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "2")
	}
	w.WriteHeader(status)
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	_, _ = w.Write(append(b, '\n'))
}
