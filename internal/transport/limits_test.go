package transport

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tfrs/a2a-progress/internal/ssewire"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The event bound follows a2a-go's line scanner: an event ends at an empty
// line ("\n" or "\r\n"), and every byte of one event counts, all its lines
// together — whatever the chunks the body arrives in.
func TestBoundedBodyEvents(t *testing.T) {
	t.Parallel()
	line := "data: " + strings.Repeat("x", 20) + "\n" // 27 bytes
	for _, tc := range []struct {
		name string
		body string
		over bool
	}{
		{"many small events", strings.Repeat(line+"\n", 50), false},
		{"crlf blank lines", strings.Repeat(strings.TrimSuffix(line, "\n")+"\r\n\r\n", 50), false},
		{"one event of two lines", line + line + "\n", false},
		{"one event of three lines", line + line + line + "\n", true},
		{"a line over the bound", "data: " + strings.Repeat("y", 100) + "\n\n", true},
		{"no blank line at all", strings.Repeat("z", 200), true},
		{"comments without a blank line", strings.Repeat(": keep\n", 20), true},
		{"a lone cr is not a blank line", line + "\r" + line + line, true},
	} {
		for _, chunked := range []bool{false, true} {
			name := tc.name
			if chunked {
				name += "/one byte at a time"
			}
			t.Run(name, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tc.body)
				if chunked {
					r = iotest.OneByteReader(r)
				}
				_, err := io.ReadAll(newBoundedBody(io.NopCloser(r), nil, true, Bounds{Event: 64}))
				if got := errors.Is(err, ssewire.ErrEventTooLarge); got != tc.over {
					t.Fatalf("err = %v, want over the bound: %v", err, tc.over)
				}
			})
		}
	}
}

// A unary answer is bounded whatever it looks like: newlines and blank
// lines do not reset its count.
func TestBoundedBodyUnary(t *testing.T) {
	t.Parallel()
	b := Bounds{Response: 100}
	for _, tc := range []struct {
		size int
		over bool
	}{{100, false}, {101, true}, {10000, true}} {
		body := strings.Repeat("data: x\n\n", tc.size/9+1)[:tc.size]
		got, err := io.ReadAll(newBoundedBody(io.NopCloser(strings.NewReader(body)), nil, false, b))
		if errors.Is(err, ErrResponseTooLarge) != tc.over {
			t.Fatalf("size %d: err = %v, want over: %v", tc.size, err, tc.over)
		}
		if len(got) > 101 {
			t.Fatalf("size %d: read %d bytes past the bound", tc.size, len(got))
		}
		if tc.over {
			// The refusal sticks: a reader that tries again gets it again.
			body := newBoundedBody(io.NopCloser(strings.NewReader(body)), nil, false, b)
			_, _ = io.ReadAll(body)
			if n, err := body.Read(make([]byte, 10)); n != 0 || !errors.Is(err, ErrResponseTooLarge) {
				t.Fatalf("read after the refusal: %d, %v", n, err)
			}
		}
	}
}

// BenchmarkBoundedBody is the cost of the per-event bound on a stream read
// through a2a-go: the scan for line ends over typical 600-byte frames,
// against the same reads unwrapped.
func BenchmarkBoundedBody(b *testing.B) {
	frame := "id: 0b2f5a1c-3d4e-4f60-8a9b-0c1d2e3f4a5b\ndata: " + `{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"` + strings.Repeat("x", 400) + `"}]}}}}}` + "\n\n"
	body := strings.Repeat(frame, 1000)
	buf := make([]byte, 4096)
	for _, bounded := range []bool{false, true} {
		name := "raw"
		if bounded {
			name = "bounded"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var r io.Reader = strings.NewReader(body)
				if bounded {
					r = newBoundedBody(io.NopCloser(r), nil, true, DefaultBounds())
				}
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/event")
		})
	}
}
