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
	// Event bounds one event of a stream we opened: every byte from the
	// end of the previous event (a blank line) to the end of this one,
	// all its data: lines and other fields included (a2a-go bounds each
	// line, 10 MiB, but joins the lines of one event without a bound).
	// The HTTP transports' SSE reader (internal/fastpath, ssewire) counts
	// it; gRPC bounds a stream's message with it.
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
// answer is cut at bounds.response; a stream's events are bounded by the
// SSE reader that reads them (internal/fastpath), not here — a second
// count of the same bytes would cost the per-event path a pass. Reads
// kick the watchdog (nil: no idle timeout) when a line ends in them
// (streams: a keep-alive comment is a line), when progressBytes more have
// arrived, and at the end of the body.
type boundedBody struct {
	io.ReadCloser
	w      *idle.Watchdog
	stream bool
	left   int64 // unary: bytes still allowed

	progress int64 // bytes since the last kick
	over     error // the bound's error, returned by every later read
}

// newBoundedBody wraps rc with the bounds b of a stream or of a unary
// call, kicking w (nil: none).
func newBoundedBody(rc io.ReadCloser, w *idle.Watchdog, stream bool, b Bounds) *boundedBody {
	return &boundedBody{ReadCloser: rc, w: w, stream: stream, left: b.Response}
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.over != nil {
		return 0, b.over
	}
	// One byte over a bound is enough to know it is exceeded; a read never
	// asks for more than that, so the peer's excess never reaches a2a-go.
	if !b.stream && int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
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
	b.tick(n, bytes.IndexByte(p[:n], '\n') >= 0 || bytes.IndexByte(p[:n], '\r') >= 0)
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
