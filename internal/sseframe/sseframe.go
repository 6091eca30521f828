// Package sseframe frames raw Server-Sent Events bodies that we obtain
// ourselves — recorded captures for `a2a-tail replay` and plain SSE
// endpoints that are not A2A — into events.
//
// It is the one seam around github.com/r3labs/sse/v2's EventStreamReader,
// whose traps it closes:
//   - the per-event cap is always set explicitly ([DefaultMaxEventBytes],
//     a2a-go's own 10 MiB line cap) and an event over it is an error,
//     [ErrEventTooLarge], not a silent stop;
//   - the slice r3labs returns is reused by its scanner, so every field is
//     copied before it leaves this package;
//   - r3labs returns a final block cut off at EOF as if it were complete; here
//     a last block with a field that was not terminated by a blank line is
//     reported as [ErrTruncated] and never returned as an event (the SSE
//     rule: an incomplete event at EOF is discarded); one holding only
//     comments ends the stream cleanly.
//
// Field parsing (data: joining, comments, id:, event:, retry:) follows the
// WHATWG EventSource rules.
package sseframe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/r3labs/sse/v2"
)

// DefaultMaxEventBytes is the per-event cap used when none is given: the
// same 10 MiB as a2a-go's SSE line cap.
const DefaultMaxEventBytes = 10 << 20

// Errors returned by Reader.Next.
var (
	// ErrTruncated: the stream ended inside an event (no terminating blank
	// line). The partial event is not returned.
	ErrTruncated = errors.New("sseframe: stream ended inside an event (truncated last frame)")
	// ErrEventTooLarge: one event is larger than the reader's cap.
	ErrEventTooLarge = errors.New("sseframe: event larger than the cap")
)

// Event is one framed SSE event. Data is the data: lines joined with "\n".
type Event struct {
	ID    string
	Event string
	Data  []byte
	Retry string
	// HasData is true when the event had at least one data: line (an event
	// whose data is the empty string is still an event).
	HasData bool
}

// Reader frames an SSE body. It is not safe for concurrent use.
type Reader struct {
	r        *sse.EventStreamReader
	tail     *tailReader
	max      int
	pending  []byte
	deferred error
	done     bool
	n        int
}

// NewReader returns a Reader over body with a per-event cap of maxEventBytes
// (DefaultMaxEventBytes when <= 0).
func NewReader(body io.Reader, maxEventBytes int) *Reader {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	t := &tailReader{r: body}
	return &Reader{r: sse.NewEventStreamReader(t, maxEventBytes), tail: t, max: maxEventBytes}
}

// Next returns the next event that carries a field. At the clean end of the
// stream it returns io.EOF; a last block without its terminating blank line
// gives ErrTruncated; an event over the cap gives an error wrapping
// ErrEventTooLarge; a read error of the body is returned wrapped.
// Blocks that hold only comments are skipped.
func (r *Reader) Next() (Event, error) {
	for {
		if r.done {
			return Event{}, io.EOF
		}
		raw, err := r.readBlock()
		if err != nil {
			r.done = true
			return Event{}, err
		}
		r.n++
		if ev, ok := parseBlock(raw); ok {
			return ev, nil
		}
	}
}

// readBlock returns the next raw block, copied. While the body has not hit
// EOF every block the scanner returns was terminated by a blank line (its
// split function only returns an unterminated block at EOF), so it is
// returned at once — no read-ahead that would delay a live stream. Once the
// body is at EOF, reading one block ahead costs nothing and tells whether
// the last block was terminated.
func (r *Reader) readBlock() ([]byte, error) {
	cur := r.pending
	r.pending = nil
	if cur == nil {
		b, err := r.read()
		if err != nil {
			return nil, err
		}
		cur = b
	}
	if !r.tail.eof {
		return cur, nil
	}
	next, err := r.read()
	switch {
	case err == io.EOF:
		r.done = true
		// An unterminated last block loses an event only if it holds a
		// field: a trailing keep-alive comment (": ping\n" as the server
		// closes) is no truncation, and on a /v1/query stream, whose end is
		// its completion, calling it one would fail a finished turn.
		if _, fields := parseBlock(cur); fields && !r.tail.terminated() {
			return nil, fmt.Errorf("%w (%d bytes after event %d)", ErrTruncated, len(cur), r.n)
		}
	case err != nil:
		r.deferred = err
	default:
		r.pending = next
	}
	return cur, nil
}

func (r *Reader) read() ([]byte, error) {
	if r.deferred != nil {
		err := r.deferred
		r.deferred = nil
		return nil, err
	}
	b, err := r.r.ReadEvent()
	if err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w of %d bytes", ErrEventTooLarge, r.max)
		}
		if err == io.EOF {
			// r3labs reports a body that failed with context.Canceled as a
			// clean EOF; a canceled read must not look like a complete stream.
			if r.tail.err != nil {
				return nil, fmt.Errorf("sseframe: reading body: %w", r.tail.err)
			}
			return nil, io.EOF
		}
		return nil, fmt.Errorf("sseframe: reading body: %w", err)
	}
	return bytes.Clone(b), nil
}

// tailReader remembers whether its reader reached EOF and the last bytes it
// returned.
type tailReader struct {
	r    io.Reader
	eof  bool
	err  error // the first read error other than io.EOF
	last [4]byte
	n    int
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for _, c := range p[:n] {
		copy(t.last[:], t.last[1:])
		t.last[3] = c
		t.n++
	}
	switch {
	case err == io.EOF:
		t.eof = true
	case err != nil && t.err == nil:
		t.err = err
	}
	return n, err
}

// terminated reports whether the body ended with a blank line (or was
// empty).
func (t *tailReader) terminated() bool {
	if t.n == 0 {
		return true
	}
	l := t.last[:]
	if t.n < 4 {
		l = l[4-t.n:]
	}
	return bytes.HasSuffix(l, []byte("\n\n")) || bytes.HasSuffix(l, []byte("\r\r")) ||
		bytes.HasSuffix(l, []byte("\n\r\n")) || bytes.HasSuffix(l, []byte("\r\n\n"))
}

// parseBlock applies the EventSource field rules to one raw block. It
// reports false for a block without any field (comments only, blank).
func parseBlock(b []byte) (Event, bool) {
	var ev Event
	var data bytes.Buffer
	any := false
	for len(b) > 0 {
		var line []byte
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			line, b = b, nil
		} else {
			line = b[:i]
			if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			b = b[i+1:]
		}
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if j := bytes.IndexByte(line, ':'); j >= 0 {
			name, value = line[:j], line[j+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			if ev.HasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			ev.HasData, any = true, true
		case "event":
			ev.Event, any = string(value), true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID, any = string(value), true
			}
		case "retry":
			ev.Retry, any = string(value), true
		}
	}
	if ev.HasData {
		ev.Data = data.Bytes()
	}
	return ev, any
}
