package client

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

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
				_, err := io.ReadAll(newBoundedBody(io.NopCloser(r), nil, true, bounds{event: 64}))
				if got := errors.Is(err, ErrEventTooLarge); got != tc.over {
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
	b := bounds{response: 100}
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

// Each refusal of an oversize GetTask asks for less history, down to none,
// then stops asking.
func TestHistoryBoundShrinks(t *testing.T) {
	t.Parallel()
	var h historyBound
	var asked []string
	for range 10 {
		n, err := h.next(nil)
		if err != nil {
			asked = append(asked, "stop")
			break
		}
		if n == nil {
			asked = append(asked, "all")
		} else {
			asked = append(asked, strings.Repeat("i", *n))
		}
		_ = h.observe(ErrResponseTooLarge)
	}
	want := []string{"all", strings.Repeat("i", 32), "iiii", "", "stop"}
	if d := cmp.Diff(want, asked); d != "" {
		t.Fatalf("history asked (-want +got):\n%s", d)
	}
}

// A gRPC stream's event gets the per-event bound too: an update over it
// cuts the stream (gRPC refuses the message), and the turn is resolved
// the way any cut turn is — by GetTask, whose answer has the larger bound
// of a non-streaming call and backfills the refused block.
func TestGRPCStreamEventIsBounded(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Script{Name: "big-event", Final: a2a.TaskStateCompleted, FinalText: "ok",
		Steps: []agenttest.Step{{Text: strings.Repeat("y", 2<<20)}}})
	// Each resubscription while the turn still runs gets the oversize
	// message again (in the task's snapshot) and is cut again; the turn is
	// resolved once the agent has completed it. A few attempts with a
	// backoff let it get there on a loaded machine (with one attempt the
	// test raced the agent).
	cl := newForced(t, s, combo{a2a.TransportProtocolGRPC, agenttest.V1}, WithRetry(8, 20*time.Millisecond, 250*time.Millisecond), withBounds(bounds{response: defaultBounds.response, event: 1 << 20}))
	st, _ := cl.SendText(testCtx(t), "big-event")
	r := collect(t, st)
	if r.err != nil || r.out.Reply != "ok" || len(r.view.Blocks) != 1 {
		t.Fatalf("%s %q %v, %d blocks; want completed with the big block", r.out.State, r.out.Reply, r.err, len(r.view.Blocks))
	}
	var cut error
	for _, u := range r.updates {
		if u.Type == UpdateReconnect && cut == nil {
			cut = u.Err
		}
	}
	if cut == nil || !strings.Contains(cut.Error(), "larger than max") || !errors.Is(cut, ErrEventTooLarge) {
		t.Fatalf("first cut %v, want gRPC's refusal of a message over the event bound, matching ErrEventTooLarge", cut)
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
					r = newBoundedBody(io.NopCloser(r), nil, true, defaultBounds)
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

// A stream trickling one byte at a time inside an event is silence to the
// idle timeout (only a line end, or 16 KiB, counts); keep-alive comments
// are lines and keep a quiet stream alive.
func TestIdleTimeoutIgnoresATrickle(t *testing.T) {
	t.Parallel()
	trickle := func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateWorking, userMsg()))
		_, _ = w.w.Write([]byte("data: {"))
		w.w.(http.Flusher).Flush()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.r.Context().Done():
				return
			case <-tick.C:
				if _, err := w.w.Write([]byte(" ")); err != nil {
					return
				}
				w.w.(http.Flusher).Flush()
			}
		}
	}
	keepAlive := func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateWorking, userMsg()))
		for range 12 {
			time.Sleep(50 * time.Millisecond)
			w.comment()
		}
		w.event(completed("done"))
	}
	for _, tc := range []struct {
		name     string
		script   func(*sseWriter)
		wantIdle bool
	}{{"trickle", trickle, true}, {"keep-alive comments", keepAlive, false}} {
		t.Run(tc.name, func(t *testing.T) {
			a := newRawAgent(t, tc.script)
			a.setTask(taskEv(a2a.TaskStateCompleted, userMsg()))
			st, _ := a.client(t, WithIdleTimeout(time.Second), WithRetry(1, time.Millisecond, time.Millisecond)).Follow(testCtx(t), rawTask)
			r := collect(t, st)
			var cut error
			for _, u := range r.updates {
				if u.Type == UpdateReconnect && cut == nil {
					cut = u.Err
				}
			}
			if r.err != nil {
				t.Fatalf("stream: %v", r.err)
			}
			if got := errors.Is(cut, errIdle); got != tc.wantIdle {
				t.Fatalf("cut %v; want an idle cut: %v", cut, tc.wantIdle)
			}
		})
	}
}

// withBounds gives one test's client lower bounds than a peer may cost in
// production, without touching any other test's client.
func withBounds(b bounds) Option {
	return func(c *config) { c.bounds = b }
}
