package sseframe

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader frames arbitrary bytes under a small cap. Properties: no
// panic; the reader ends (io.EOF or an error) in at most one step per
// input byte; no event's data is larger than the cap; a stream of whole
// events (ending in a blank line) is never reported truncated.
// Seeds: testdata/fuzz/FuzzReader.
func FuzzReader(f *testing.F) {
	f.Add([]byte("data: a\ndata: b\n\n: keep-alive\n\nid: 1\nevent: x\ndata:\n\n"))
	f.Add([]byte("data: cut"))
	f.Add([]byte("data: a\r\n\r\ndata: b\r\r"))
	const max = 64
	f.Fuzz(func(t *testing.T, body []byte) {
		r := NewReader(bytes.NewReader(body), max)
		for i := 0; ; i++ {
			if i > len(body)+1 {
				t.Fatalf("more than %d events from %d bytes", i, len(body))
			}
			ev, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrEventTooLarge) {
					t.Fatalf("unexpected error: %v", err)
				}
				if errors.Is(err, ErrTruncated) && (bytes.HasSuffix(body, []byte("\n\n")) || bytes.HasSuffix(body, []byte("\r\n\r\n"))) {
					t.Fatalf("whole events reported truncated: %q", body)
				}
				return
			}
			if len(ev.Data) > max {
				t.Fatalf("event data of %d bytes over the cap %d", len(ev.Data), max)
			}
		}
	})
}
