package ssewire

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readAll(t *testing.T, r io.Reader, max int) ([]string, error) {
	t.Helper()
	rd := NewReader(r, max)
	var out []string
	for {
		data, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(data))
	}
}

func TestNext(t *testing.T) {
	cases := []struct {
		name string
		body string
		want []string
	}{
		{"LF", "id: 1\ndata: {\"a\":1}\n\ndata: b\n\n", []string{`{"a":1}`, "b"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"CR", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"mixed", "data: a\r\ndata: b\rdata: c\n\r\n", []string{"a\nb\nc"}},
		{"multi-line", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}},
		{"no space", "data:x\n\n", []string{"x"}},
		{"two spaces", "data:  x\n\n", []string{" x"}},
		{"field without colon", "data\ndata: x\n\n", []string{"\nx"}},
		{"comments", ": keep-alive\n\n: ping\ndata: x\n: mid\n\n", []string{"x"}},
		{"other fields", "event: e\nid: 7\nretry: 10\ndata: x\nfoo: bar\n\n", []string{"x"}},
		{"empty data skipped", "data:\n\ndata:\ndata:\n\ndata: y\n\n", []string{"y"}},
		{"unterminated last event", "data: a\n\ndata: b", []string{"a", "b"}},
		{"unterminated last line, terminated event", "data: a\n", []string{"a"}},
		{"CR at the end", "data: a\r", []string{"a"}},
		{"nothing", "", nil},
		{"only comments", ": x\n\n: y\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(c.body), iotest.OneByteReader(strings.NewReader(c.body))} {
				got, err := readAll(t, r, 0)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A CR that ends a line is not held back waiting for a possible LF: the
// event it completes is dispatched at once on a live stream.
func TestCRDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	go pw.Write([]byte("data: a\r\r"))
	rd := NewReader(pr, 0)
	data, err := rd.Next()
	if err != nil || string(data) != "a" {
		t.Fatalf("%q, %v", data, err)
	}
	go func() { pw.Write([]byte("\ndata: b\n\n")); pw.Close() }()
	data, err = rd.Next()
	if err != nil || string(data) != "b" {
		t.Fatalf("%q, %v", data, err)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := readAll(t, io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)), 0)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "SSE stream error") {
		t.Fatalf("err = %v", err)
	}
}

// The bound counts every line of an event, comments and field names
// included, not each line alone.
func TestBoundAcrossLines(t *testing.T) {
	line := "data: " + strings.Repeat("x", 100) + "\n"
	ok := strings.Repeat(line, 9) + "\n"
	if got, err := readAll(t, strings.NewReader(ok), len(ok)); err != nil || len(got) != 1 {
		t.Fatalf("%d events, %v", len(got), err)
	}
	over := strings.Repeat(line, 20) + "\n"
	got, err := readAll(t, strings.NewReader(ok+over), len(ok))
	if !errors.Is(err, ErrEventTooLarge) || len(got) != 1 {
		t.Fatalf("%d events, %v", len(got), err)
	}
	comments := strings.Repeat(": "+strings.Repeat("c", 100)+"\n", 20) + "data: x\n\n"
	if _, err := readAll(t, strings.NewReader(comments), len(ok)); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("comments: %v", err)
	}
	// One line with no end in sight: refused once over the bound.
	if _, err := readAll(t, io.MultiReader(strings.NewReader("data: "), endless{}), 1<<16); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("endless line: %v", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// lines is one event of n data lines of size bytes each, generated as read.
type lines struct {
	line    []byte
	n, off  int
	trailer bool
}

func (l *lines) Read(p []byte) (int, error) {
	if l.n == 0 {
		if !l.trailer {
			l.trailer = true
			return copy(p, "\n"), nil
		}
		return 0, io.EOF
	}
	k := copy(p, l.line[l.off:])
	l.off += k
	if l.off == len(l.line) {
		l.off, l.n = 0, l.n-1
	}
	return k, nil
}

// The hostile event: 1 MiB data lines without end. The default
// bound refuses it after 10 MiB, having held at most about that much.
func TestHostileManyLines(t *testing.T) {
	line := append(append([]byte("data: "), bytes.Repeat([]byte("y"), 1<<20)...), '\n')
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readAll(t, &lines{line: line, n: 100}, 0)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err = %v", err)
	}
	t.Log(err)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MiB to refuse it", alloc>>20)
	}
}

// After a large event the buffers go back to their small size.
func TestShrinks(t *testing.T) {
	big := "data: " + strings.Repeat("z", 1<<20) + "\ndata: z\n\n"
	rd := NewReader(strings.NewReader(big+"data: small\n\ndata: again\n\n"), 0)
	if data, err := rd.Next(); err != nil || len(data) != 1<<20+2 {
		t.Fatalf("%d, %v", len(data), err)
	}
	if data, err := rd.Next(); err != nil || string(data) != "small" {
		t.Fatalf("%q, %v", data, err)
	}
	if len(rd.buf) > shrinkAbove || cap(rd.join) > shrinkAbove {
		t.Errorf("buffers %d and %d bytes after the large event", len(rd.buf), cap(rd.join))
	}
}

// FuzzNext: any body, read whole or byte by byte, gives the same events,
// and never an event over the bound.
func FuzzNext(f *testing.F) {
	f.Add([]byte("data: a\r\ndata: b\r\rdata: c\n\n: x\n"), 8)
	f.Add([]byte("id: 1\ndata: {\"jsonrpc\":\"2.0\"}\n\n"), 0)
	f.Fuzz(func(t *testing.T, body []byte, max int) {
		max = max%64 + 1
		if max < 1 {
			max = -max + 1
		}
		a, errA := readAll(t, bytes.NewReader(body), max)
		b, errB := readAll(t, iotest.OneByteReader(bytes.NewReader(body)), max)
		if diff := cmp.Diff(a, b); diff != "" || (errA == nil) != (errB == nil) {
			t.Fatalf("whole vs byte by byte (%v, %v):\n%s", errA, errB, diff)
		}
		for _, ev := range a {
			if len(ev) > max {
				t.Fatalf("event of %d bytes over the bound %d", len(ev), max)
			}
		}
	})
}

// chunkReader returns its chunks one per Read (a peer writing at its own
// pace) and records, for each Read, the length asked for and the read
// buffer the Reader held meanwhile.
type chunkReader struct {
	chunks []string
	rd     *Reader
	reads  []readAt
}

type readAt struct{ Asked, Held int }

func (c *chunkReader) Read(p []byte) (int, error) {
	c.reads = append(c.reads, readAt{len(p), cap(c.rd.buf)})
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// A stream that has caught up with its peer waits on idleRead bytes, its
// read buffer back in the pool; an event longer than that continues in a
// pooled buffer.
func TestWaitsIdleSmall(t *testing.T) {
	long := strings.Repeat("x", 2000)
	src := &chunkReader{chunks: []string{"data: one\n\n", "data: two\n\n", "data: " + long + "\n\n", "data: three\n\n"}}
	rd := NewReader(src, 0)
	src.rd = rd
	var got []string
	for {
		data, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	if diff := cmp.Diff([]string{"one", "two", long, "three"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	want := []readAt{
		{initialBuffer, initialBuffer},            // the first read: the peer's pace is not known yet
		{idleRead, 0},                             // caught up: "two"
		{idleRead, 0},                             // the first idleRead bytes of the long event
		{initialBuffer - idleRead, initialBuffer}, // its rest, in a pooled buffer
		{idleRead, 0},                             // "three"
		{idleRead, 0},                             // the end
	}
	if diff := cmp.Diff(want, src.reads); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}
