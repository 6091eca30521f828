// Package sseframe frames raw Server-Sent Events bodies that we obtain
// ourselves — recorded captures for `a2a-tail replay`, the plain SSE of a
// runtime's /v1/query stream, the relay's streams in its tests — into
// events with all their fields.
//
// It is a name for the strict mode of the repository's one SSE framer,
// internal/ssewire ([ssewire.NewStrictReader]): the same line rules (CR,
// LF, CRLF), the same per-event bound and the same [ErrEventTooLarge] as
// the client's live streams, with the rules of a body we frame for a
// reader of every field: id:, event: and retry: are kept, an event of
// empty data is an event, and a body that ends inside an event gives
// [ErrTruncated] (the partial event is never returned). Every field is a
// copy.
//
// github.com/r3labs/sse/v2, which the design names for this job, is no
// longer used here: its EventStreamReader fails the repository's framing
// conformance table (internal/sseconform; TestR3labsFailsTheTable runs it
// and names the cases): it returns an event cut off at the end of the body
// as if it were complete (three cases: a truncated last event, one without
// its blank line, one ended by a lone CR) and keeps a byte-order mark at
// the start of the stream as part of the first field name. Besides the
// table, it reports a body that failed with context.Canceled as a clean
// end, and an event over its cap as bufio's "token too long". Closing
// those around it took a second framer with its own cap and error; one
// framer is the point.
package sseframe

import (
	"io"

	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// DefaultMaxEventBytes is the per-event cap used when none is given: the
// same 10 MiB as a2a-go's SSE line cap.
const DefaultMaxEventBytes = ssewire.DefaultMaxEventBytes

// Errors returned by Reader.Next: the framer's own.
var (
	// ErrTruncated: the stream ended inside an event (no terminating blank
	// line). The partial event is not returned.
	ErrTruncated = ssewire.ErrTruncated
	// ErrEventTooLarge: one event is larger than the reader's cap.
	ErrEventTooLarge = ssewire.ErrEventTooLarge
)

// Event is one framed SSE event. Data is the data: lines joined with "\n".
type Event = ssewire.Event

// Reader frames an SSE body. It is not safe for concurrent use.
type Reader struct {
	r    *ssewire.Reader
	done bool
}

// NewReader returns a Reader over body with a per-event cap of maxEventBytes
// (DefaultMaxEventBytes when <= 0).
func NewReader(body io.Reader, maxEventBytes int) *Reader {
	return &Reader{r: ssewire.NewStrictReader(body, maxEventBytes)}
}

// Next returns the next event that carries a field. At the clean end of the
// stream it returns io.EOF; a last block without its terminating blank line
// gives ErrTruncated; an event over the cap gives an error wrapping
// ErrEventTooLarge; a read error of the body is returned wrapped.
// Blocks that hold only comments are skipped. After an error, Next returns
// io.EOF.
func (r *Reader) Next() (Event, error) {
	if r.done {
		return Event{}, io.EOF
	}
	ev, err := r.r.NextEvent()
	if err != nil {
		r.done = true
	}
	return ev, err
}
