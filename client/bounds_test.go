package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/transport"
)

// A GetTask answer is decoded whole by a2a-go, so its body is bounded: a
// task whose history is over the bound resolves to an incomplete turn
// that says why, instead of being held in memory; one under it resolves.
// The bound is a test's own (withBounds), a 128 KiB one: what is checked is
// the bound, not its size, and a few MiB cost seconds under -race.
func TestGetTaskBodyIsBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		history int // bytes of agent text in the history
		wantErr bool
	}{
		{"under", 16 << 10, false},
		{"over", 256 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newRawAgent(t) // no stream: every subscription is refused
			var h []*a2a.Message
			h = append(h, userMsg())
			for i := range tc.history / (2 << 10) {
				m := envMsg(int64(i+1), strings.Repeat("x", 2<<10))
				h = append(h, m)
			}
			task := taskEv(a2a.TaskStateWorking, h...)
			task.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: &a2a.Message{ID: "final", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("done")}}}
			a.setTask(task)
			st, _ := a.client(t, WithRetry(1, 0, 0), withBounds(transport.Bounds{Response: 128 << 10, Event: transport.DefaultBounds().Event})).Follow(testCtx(t), rawTask)
			r := collect(t, st)
			if !tc.wantErr {
				if r.err != nil || r.out.Reply != "done" {
					t.Fatalf("stream %v, outcome %q", r.err, r.out.Reply)
				}
				return
			}
			if !errors.Is(r.err, ErrIncomplete) || !errors.Is(r.err, ErrResponseTooLarge) {
				t.Fatalf("err = %v, want an incomplete turn caused by the bound", r.err)
			}
		})
	}
}

// A settled task whose history is over gRPC's default 4 MiB message limit
// resolves over gRPC as it does over HTTP: the GetTask answer is taken up
// to the client's own bound.
func TestGRPCLongHistoryResolves(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	sc := agenttest.Script{Name: "long-history", Final: a2a.TaskStateCompleted, FinalText: "ok"}
	// 6 blocks, 4.7 MiB of history: five small, the last one large. a2asrv
	// deep-copies the whole task on every event, so a large message late
	// costs a fraction of six large ones under -race.
	for i := range 6 {
		size := 1 << 10
		if i == 5 {
			size = 4800 << 10
		}
		sc.Steps = append(sc.Steps, agenttest.Step{Text: strings.Repeat("y", size)})
	}
	s.Register(sc)
	for _, v := range agenttest.Versions() {
		c := combo{a2a.TransportProtocolGRPC, v}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			cl := newForced(t, s, c, fastRetry)
			st, _ := cl.SendText(testCtx(t), "long-history")
			if r := collect(t, st); r.err != nil {
				t.Fatalf("send: %v", r.err)
			}
			f, _ := cl.Follow(testCtx(t), st.TaskID()) // settled: GetTask
			r := collect(t, f)
			if r.err != nil || r.out.Reply != "ok" || len(r.view.Blocks) != 6 {
				t.Fatalf("follow: %s %q %v, %d blocks; want completed with 6 blocks", r.out.State, r.out.Reply, r.err, len(r.view.Blocks))
			}
		})
	}
}

// A GetTask answer over the bound on gRPC shrinks the history of the next
// one, as on HTTP: all, 32, 4, 0 — and the settled task resolves with
// what fits. The lengths asked are read off the calls by an interceptor.
// The bound is the test's own, 128 KiB (see TestGetTaskBodyIsBounded).
func TestGRPCOversizeGetTaskShrinksHistory(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	sc := agenttest.Script{Name: "oversize-history", Final: a2a.TaskStateCompleted, FinalText: "ok"}
	for range 6 { // 6 × 50 KiB: over the 128 KiB bound below at 4 messages too
		sc.Steps = append(sc.Steps, agenttest.Step{Text: strings.Repeat("y", 50<<10)})
	}
	s.Register(sc)
	c := combo{a2a.TransportProtocolGRPC, a2a.Version}
	var (
		mu    sync.Mutex
		asked []string
	)
	record := grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if strings.HasSuffix(method, "/GetTask") {
			m := req.(proto.Message).ProtoReflect()
			fd := m.Descriptor().Fields().ByName("history_length")
			mu.Lock()
			if m.Has(fd) {
				asked = append(asked, fmt.Sprint(m.Get(fd).Int()))
			} else {
				asked = append(asked, "all")
			}
			mu.Unlock()
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	})
	send := newForced(t, s, c, fastRetry)
	st, _ := send.SendText(testCtx(t), "oversize-history")
	if r := collect(t, st); r.err != nil {
		t.Fatalf("send: %v", r.err)
	}
	cl := newForced(t, s, c, WithRetry(4, time.Millisecond, time.Millisecond), WithGRPCDialOptions(record),
		withBounds(transport.Bounds{Response: 128 << 10, Event: transport.DefaultBounds().Event}))
	// Poll, not Follow: a subscription that reaches the execution before
	// a2a-go has ended it is answered with a snapshot, and no GetTask is
	// asked (seen once under load). Poll asks GetTask first, every time.
	f, _ := cl.Poll(testCtx(t), st.TaskID(), time.Millisecond)
	r := collect(t, f)
	if r.err != nil || r.out.Reply != "ok" {
		t.Fatalf("poll: %s %q %v; want completed", r.out.State, r.out.Reply, r.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"all", "32", "4", "0"}, asked); diff != "" {
		t.Errorf("GetTask history lengths (-want +got):\n%s", diff)
	}
}

// A settled task whose GetTask answer is over the bound even without
// history cannot heal: on every binding the GetTask is asked again at once
// with less history (all, 32, 4, none), then the turn ends incomplete
// with the reason — no further subscription, whatever WithRetry allows.
// The bound is the test's own, 128 KiB (see TestGetTaskBodyIsBounded).
func TestOversizeWithoutHistoryEndsAtOnce(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	// The verdict's own message is over the bound: no history length helps.
	s.Register(agenttest.Script{Name: "oversize-verdict", Final: a2a.TaskStateCompleted, FinalText: strings.Repeat("z", 256<<10)})
	for _, p := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
		c := combo{p, a2a.Version}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			send := newForced(t, s, c, fastRetry)
			st, _ := send.SendText(testCtx(t), "oversize-verdict")
			if r := collect(t, st); r.err != nil {
				t.Fatalf("send: %v", r.err)
			}
			var calls callLog
			cl := newForced(t, s, c, WithRetry(6, time.Millisecond, time.Millisecond), WithFactoryOptions(a2aclient.WithCallInterceptors(&calls)),
				withBounds(transport.Bounds{Response: 128 << 10, Event: transport.DefaultBounds().Event}))
			f, _ := cl.Follow(testCtx(t), st.TaskID())
			r := collect(t, f)
			if !errors.Is(r.err, ErrIncomplete) || !errors.Is(r.err, ErrResponseTooLarge) || !strings.Contains(r.err.Error(), "no retry can change this") {
				t.Fatalf("err = %v, want incomplete: over the bound without history, no retry can change this", r.err)
			}
			want := []string{"SubscribeToTask", "GetTask all", "GetTask 32", "GetTask 4", "GetTask 0"}
			if diff := cmp.Diff(want, calls.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// callLog records the calls a client makes, with GetTask's history length.
type callLog struct {
	a2aclient.PassthroughInterceptor
	mu    sync.Mutex
	calls []string
}

func (l *callLog) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	m := req.Method
	if g, ok := req.Payload.(*a2a.GetTaskRequest); ok {
		if g.HistoryLength == nil {
			m += " all"
		} else {
			m += fmt.Sprint(" ", *g.HistoryLength)
		}
	}
	l.mu.Lock()
	l.calls = append(l.calls, m)
	l.mu.Unlock()
	return ctx, nil, nil
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}
