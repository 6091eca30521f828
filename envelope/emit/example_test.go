package emit_test

import (
	"context"
	"fmt"
	"iter"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/envelope/emit"
)

// orderAgent is an a2asrv executor that reports its progress with an
// Emitter.
type orderAgent struct{}

func (orderAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		em := emit.New(ec, yield, emit.WithStartSeq(100))
		defer em.Close() // yield must not be called once Execute has returned
		if err := lookUp(em); err != nil {
			// ErrStopped: a2asrv takes no more events; anything else is ours.
			_ = em.Finish(a2a.TaskStateFailed, err.Error())
			return
		}
		_ = em.Finish(a2a.TaskStateCompleted, "Order 42 has shipped.")
	}
}

func lookUp(em *emit.Emitter) error {
	if err := em.Thinking("look order 42 up, then check stock"); err != nil {
		return err
	}
	search, err := em.ToolStart("search_orders", "")
	if err != nil {
		return err
	}
	if err := search.Output("order 42: 3 items\nstatus: shipped\n"); err != nil {
		return err
	}
	if err := search.Done(); err != nil {
		return err
	}
	stock, err := em.ToolStart("check_stock", "")
	if err != nil {
		return err
	}
	if err := stock.Error("warehouse API timed out; retrying"); err != nil {
		return err
	}
	if err := stock.Output("sku A: 12\n"); err != nil {
		return err
	}
	if err := stock.Done(); err != nil {
		return err
	}
	return em.Text("writing the reply")
}

func (orderAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// Serve an a2asrv agent that writes its progress with an Emitter, and read
// it with package client: the caller's view holds every block.
func Example() {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.Handle("/a2a", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(orderAgent{})))
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{
		Name: "orders", Description: "looks orders up", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: srv.URL + "/a2a",
			ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text"},
		DefaultOutputModes: []string{"text"},
	}))

	ctx := context.Background()
	c, err := client.New(ctx, srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, err := c.SendText(ctx, "where is order 42?")
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	v := s.View()
	for _, b := range v.Blocks {
		fmt.Println(b.Key.Seq, b.Kind, b.Key.StreamKey, b.Status)
	}
	for _, tc := range v.ToolCalls {
		fmt.Printf("%s %s %s %q\n", tc.Key, tc.Tool, tc.Status, tc.Output)
	}
	fmt.Println(out.State, "-", out.Reply)
	// Output:
	// 100 thinking  running
	// 101 tool_call call-1 running
	// 103 tool_call call-1 done
	// 104 tool_call call-2 running
	// 105 error call-2 running
	// 107 tool_call call-2 done
	// 108 text  running
	// call-1 search_orders done "order 42: 3 items\nstatus: shipped\n"
	// call-2 check_stock done "sku A: 12\n"
	// TASK_STATE_COMPLETED - Order 42 has shipped.
}

// Long output is split at line ends into chunks of at most the chunk
// limit, one envelope each, with consecutive seqs; the reader appends them
// in seq order. (Here yield prints what a2asrv would get.)
func ExampleTool_Output() {
	ec := &a2asrv.ExecutorContext{TaskID: "task-1", ContextID: "ctx-1",
		StoredTask: &a2a.Task{ID: "task-1"}} // a continued task: no submitted Task first
	yield := func(ev a2a.Event, _ error) bool {
		su := ev.(*a2a.TaskStatusUpdateEvent)
		r := envelope.FromMessage(su.Status.Message)
		e := r.Envelope
		if p, ok := e.Payload.(envelope.ToolOutputAppend); ok {
			fmt.Printf("%d %s %s %q\n", e.Seq, e.Kind, e.StreamKey, p.Chunk)
		} else {
			fmt.Printf("%d %s %s %s\n", e.Seq, e.Kind, e.StreamKey, e.Status)
		}
		return true
	}
	em := emit.New(ec, yield, emit.WithStartSeq(7), emit.WithChunkLimit(16))
	defer em.Close()

	call, _ := em.ToolStart("grep", "g1")
	_ = call.Output("a.go:1: match\nb.go:22: another match\n")
	_ = call.Done()
	// Output:
	// 7 tool_call g1 running
	// 8 tool_output_append g1 "a.go:1: match\n"
	// 9 tool_output_append g1 "b.go:22: another"
	// 10 tool_output_append g1 " match\n"
	// 11 tool_call g1 done
}
