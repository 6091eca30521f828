package ssewire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/r3labs/sse/v2"

	"github.com/tfrs/a2a-progress/internal/sseconform"
)

// r3labs/sse/v2's EventStreamReader, which the design names for framing
// raw bodies, run through the same table (its blocks' fields parsed by
// our strict reader, so only its framing is judged): the cases it fails
// are why the package doc says it is not used. If a new version passes
// them, this test says so and the choice can be revisited.
func TestR3labsFailsTheTable(t *testing.T) {
	read := func(body io.Reader, max int) ([]sseconform.Event, sseconform.End) {
		if max <= 0 {
			max = DefaultMaxEventBytes
		}
		er := sse.NewEventStreamReader(body, max)
		var out []sseconform.Event
		for {
			block, err := er.ReadEvent()
			switch {
			case err == io.EOF:
				return out, sseconform.Clean
			case errors.Is(err, bufio.ErrTooLong):
				return out, sseconform.TooLarge
			case err != nil:
				return out, sseconform.Other
			}
			// A leading blank line: a byte-order mark r3labs leaves at
			// the start of a block is judged as r3labs' (a field name),
			// not stripped by the parser as at the start of a stream.
			fr := NewStrictReader(bytes.NewReader(append(append([]byte("\n"), block...), "\n\n"...)), 0)
			for {
				ev, err := fr.NextEvent()
				if err != nil {
					break
				}
				out = append(out, sseconform.Event{ID: ev.ID, Event: ev.Event, Data: string(ev.Data), Retry: ev.Retry, HasData: ev.HasData})
			}
		}
	}
	var failed []string
	for _, c := range sseconform.Table() {
		if d := sseconform.CheckWhole(c, sseconform.Rules{}, read); d != "" {
			failed = append(failed, c.Name)
			t.Logf("%s:\n%s", c.Name, d)
		}
	}
	want := []string{
		"byte-order mark at the start",
		"truncated last event",
		"last event without its blank line",
		"last event ended by a lone CR",
	}
	if d := cmp.Diff(want, failed); d != "" {
		t.Errorf("cases r3labs fails (-want +got):\n%s", d)
	}
}

func TestEventsAreCopies(t *testing.T) {
	fr := NewStrictReader(strings.NewReader("data: first\n\ndata: second\n\n"), 0)
	a, err := fr.NextEvent()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fr.NextEvent(); err != nil {
		t.Fatal(err)
	}
	if got := string(a.Data); got != "first" {
		t.Errorf("first event's data changed to %q after reading the next one", got)
	}
}

func TestErrorsAreSentinels(t *testing.T) {
	_, err := NewStrictReader(strings.NewReader("data: x"), 0).NextEvent()
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("err = %v, want ErrTruncated", err)
	}
	_, err = NewStrictReader(strings.NewReader("data: xxxxxxxxxxxxxxxx\n\n"), 8).NextEvent()
	if !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("err = %v, want ErrEventTooLarge", err)
	}
	_, err = NewStrictReader(iotest.ErrReader(errors.New("boom")), 0).NextEvent()
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want the body's error", err)
	}
}

// r3labs turns a body that fails with context.Canceled into io.EOF; the
// reader must report the cancellation, not a clean end.
func TestCanceledBodyIsNotAnEnd(t *testing.T) {
	body := io.MultiReader(strings.NewReader("data: x\n\n"), iotest.ErrReader(context.Canceled))
	fr := NewStrictReader(body, 0)
	if ev, err := fr.NextEvent(); err != nil || string(ev.Data) != "x" {
		t.Fatalf("first Next = %q, %v", ev.Data, err)
	}
	_, err := fr.NextEvent()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled, not a clean end", err)
	}
}

// A live stream must deliver an event as soon as its blank line arrives,
// without waiting for the next event.
func TestNoReadAhead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	fr := NewStrictReader(pr, 0)
	go func() { _, _ = pw.Write([]byte("data: live\n\n")) }()
	ev, err := fr.NextEvent()
	if err != nil || string(ev.Data) != "live" {
		t.Fatalf("Next = %q, %v; want the event before more bytes arrive", ev.Data, err)
	}
}

// FuzzNextEvent frames arbitrary bytes under a small cap. Properties: no
// panic; the reader ends (io.EOF or an error) in at most one step per
// input byte; no event's data is larger than the cap; a stream of whole
// events (ending in a blank line) is never reported truncated.
// Seeds: testdata/fuzz/FuzzNextEvent.
func FuzzNextEvent(f *testing.F) {
	f.Add([]byte("data: a\ndata: b\n\n: keep-alive\n\nid: 1\nevent: x\ndata:\n\n"))
	f.Add([]byte("data: cut"))
	f.Add([]byte("data: a\r\n\r\ndata: b\r\r"))
	const max = 64
	f.Fuzz(func(t *testing.T, body []byte) {
		r := NewStrictReader(bytes.NewReader(body), max)
		for i := 0; ; i++ {
			if i > len(body)+1 {
				t.Fatalf("more than %d events from %d bytes", i, len(body))
			}
			ev, err := r.NextEvent()
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
