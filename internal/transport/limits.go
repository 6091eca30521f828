package transport

import (
	"bytes"
	"errors"
	"io"

	"github.com/tfrs/a2a-progress/internal/idle"
	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// Bounds are what a peer's answer may cost, chosen from the call we made
// and never from what the peer says it sent (package client's doc,
// "Limits"). They are per client so that a test can lower them for its own
// client without blocking the other tests from running in parallel.
type Bounds struct {
	// response bounds the body of every call that is not a stream we
	// opened (GetTask, SendMessage, ListTasks, the agent card), whatever
	// its Content-Type: a2a-go decodes such a body whole.
	Response int64
	// event bounds one event of a stream we opened: every byte from the
	// end of the previous event (a blank line) to the end of this one,
	// all its data: lines and other fields included. a2a-go bounds each
	// line (10 MiB) but joins the lines of one event without a bound. The
	// fast path's bound (ssewire.DefaultMaxEventBytes) applies to the whole event.
	Event int64
	// Elements bounds the protobuf elements — nested messages and
	// length-delimited fields — of one received gRPC message, counted on
	// the wire before anything is built (countingCodec): a part of two
	// bytes on the wire costs some 250 bytes decoded, so a message within
	// the byte bounds could still decode to gigabytes.
	Elements int
}

// DefaultBounds returns the bounds of every client (a value: nothing in the
// process can change them for others; tests pass their own). 256 Ki
// elements cost some 65 MiB decoded, and leave room for a history of
// thousands of messages.
func DefaultBounds() Bounds {
	return Bounds{Response: 64 << 20, Event: ssewire.DefaultMaxEventBytes, Elements: 1 << 18}
}

// progressBytes is how much of a body must arrive to count as activity for
// the idle timeout when no line ends in it: a peer trickling a byte at a
// time does not keep a call alive, a slow link carrying a large answer
// does.
const progressBytes = 16 << 10

// ErrResponseTooLarge is the error of a unary answer longer than
// Bounds.Response (package client exports it under the same name).
var ErrResponseTooLarge = errors.New("client: answer over 64 MiB refused (a non-streaming answer is read whole; WithHistoryLength asks for less history)")

// boundedBody is a response body under the bounds of its call: a unary
// answer is cut at bounds.response, a stream's event at bounds.event.
// Reads kick the watchdog (nil: no idle timeout) when a line ends in them
// (streams: a keep-alive comment is a line), when progressBytes more have
// arrived, and at the end of the body.
type boundedBody struct {
	io.ReadCloser
	w      *idle.Watchdog
	stream bool
	left   int64 // unary: bytes still allowed
	max    int64 // stream: bytes one event may have

	event    int64 // stream: bytes of the current event so far
	lineLen  int64 // stream: bytes of the current line so far
	onlyCR   bool  // stream: the current line so far is a lone "\r", not counted yet
	progress int64 // bytes since the last kick
	over     error // the bound's error, returned by every later read
	// handed: the fast wire path reads this stream with its own SSE reader,
	// which bounds each event itself (ssewire.DefaultMaxEventBytes, WHATWG line ends: CR,
	// LF, CRLF). Scanning the same bytes here again would cost the per-event
	// path a second pass and apply other line rules (LF only), refusing a
	// stream of CR-ended events that the reader accepts; only the activity
	// signal stays.
	handed bool
}

// HandOver leaves the event bound to the fast wire path's reader (see
// boundedBody.handed): internal/fastpath calls it on the body of a stream
// it reads.
func (b *boundedBody) HandOver() { b.handed = true }

// newBoundedBody wraps rc with the bounds b of a stream or of a unary
// call, kicking w (nil: none).
func newBoundedBody(rc io.ReadCloser, w *idle.Watchdog, stream bool, b Bounds) *boundedBody {
	return &boundedBody{ReadCloser: rc, w: w, stream: stream, left: b.Response, max: b.Event}
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.over != nil {
		return 0, b.over
	}
	// One byte over a bound is enough to know it is exceeded; a read never
	// asks for more than that, so the peer's excess never reaches a2a-go.
	limit := b.left
	if b.stream {
		limit = b.max - b.event
	}
	if int64(len(p)) > limit+1 {
		p = p[:limit+1]
	}
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.w.Kick()
	}
	if n == 0 {
		return n, err
	}
	if !b.stream {
		b.left -= int64(n)
		b.tick(n, false)
		if b.left < 0 {
			b.over = ErrResponseTooLarge
			return n, b.over
		}
		return n, err
	}
	if b.handed {
		b.tick(n, bytes.IndexByte(p[:n], '\n') >= 0 || bytes.IndexByte(p[:n], '\r') >= 0)
		return n, err
	}
	over, ended := b.scan(p[:n])
	b.tick(n, ended)
	if over {
		b.over = ssewire.ErrEventTooLarge
		return n, b.over
	}
	return n, err
}

// tick counts n bytes of progress and kicks the watchdog when a line ended
// or enough bytes arrived.
func (b *boundedBody) tick(n int, lineEnded bool) {
	b.progress += int64(n)
	if lineEnded || b.progress >= progressBytes {
		b.progress = 0
		b.w.Kick()
	}
}

// scan follows the event boundaries of a stream chunk the way a2a-go's
// line scanner sees them — lines end at "\n", a trailing "\r" is dropped,
// an empty line ends the event — and reports whether the current event
// went over its bound, and whether a line ended in p.
//
// It is not a second framer (it yields nothing) but the bound of what
// a2a-go's framer joins, so it must see a2a-go's boundaries, not the
// WHATWG ones of internal/ssewire: counted by WHATWG rules, a peer ending
// each 1 MiB data line with "\r\r\n" would reset the count at every
// line ("\r\r" is a blank line there) while a2a-go, for which the same
// bytes are LF-ended data lines of one event, joins them without end.
func (b *boundedBody) scan(p []byte) (over, ended bool) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		switch {
		case len(seg) == 0:
		case b.lineLen == 0 && len(seg) == 1 && seg[0] == '\r':
			// Maybe the "\r" of a blank "\r\n" line, which ends the
			// event: counted only if the line goes on.
			b.onlyCR, b.lineLen = true, 1
		default:
			add := int64(len(seg))
			if b.onlyCR {
				add++ // the "\r" held back was the line's first byte
				b.onlyCR = false
			}
			b.lineLen += int64(len(seg))
			b.event += add
		}
		if b.event > b.max {
			return true, ended
		}
		if i < 0 {
			break
		}
		if b.lineLen == 0 || b.onlyCR {
			b.event = 0 // a blank line: the event is over
		} else {
			b.event++
		}
		b.lineLen, b.onlyCR, ended = 0, false, true
		p = p[i+1:]
	}
	return b.event > b.max, ended
}
