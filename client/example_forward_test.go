package client_test

import (
	"context"
	"fmt"
	"iter"
	"log"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope/emit"
)

// asker is an agent on a2asrv that answers by asking a colleague: the
// colleague's progress goes into its own turn, under its ask_colleague
// call.
type asker struct{ colleague string }

func (x asker) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		em := emit.New(ec, yield)
		defer em.Close()
		call, err := em.ToolStart("ask_colleague", "")
		if err != nil {
			return
		}
		c, err := client.New(ctx, x.colleague)
		if err != nil {
			_ = em.Finish(a2a.TaskStateFailed, err.Error())
			return
		}
		defer c.Close()
		s, err := c.SendText(ctx, "look it up")
		if err != nil {
			_ = em.Finish(a2a.TaskStateFailed, err.Error())
			return
		}
		out, err := client.Forward(s, call) // every block of the colleague, nested under the call
		if err != nil {
			_ = call.Aborted()
			_ = em.Finish(a2a.TaskStateFailed, err.Error())
			return
		}
		_ = call.Done()
		_ = em.Finish(a2a.TaskStateCompleted, "my colleague says: "+out.Reply)
	}
}

func (asker) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// An agent that asks another agent forwards its progress under the call
// that asked (PROTOCOL.md §10): its caller sees the colleague's tool calls
// inside the ask_colleague call.
func ExampleForward() {
	colleague, err := agenttest.New() // plays a realistic order lookup
	if err != nil {
		log.Fatal(err)
	}
	defer colleague.Close()
	b, err := agenttest.New(agenttest.WithExecutor(asker{colleague: colleague.URL}))
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()

	ctx := context.Background()
	c, err := client.New(ctx, b.URL)
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
	for _, t := range s.View().ToolCalls {
		fmt.Printf("%s%s %s\n", strings.Repeat("  ", t.Depth), t.Tool, t.Status)
	}
	fmt.Println(out.Reply)
	// Output:
	// ask_colleague done
	//   search_orders done
	//   check_stock done
	// my colleague says: Order 42 has shipped; all 3 items are in stock.
}
