package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/flood"
	"github.com/tfrs/a2a-progress/internal/transport"
)

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
	cl := newForced(t, s, combo{a2a.TransportProtocolGRPC, agenttest.V1}, WithRetry(8, 20*time.Millisecond, 250*time.Millisecond), withBounds(transport.Bounds{Response: transport.DefaultBounds().Response, Event: 1 << 20}))
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
func withBounds(b transport.Bounds) Option {
	return func(c *config) { c.bounds = b }
}

// A gRPC message is bounded in what it builds, not only in its bytes: an
// event of many tiny parts (two bytes each on the wire, hundreds decoded)
// is refused before it is unmarshalled, as an event over the bound; one
// under the element bound is taken. a2a-go's own gRPC server sends it.
func TestGRPCTinyPartsAreBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		parts   int
		refused bool
	}{{400, false}, {5000, true}} {
		t.Run(fmt.Sprint(tc.parts, " parts"), func(t *testing.T) {
			t.Parallel()
			parts := make(a2a.ContentParts, tc.parts)
			for i := range parts {
				parts[i] = a2a.NewTextPart("")
			}
			info := a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}
			p := &flood.Peer{Events: func(yield func(a2a.Event, error) bool) {
				_ = yield(&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil) &&
					yield(a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, &a2a.Message{ID: "m1", Role: a2a.MessageRoleAgent, Parts: parts}), nil) &&
					yield(a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted, &a2a.Message{ID: "f", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("done")}}), nil)
			}}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := grpc.NewServer()
			grpcv1.NewHandler(p).RegisterWith(srv)
			go func() { _ = srv.Serve(ln) }()
			t.Cleanup(srv.Stop)
			cl, err := New(testCtx(t), "http://"+ln.Addr().String(), WithTransport(a2a.TransportProtocolGRPC), insecureGRPC,
				WithRetry(1, time.Millisecond, time.Millisecond), withBounds(transport.Bounds{Response: 1 << 20, Event: 1 << 20, Elements: 1000}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cl.Close() })
			st, _ := cl.Follow(testCtx(t), "t1")
			r := collect(t, st)
			if !tc.refused {
				if r.err != nil || r.out.Reply != "done" {
					t.Fatalf("err = %v, reply %q; want completed", r.err, r.out.Reply)
				}
				return
			}
			if !errors.Is(r.err, ErrIncomplete) || !errors.Is(r.err, ErrEventTooLarge) || !strings.Contains(r.err.Error(), "over 1000 protobuf elements") {
				t.Fatalf("err = %v, want incomplete: the event over the element bound refused", r.err)
			}
		})
	}
}
