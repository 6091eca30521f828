// Package sseconform is the repository's one framing conformance table for
// Server-Sent Events readers: named cases (line ends, multi-line data,
// comments, the id/event/retry fields, a byte-order mark, a truncated last
// event, events at and one past the per-event bound, huge lines, …) that
// every SSE reader in the repository — the client's live-stream reader,
// the strict framer of recordings and /v1/query, the readers of test and
// benchmark code — runs through [Run].
//
// The table states the WHATWG EventSource rules, with the two choices a
// reader may make stated as [Rules]:
//
//   - DataOnly: the reader yields only the data of events whose data
//     holds something other than line breaks (a2a-go's rule for A2A
//     frames, which carry their type in the JSON); a strict reader yields
//     every event that has a field (an event of empty data, an id-only
//     event).
//   - Lenient: a body that ends inside an event yields that event (a JSON
//     decode of the cut frame then reports it); a strict reader ends with
//     [Truncated] instead.
//
// The per-event bound counts every line of one event — field names,
// comments and the blank line that ends it — each line end as one byte;
// for LF-ended lines that is the event's bytes on the wire. An event over
// the bound ends the stream with [TooLarge]; a2a-go bounds each line (10
// MiB) but not the event.
package sseconform

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// Event is one event as the table expects it.
type Event struct {
	ID, Event, Data, Retry string
	// HasData: the event had a data: line.
	HasData bool
}

// End is how a stream ends after its events.
type End int

// The ends of a stream.
const (
	// Clean: io.EOF after the events.
	Clean End = iota
	// TooLarge: an error matching ssewire.ErrEventTooLarge (the exported
	// client.ErrEventTooLarge).
	TooLarge
	// Truncated: an error matching ssewire.ErrTruncated (strict readers).
	Truncated
	// Other: any other error; a reader's adapter reports it as this and
	// the table never expects it.
	Other
)

func (e End) String() string {
	return [...]string{"Clean", "TooLarge", "Truncated", "Other"}[e]
}

// Case is one named input and what a strict reader yields from it.
type Case struct {
	Name string
	Body string
	// Max is the per-event bound; 0 means the reader's default (10 MiB).
	Max  int
	Want []Event
	End  End
	// Partial is the cut-short event a Lenient reader yields when End is
	// Truncated.
	Partial *Event
}

// Rules are the choices a reader makes where the table allows two.
type Rules struct {
	DataOnly bool
	Lenient  bool
}

// ReadFunc reads body with a per-event bound of max (0: its default) and
// returns what it yielded and how the stream ended. An adapter for a
// DataOnly reader returns Event{Data: …, HasData: true} for each event.
type ReadFunc func(body io.Reader, max int) ([]Event, End)

// Expect is what a reader following rules should yield for c.
func Expect(c Case, rules Rules) ([]Event, End) {
	want, end := c.Want, c.End
	if end == Truncated && rules.Lenient {
		want = append(append([]Event(nil), want...), *c.Partial)
		end = Clean
	}
	if !rules.DataOnly {
		return want, end
	}
	var out []Event
	for _, e := range want {
		if e.HasData && strings.Trim(e.Data, "\n") != "" {
			out = append(out, Event{Data: e.Data, HasData: true})
		}
	}
	return out, end
}

// CheckWhole runs read over c once, the whole body in one read (for a
// reader too slow for Check's one byte per read), and returns a diff, or "".
func CheckWhole(c Case, rules Rules, read ReadFunc) string {
	want, wantEnd := Expect(c, rules)
	got, end := read(strings.NewReader(c.Body), c.Max)
	return cmp.Diff(result{want, wantEnd}, result{got, end})
}

type result struct {
	Events []Event
	End    End
}

// Check runs read over c twice — the whole body in one read, and one byte
// per read — and returns a diff (want first) of what it yielded, or "".
func Check(c Case, rules Rules, read ReadFunc) string {
	want, wantEnd := Expect(c, rules)
	for _, mode := range []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return strings.NewReader(c.Body) }},
		{"one byte per read", func() io.Reader { return iotest.OneByteReader(strings.NewReader(c.Body)) }},
	} {
		got, end := read(mode.r(), c.Max)
		if d := cmp.Diff(result{want, wantEnd}, result{got, end}); d != "" {
			return fmt.Sprintf("%s (-want +got):\n%s", mode.name, d)
		}
	}
	return ""
}

// Run runs every case of the table against read as a subtest.
func Run(t *testing.T, rules Rules, read ReadFunc) {
	t.Helper()
	for _, c := range Table() {
		t.Run(c.Name, func(t *testing.T) {
			if d := Check(c, rules, read); d != "" {
				t.Error(d)
			}
		})
	}
}

// Table returns the cases; each call builds them anew.
func Table() []Case {
	d := func(data string) Event { return Event{Data: data, HasData: true} }
	oneEvent := "data: 0123456789\n\n" // 18 bytes: 17 of the line, 1 of the blank line
	huge := strings.Repeat("h", 1<<20)
	many := strings.Repeat("data: m\n\n", 1000)
	manyWant := make([]Event, 1000)
	for i := range manyWant {
		manyWant[i] = d("m")
	}
	return []Case{
		{Name: "empty body", Body: ""},
		{Name: "LF line ends", Body: "data: a\n\ndata: b\n\n", Want: []Event{d("a"), d("b")}},
		{Name: "CRLF line ends", Body: "data: a\r\n\r\ndata: b\r\n\r\n", Want: []Event{d("a"), d("b")}},
		{Name: "CR line ends", Body: "data: a\r\rdata: b\r\r", Want: []Event{d("a"), d("b")}},
		{Name: "mixed line ends", Body: "data: a\r\ndata: b\rdata: c\n\r\n", Want: []Event{d("a\nb\nc")}},
		{Name: "multi-line data", Body: "data: {\"a\":\ndata: 1}\n\n", Want: []Event{d("{\"a\":\n1}")}},
		{Name: "no space after the colon", Body: "data:x\n\n", Want: []Event{d("x")}},
		{Name: "only one leading space is dropped", Body: "data:  x\n\n", Want: []Event{d(" x")}},
		{Name: "a field without a colon", Body: "data\ndata: x\n\n", Want: []Event{d("\nx")}},
		{Name: "comments", Body: ": keep-alive\n\n: ping\ndata: x\n: mid\n\n", Want: []Event{d("x")}},
		{Name: "id, event and retry fields", Body: "event: e\nid: 7\nretry: 10\ndata: x\nfoo: bar\n\n",
			Want: []Event{{ID: "7", Event: "e", Retry: "10", Data: "x", HasData: true}}},
		{Name: "an id with NUL is ignored", Body: "id: a\x00b\ndata: x\n\n", Want: []Event{d("x")}},
		{Name: "an unknown field is ignored", Body: "foo: bar\n\ndata: x\n\n", Want: []Event{d("x")}},
		{Name: "empty data is an event", Body: "data:\n\ndata: y\n\n", Want: []Event{d(""), d("y")}},
		{Name: "data of only line breaks", Body: "data:\ndata:\n\ndata: y\n\n", Want: []Event{d("\n"), d("y")}},
		{Name: "an id-only event", Body: "id: 5\n\ndata: y\n\n", Want: []Event{{ID: "5"}, d("y")}},
		{Name: "NUL in data", Body: "data: a\x00b\n\n", Want: []Event{d("a\x00b")}},
		{Name: "byte-order mark at the start", Body: "\uFEFFdata: x\n\n", Want: []Event{d("x")}},
		{Name: "byte-order mark later is part of a field name", Body: "data: a\n\n\uFEFFdata: b\n\n", Want: []Event{d("a")}},
		{Name: "blank lines between events", Body: "\n\n\ndata: x\n\n\n\n", Want: []Event{d("x")}},
		{Name: "truncated last event", Body: "data: a\n\ndata: {\"b\":", Want: []Event{d("a")}, End: Truncated, Partial: &Event{Data: "{\"b\":", HasData: true}},
		{Name: "last event without its blank line", Body: "data: a\n", End: Truncated, Partial: &Event{Data: "a", HasData: true}},
		{Name: "last event ended by a lone CR", Body: "data: a\r", End: Truncated, Partial: &Event{Data: "a", HasData: true}},
		{Name: "trailing comment without a blank line", Body: "data: x\n\n: ping", Want: []Event{d("x")}},
		{Name: "event exactly at the bound", Body: oneEvent, Max: len(oneEvent), Want: []Event{d("0123456789")}},
		{Name: "event one past the bound", Body: oneEvent, Max: len(oneEvent) - 1, End: TooLarge},
		{Name: "the bound is per event", Body: oneEvent + oneEvent + oneEvent, Max: len(oneEvent), Want: []Event{d("0123456789"), d("0123456789"), d("0123456789")}},
		{Name: "the bound counts all lines of an event", Body: "data: 0123456789\ndata: 0123456789\n\n", Max: 30, End: TooLarge},
		{Name: "the bound counts comments", Body: ": " + strings.Repeat("c", 100) + "\ndata: x\n\n", Max: 64, End: TooLarge},
		{Name: "the bound after good events", Body: oneEvent + "data: " + strings.Repeat("y", 64) + "\n\n", Max: 32, Want: []Event{d("0123456789")}, End: TooLarge},
		{Name: "a huge line under the bound", Body: "data: " + huge + "\n\n", Max: 2 << 20, Want: []Event{d(huge)}},
		{Name: "a huge line over the bound", Body: "data: " + huge + "\n\n", Max: 64 << 10, End: TooLarge},
		{Name: "a huge line without an end", Body: "data: " + huge, Max: 64 << 10, End: TooLarge},
		{Name: "many small events", Body: many, Want: manyWant},
	}
}
