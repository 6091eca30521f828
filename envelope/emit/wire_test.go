package emit_test

import (
	"context"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/envelope/emit"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/schema"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// parallelAgent runs tools tool calls at once, each on its own goroutine
// of the execution, each with output long enough to be split.
type parallelAgent struct{ tools int }

// wireChunk is the chunk limit of parallelAgent's emitter: small, so that
// a call's output splits into three chunks at 2 KB. (At the default limit
// it took 20 KB a call, and a2a-go's task manager copies the whole
// history with gob at every event: under -race, seconds a transport.)
const wireChunk = 800

// toolOutput is the output of tool call i: ~2 KB of numbered lines, so
// SplitOutput cuts it into three chunks at wireChunk.
func toolOutput(i int) string {
	var b strings.Builder
	for n := 0; b.Len() < 2_000; n++ {
		fmt.Fprintf(&b, "tool %d line %04d: %s\n", i, n, strings.Repeat("x", 40))
	}
	return b.String()
}

func (x parallelAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		em := emit.New(ec, yield, emit.WithChunkLimit(wireChunk))
		defer em.Close()
		if err := em.Thinking("fan out"); err != nil {
			return
		}
		var wg sync.WaitGroup
		errs := make([]error, x.tools)
		for i := range x.tools {
			wg.Go(func() {
				call, err := em.ToolStart(fmt.Sprintf("tool-%d", i%3), fmt.Sprintf("call-%02d", i))
				if err == nil {
					err = call.Output(toolOutput(i))
				}
				if err == nil && i%4 == 3 {
					err = call.Aborted()
				} else if err == nil {
					err = call.Done()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				_ = em.Finish(a2a.TaskStateFailed, err.Error())
				return
			}
		}
		_ = em.Finish(a2a.TaskStateCompleted, fmt.Sprintf("%d tools ran", x.tools))
	}
}

func (parallelAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// serve serves x on 127.0.0.1 over JSON-RPC, REST and gRPC (A2A 1.0) and
// returns a client option set and URL per transport.
func serve(t *testing.T, x a2asrv.AgentExecutor) map[a2a.TransportProtocol]string {
	t.Helper()
	h := a2asrv.NewHandler(x)
	mux := http.NewServeMux()
	mux.Handle("/jsonrpc", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	grpcv1.NewHandler(h).RegisterWith(g)
	served := make(chan struct{})
	go func() { defer close(served); _ = g.Serve(ln) }()
	t.Cleanup(func() { g.Stop(); <-served })

	return map[a2a.TransportProtocol]string{
		a2a.TransportProtocolJSONRPC:  hs.URL + "/jsonrpc",
		a2a.TransportProtocolHTTPJSON: hs.URL + "/rest",
		a2a.TransportProtocolGRPC:     ln.Addr().String(),
	}
}

// TestOverTheWire: an agent whose goroutines emit at once, read by our
// client over every transport, gives the view its emitter promised.
func TestOverTheWire(t *testing.T) {
	const tools = 12
	urls := serve(t, parallelAgent{tools: tools})

	var want []schema.ToolCall
	applied := int64(1) // the thinking block
	for i := range tools {
		out := toolOutput(i)
		status := schema.ToolDone
		if i%4 == 3 {
			status = schema.ToolAborted
		}
		want = append(want, schema.ToolCall{
			Key: fmt.Sprintf("call-%02d", i), Tool: fmt.Sprintf("tool-%d", i%3), ToolCallID: fmt.Sprintf("call-%02d", i),
			Status: status, Started: true, Output: out,
			Chunks: len(envelope.SplitOutput(out, wireChunk)), Bytes: int64(len(out)),
		})
		applied += int64(2 + len(envelope.SplitOutput(out, wireChunk)))
	}

	for _, tr := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel() // one server, a task each
			ctx, cancel := context.WithTimeout(t.Context(), testdep.Budget(60*time.Second))
			defer cancel()
			c, err := client.New(ctx, urls[tr], client.WithTransport(tr),
				client.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s, err := c.SendText(ctx, "go")
			if err != nil {
				t.Fatal(err)
			}
			out, err := s.Run(func(client.Update) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if out.State != a2a.TaskStateCompleted || out.Reply != fmt.Sprintf("%d tools ran", tools) {
				t.Errorf("outcome %s %q", out.State, out.Reply)
			}
			v := s.View()
			got := slices.Clone(v.ToolCalls)
			slices.SortFunc(got, func(a, b schema.ToolCall) int { return strings.Compare(a.Key, b.Key) })
			// FirstSeq depends on how the goroutines interleaved.
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(schema.ToolCall{}, "FirstSeq")); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			// thinking + a start and an end per tool; chunks fold into the calls.
			if len(v.Blocks) != 1+2*tools {
				t.Errorf("%d blocks, want %d", len(v.Blocks), 1+2*tools)
			}
			// Every block applied once: nothing late, duplicate, missing or
			// fallen back.
			if diff := cmp.Diff(schema.Counters{Applied: applied}, v.Counters); diff != "" {
				t.Errorf("counters (-want +got):\n%s", diff)
			}
		})
	}
}
