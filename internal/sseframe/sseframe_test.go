package sseframe

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type result struct {
	Events []Event
	Err    string
}

func readAll(r io.Reader, max int) result {
	var res result
	fr := NewReader(r, max)
	for {
		ev, err := fr.Next()
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.Err = err.Error()
			return res
		}
		res.Events = append(res.Events, ev)
	}
}

func TestReader(t *testing.T) {
	ev := func(id, data string) Event { return Event{ID: id, Data: []byte(data), HasData: true} }
	tests := []struct {
		name string
		in   string
		max  int
		want result
	}{
		{name: "empty", in: "", want: result{}},
		{name: "one event", in: "data: {\"a\":1}\n\n", want: result{Events: []Event{ev("", `{"a":1}`)}}},
		{name: "id and multi-line data", in: "id: 7\ndata: a\ndata: b\n\n", want: result{Events: []Event{ev("7", "a\nb")}}},
		{name: "crlf", in: "data: x\r\n\r\ndata: y\r\n\r\n", want: result{Events: []Event{ev("", "x"), ev("", "y")}}},
		{name: "cr only", in: "data: x\r\rdata: y\r\r", want: result{Events: []Event{ev("", "x"), ev("", "y")}}},
		{name: "comments skipped", in: ": keepalive\n\ndata: x\n\n", want: result{Events: []Event{ev("", "x")}}},
		{name: "no space after colon", in: "data:x\n\n", want: result{Events: []Event{ev("", "x")}}},
		{name: "empty data is an event", in: "data:\n\n", want: result{Events: []Event{{HasData: true}}}},
		{name: "event name and retry", in: "event: status\nretry: 10\ndata: x\n\n", want: result{Events: []Event{{Event: "status", Retry: "10", Data: []byte("x"), HasData: true}}}},
		{name: "extra blank lines at end", in: "data: x\n\n\n\n", want: result{Events: []Event{ev("", "x")}}},
		{name: "truncated last frame", in: "data: x\n\ndata: {\"a\":", want: result{Events: []Event{ev("", "x")}, Err: "sseframe: stream ended inside an event (truncated last frame) (11 bytes after event 1)"}},
		{name: "last frame without blank line", in: "data: x\n", want: result{Err: "sseframe: stream ended inside an event (truncated last frame) (8 bytes after event 0)"}},
		{name: "trailing keep-alive without blank line", in: "data: x\n\n: ping\n", want: result{Events: []Event{ev("", "x")}}},
		{name: "trailing comment without newline", in: "data: x\n\n:", want: result{Events: []Event{ev("", "x")}}},
		{name: "unterminated id is a truncated event", in: "data: x\n\nid: 9\n", want: result{Events: []Event{ev("", "x")}, Err: "sseframe: stream ended inside an event (truncated last frame) (6 bytes after event 1)"}},
		{name: "event over the cap", in: "data: " + strings.Repeat("a", 100) + "\n\n", max: 64, want: result{Err: "sseframe: event larger than the cap of 64 bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, readAll(strings.NewReader(tc.in), tc.max)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			// One byte at a time must frame identically.
			if diff := cmp.Diff(tc.want, readAll(iotest.OneByteReader(strings.NewReader(tc.in)), tc.max)); diff != "" {
				t.Errorf("one-byte reads: mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEventsAreCopies(t *testing.T) {
	fr := NewReader(strings.NewReader("data: first\n\ndata: second\n\n"), 0)
	a, err := fr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fr.Next(); err != nil {
		t.Fatal(err)
	}
	if got := string(a.Data); got != "first" {
		t.Errorf("first event's data changed to %q after reading the next one", got)
	}
}

func TestErrorsAreSentinels(t *testing.T) {
	_, err := NewReader(strings.NewReader("data: x"), 0).Next()
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("err = %v, want ErrTruncated", err)
	}
	_, err = NewReader(strings.NewReader("data: xxxxxxxxxxxxxxxx\n\n"), 8).Next()
	if !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("err = %v, want ErrEventTooLarge", err)
	}
	_, err = NewReader(iotest.ErrReader(errors.New("boom")), 0).Next()
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want the body's error", err)
	}
}

// r3labs turns a body that fails with context.Canceled into io.EOF; the
// reader must report the cancellation, not a clean end.
func TestCanceledBodyIsNotAnEnd(t *testing.T) {
	body := io.MultiReader(strings.NewReader("data: x\n\n"), iotest.ErrReader(context.Canceled))
	fr := NewReader(body, 0)
	if ev, err := fr.Next(); err != nil || string(ev.Data) != "x" {
		t.Fatalf("first Next = %q, %v", ev.Data, err)
	}
	_, err := fr.Next()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled, not a clean end", err)
	}
}

// A live stream must deliver an event as soon as its blank line arrives,
// without waiting for the next event.
func TestNoReadAhead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	fr := NewReader(pr, 0)
	go func() { _, _ = pw.Write([]byte("data: live\n\n")) }()
	ev, err := fr.Next()
	if err != nil || string(ev.Data) != "live" {
		t.Fatalf("Next = %q, %v; want the event before more bytes arrive", ev.Data, err)
	}
}
