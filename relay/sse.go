package relay

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"time"
)

// EventWriter writes Server-Sent Events to one response. A Format's
// [Encoder] writes through it; the relay flushes after each batch. It is
// used by the subscriber's goroutine only.
type EventWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	buf []byte
	err error
}

func newEventWriter(w http.ResponseWriter) *EventWriter {
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

// comment writes an SSE comment line (": text"), which readers ignore; it
// keeps idle connections and proxies alive.
func (ew *EventWriter) comment(text string) error {
	if ew.err != nil {
		return ew.err
	}
	_, ew.err = io.WriteString(ew.w, ": "+sanitizeField(text)+"\n\n")
	return ew.err
}

// retry tells the reader how long to wait before it reconnects.
func (ew *EventWriter) retry(d time.Duration) error {
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

func (ew *EventWriter) deadline(t time.Time) {
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
