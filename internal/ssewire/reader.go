// Package ssewire is the repository's one Server-Sent Events framer: the
// client's live streams read with [Reader.Next], recordings (`a2a-tail
// replay`), /v1/query and the relay's tests with the strict
// [Reader.NextEvent], all with one per-event bound and one
// [ErrEventTooLarge], which the client exports as client.ErrEventTooLarge.
// Every mode passes the framing conformance table of internal/sseconform.
//
// github.com/r3labs/sse/v2, which the design names for framing raw
// bodies, is not used for it: its EventStreamReader fails that table
// (TestR3labsFailsTheTable runs it and names the cases): it returns an
// event cut off at the end of the body as if it were complete (a
// truncated last event, one without its blank line, one ended by a lone
// CR) and keeps a byte-order mark at the start of the stream as part of
// the first field name. Besides the table, it reports a body that failed
// with context.Canceled as a clean end, and an event over its cap as
// bufio's "token too long". Closing those around it took a second framer
// with its own cap and error; one framer is the point.
//
// Next reads the data of events from a live A2A streaming response, for
// the client's fast wire path. It does what
// a2a-go's own reader does — each event's data: lines joined with "\n" —
// with three differences that matter on a long-lived stream from a peer we
// do not control:
//
//   - A bound per event, counted over all its lines (field names,
//     comments and line breaks included): an event over it ends the stream
//     with [ErrEventTooLarge]. a2a-go bounds each line (10 MiB) but not the
//     event, so a peer that splits one event over many 1 MiB lines grows
//     its buffer without limit. [DefaultMaxEventBytes] is a2a-go's line
//     bound, so every event a2a-go reads as one line is read here too.
//   - No fixed 64 KiB buffer per stream: the buffer starts at
//     [initialBuffer] bytes, grows only as far as the longest line needs, and
//     shrinks back once a large event has been consumed; a stream that
//     has caught up with its peer waits between events on [idleRead]
//     bytes, its buffer back in a pool shared by all readers.
//   - WHATWG line rules: a line ends at CR, LF or CRLF (a2a-go's line
//     scanner knows LF and CRLF only); a line "data" without a colon is a
//     data field with an empty value; one leading space of a value is
//     dropped; a byte-order mark at the start of the stream is dropped.
//   - Each byte is scanned for a line end once, however the peer splits
//     its writes: a 10 MiB line trickled in one-byte reads costs 10 MiB of
//     scanning, not the square of it.
//
// Like a2a-go, it dispatches an event whose data holds something other
// than line breaks (an event of empty data: lines is skipped), ignores the
// event:, id: and retry: fields (A2A frames carry their type in the JSON),
// and dispatches an event that the clean end of the body cut short (the
// JSON decode of a truncated frame reports it): a truncated frame then
// fails the same way on both paths. Comments are skipped; their bytes have
// already counted as liveness for the idle timeout, which watches the
// body's reads, not the events.
package ssewire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxEventBytes bounds one event when the caller passes no bound:
// 10 MiB, a2a-go's bound for one SSE line, so that a Task snapshot a2a-go
// would read is read here as well.
const DefaultMaxEventBytes = 10 << 20

// initialBuffer is the read buffer a stream starts with; it holds a few
// typical 500–700-byte frames, so a fast stream is read in few calls.
const initialBuffer = 4 << 10

// hotBuffer is the read buffer of a busy stream (hotAfter reads in a row
// filled the buffer): a few reads per hundred frames instead of one per
// handful. After coolAfter reads in a row that did not fill it, the stream
// has caught up with its peer and goes back to initialBuffer: the many
// concurrent, mostly quiet Follows of an orchestrator wait on 4 KiB each.
const (
	hotBuffer = 32 << 10
	hotAfter  = 8
	coolAfter = 2
)

// idleRead is what a stream that has caught up with its peer waits on:
// a read into the Reader's own idleRead bytes, its read buffer returned
// to a pool shared by all Readers until data arrives. A caught-up stream
// is most often a quiet one (a Follow waiting for the agent's next step),
// and an orchestrator holds thousands; between events each then keeps
// idleRead bytes instead of initialBuffer. A stream read at its peer's
// pace pays a pool round trip and a copy of at most idleRead bytes per
// wait, no allocation.
const idleRead = 512

// pool holds the initialBuffer-sized read buffers of waiting streams.
var pool = sync.Pool{New: func() any { return new([initialBuffer]byte) }}

// shrinkAbove: a buffer (read or join) grown past this size is released
// once the event that needed it has been consumed, so that one large
// snapshot does not pin megabytes for the rest of a long stream.
const shrinkAbove = 64 << 10

// ErrEventTooLarge is matched (errors.Is) by the error of an event over
// the reader's bound. It is the repository's one such error: the client
// exports it as client.ErrEventTooLarge, and every stream reader — this
// one, the a2a-go fallback's bound, gRPC's message bound, recordings and
// /v1/query — reports an oversize event with it.
var ErrEventTooLarge = errors.New("stream event over 10 MiB refused (the bound is on one SSE event, all its lines together)")

// ErrTruncated is matched by the error of a strict Reader
// ([NewStrictReader]) whose body ended inside an event: a field was read
// but no blank line ended the event. The partial event is not returned.
var ErrTruncated = errors.New("SSE stream ended inside an event (truncated last frame)")

// Event is one event with all its fields, as [Reader.NextEvent] returns it.
type Event struct {
	ID    string
	Event string
	// Data is the event's data: lines joined with "\n"; it is a copy.
	Data  []byte
	Retry string
	// HasData is true when the event had at least one data: line (an
	// event whose data is the empty string is still an event).
	HasData bool
}

var bom = []byte("\uFEFF")

// Reader reads events from an SSE body. It is not safe for concurrent use.
type Reader struct {
	src     io.Reader
	max     int
	buf     []byte
	r, w    int    // unread bytes are buf[r:w]
	join    []byte // the joined data of a multi-line event
	err     error  // the body's error, returned once buf is drained
	skipLF  bool   // the last line ended with CR: a following LF is its CRLF
	full    int    // reads in a row that filled the buffer
	partial int    // reads in a row that did not
	events  int    // dispatched so far, for diagnostics
	idle    [idleRead]byte

	// strict: NextEvent's rules (see NewStrictReader); ev collects the
	// current event's other fields and fields says whether it had one.
	strict bool
	fields bool
	begun  bool // a line has been read: a byte-order mark is no longer stripped
	seen   int  // bytes of buf[r:w] already scanned for a line end
	ev     Event
}

// NewStrictReader returns a Reader for [Reader.NextEvent]: the WHATWG
// rules for a body we frame ourselves (recordings, plain SSE endpoints):
// an event is dispatched when it has any field (data:, event:, id: with no
// NUL, retry:), an event of empty data included, and a body that ends
// inside an event gives [ErrTruncated] instead of the partial event.
// Comments are skipped; a trailing comment without a blank line is no
// truncation.
func NewStrictReader(src io.Reader, maxEventBytes int) *Reader {
	rd := NewReader(src, maxEventBytes)
	rd.strict = true
	return rd
}

// NextEvent returns the next event of a strict Reader, its fields copied.
// Errors are those of Next, and ErrTruncated.
func (rd *Reader) NextEvent() (Event, error) {
	data, err := rd.Next()
	if err != nil {
		return Event{}, err
	}
	ev := rd.ev
	if ev.HasData {
		ev.Data = bytes.Clone(data)
		if ev.Data == nil {
			ev.Data = []byte{}
		}
	}
	return ev, nil
}

// NewReader returns a Reader of src with a bound of maxEventBytes per
// event (DefaultMaxEventBytes when ≤ 0).
func NewReader(src io.Reader, maxEventBytes int) *Reader {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	return &Reader{src: src, max: maxEventBytes}
}

// Next returns the data of the next event. The slice is valid until the
// next call; it may point into the read buffer. At the clean end of the
// body Next returns io.EOF; an event over the bound gives an error that
// wraps ErrEventTooLarge; a read error of the body is returned wrapped
// ("SSE stream error: …", as a2a-go says it).
func (rd *Reader) Next() ([]byte, error) {
	rd.shrink()
	rd.join = rd.join[:0]
	rd.fields, rd.ev = false, Event{}
	var (
		single    []byte // the event's only data line so far, still in buf
		hasSingle bool
		lines     int // data lines
		size      int // bytes of the event's lines, terminators included
	)
	for {
		if rd.skipLF && rd.r < rd.w {
			if rd.buf[rd.r] == '\n' {
				rd.r++
			}
			rd.skipLF = false
		}
		unread := rd.buf[rd.r:rd.w]
		// Only the bytes not scanned before: a line that arrives in many
		// small reads is scanned once, not once per read.
		i := lineEnd(unread[rd.seen:])
		if i >= 0 {
			i += rd.seen
		}
		var line []byte
		switch {
		case i >= 0:
			line = unread[:i]
			if unread[i] == '\r' {
				rd.skipLF = true
			}
			rd.r += i + 1
			rd.seen = 0
		case rd.err != nil:
			if len(unread) == 0 {
				return rd.end(single, hasSingle, lines, size)
			}
			// The body ended inside a line: it is the last line, and has
			// no terminator to count.
			line = unread
			rd.r = rd.w
			rd.seen = 0
			size--
		default:
			if size+len(unread) > rd.max {
				return nil, rd.tooLarge(size + len(unread))
			}
			// Filling may move the buffer: the pending data line moves to
			// join first.
			if hasSingle {
				rd.join = append(rd.join, single...)
				single, hasSingle = nil, false
			}
			rd.seen = len(unread)
			rd.fill(size == 0)
			continue
		}
		if !rd.begun {
			// WHATWG: one byte-order mark at the start of the stream is
			// not part of the first line.
			rd.begun = true
			line = bytes.TrimPrefix(line, bom)
		}
		size += len(line) + 1
		if size > rd.max {
			return nil, rd.tooLarge(size)
		}
		if len(line) == 0 {
			if data, ok := rd.dispatch(single, hasSingle, lines); ok {
				return data, nil
			}
			rd.join = rd.join[:0]
			rd.fields, rd.ev = false, Event{}
			single, hasSingle, lines, size = nil, false, 0, 0
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if j := bytes.IndexByte(line, ':'); j >= 0 {
			name, value = line[:j], line[j+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(name) != "data" {
			if rd.strict {
				rd.field(name, value)
			}
			continue
		}
		lines++
		switch {
		case lines == 1:
			single, hasSingle = value, true
		default:
			if hasSingle {
				rd.join = append(rd.join, single...)
				single, hasSingle = nil, false
			}
			rd.join = append(rd.join, '\n')
			rd.join = append(rd.join, value...)
		}
	}
}

// lineEnd returns the index of the first CR or LF in b, or -1: two
// vectorised scans, where bytes.IndexAny walks byte by byte.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	scope := b
	if i >= 0 {
		scope = b[:i]
	}
	if j := bytes.IndexByte(scope, '\r'); j >= 0 {
		return j
	}
	return i
}

// field records a field other than data: for a strict Reader.
func (rd *Reader) field(name, value []byte) {
	switch string(name) {
	case "event":
		rd.ev.Event, rd.fields = string(value), true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			rd.ev.ID, rd.fields = string(value), true
		}
	case "retry":
		rd.ev.Retry, rd.fields = string(value), true
	}
}

// dispatch returns the event's data, unless it holds nothing but line
// breaks (strict: unless it has no field at all).
func (rd *Reader) dispatch(single []byte, hasSingle bool, lines int) ([]byte, bool) {
	data := rd.join
	if hasSingle {
		data = single
	}
	if rd.strict {
		if lines == 0 && !rd.fields {
			return nil, false
		}
		rd.ev.HasData = lines > 0
		rd.events++
		return data, true
	}
	if lines == 0 {
		return nil, false
	}
	if len(bytes.Trim(data, "\n")) == 0 {
		return nil, false
	}
	rd.events++
	return data, true
}

// end is the body's end: a pending event is dispatched (see the package
// doc) or, by a strict Reader, refused as truncated; then the body's error.
func (rd *Reader) end(single []byte, hasSingle bool, lines, size int) ([]byte, error) {
	if rd.strict && (lines > 0 || rd.fields) && rd.err == io.EOF {
		rd.err = fmt.Errorf("%w (%d bytes after event %d)", ErrTruncated, size, rd.events)
		return nil, rd.err
	}
	if data, ok := rd.dispatch(single, hasSingle, lines); ok {
		return data, nil
	}
	if rd.err == io.EOF {
		return nil, io.EOF
	}
	return nil, fmt.Errorf("SSE stream error: %w", rd.err)
}

func (rd *Reader) tooLarge(n int) error {
	rd.err = ErrEventTooLarge
	rd.r, rd.w, rd.seen = 0, 0, 0
	return fmt.Errorf("%w: event %d has more than %d bytes (at least %d read); the stream is cut here",
		ErrEventTooLarge, rd.events+1, rd.max, n)
}

// fill reads more of the body, moving the unread bytes to the front and
// growing the buffer when a line fills it. between: no event has begun
// (no line of one read yet), so a stream that has caught up may wait idle.
func (rd *Reader) fill(between bool) {
	if between && rd.r == rd.w && rd.partial > 0 {
		rd.waitIdle()
		return
	}
	if rd.buf == nil {
		rd.buf = pool.Get().(*[initialBuffer]byte)[:]
	}
	if rd.r > 0 {
		n := copy(rd.buf, rd.buf[rd.r:rd.w])
		rd.r, rd.w = 0, n
	}
	switch hot := rd.full >= hotAfter; {
	case rd.w == len(rd.buf) || hot && len(rd.buf) < hotBuffer:
		// The line is longer than the buffer (the bound on the event
		// bounds this growth), or the stream is busy: fewer, larger reads.
		size := 2 * len(rd.buf)
		if hot {
			size = max(size, hotBuffer)
		}
		nb := make([]byte, min(size, rd.max+1))
		copy(nb, rd.buf[:rd.w])
		rd.buf = nb
	case rd.partial >= coolAfter && len(rd.buf) > initialBuffer && rd.w <= initialBuffer/2:
		// The stream has caught up with its peer: a quiet stream
		// waits on a small buffer.
		nb := make([]byte, initialBuffer)
		copy(nb, rd.buf[:rd.w])
		rd.buf = nb
	}
	free := len(rd.buf) - rd.w
	n, err := rd.src.Read(rd.buf[rd.w:])
	rd.w += n
	// A read that fills the buffer found more waiting; one that does not
	// found the peer's pace.
	if n == free {
		rd.full, rd.partial = rd.full+1, 0
	} else {
		rd.full, rd.partial = 0, rd.partial+1
	}
	if err != nil {
		// A read of 0, nil is not an error: the next fill tries again.
		rd.err = err
	}
}

// waitIdle is fill for a stream that has caught up with its peer and has
// nothing unread: its read buffer goes back to the pool (one of another
// size to the garbage collector) while it waits on rd.idle, and what the
// read brought is moved into a pooled buffer.
func (rd *Reader) waitIdle() {
	if cap(rd.buf) == initialBuffer {
		pool.Put((*[initialBuffer]byte)(rd.buf[:initialBuffer]))
	}
	rd.buf, rd.r, rd.w, rd.seen = nil, 0, 0, 0
	n, err := rd.src.Read(rd.idle[:])
	if err != nil {
		rd.err = err
	}
	if n > 0 {
		rd.buf = pool.Get().(*[initialBuffer]byte)[:]
		rd.w = copy(rd.buf, rd.idle[:n])
	}
}

// shrink releases buffers that a large event grew.
func (rd *Reader) shrink() {
	if cap(rd.join) > shrinkAbove {
		rd.join = nil
	}
	if len(rd.buf) > max(shrinkAbove, hotBuffer) && rd.w-rd.r <= initialBuffer {
		nb := make([]byte, initialBuffer)
		rd.w = copy(nb, rd.buf[rd.r:rd.w])
		rd.r = 0
		rd.buf = nb
	}
}
