package transport

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// FuzzBoundedBody checks the per-event bound of a stream against a
// reference written from a2a-go's line scanner (lines end at "\n"; a line
// that is empty or a lone "\r" ends the event; every byte of an event
// counts, line ends included), whatever the chunks the body arrives in:
// the body is refused exactly when the reference finds an event over the
// bound, and everything before the refusal is passed on unchanged.
// Seeds: testdata/fuzz/FuzzBoundedBody.
func FuzzBoundedBody(f *testing.F) {
	f.Add([]byte("data: a\n\ndata: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n\n"), uint8(3))
	f.Add([]byte("data: 0123456789\r\ndata: 0123456789\r\n\r\n: c\n\n"), uint8(1))
	f.Add([]byte("\r\r\n\n\r\n"), uint8(2))
	const max = 32
	f.Fuzz(func(t *testing.T, body []byte, chunk uint8) {
		var r io.Reader = bytes.NewReader(body)
		if chunk%4 == 1 {
			r = iotest.OneByteReader(r)
		} else if chunk%4 == 2 {
			r = iotest.HalfReader(r)
		}
		got, err := io.ReadAll(newBoundedBody(io.NopCloser(r), nil, true, Bounds{Event: max}))
		want := referenceOver(body, max)
		if errors.Is(err, ssewire.ErrEventTooLarge) != want {
			t.Fatalf("refused: %v, reference: %v (%q)", err, want, body)
		}
		if !bytes.HasPrefix(body, got) {
			t.Fatalf("passed on %q, not a prefix of the body", got)
		}
	})
}

// referenceOver reports whether an event of body is over max bytes.
func referenceOver(body []byte, max int) bool {
	n := 0
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			if len(body) == 1 && body[0] == '\r' {
				return n > max // maybe a blank line's "\r": not counted
			}
			return n+len(body) > max
		}
		line := body[:i]
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			if n > max {
				return true
			}
			n = 0
		} else {
			n += len(line) + 1
			if n-1 > max {
				return true
			}
		}
		body = body[i+1:]
	}
	return n > max
}
