package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// agent starts a test agent (package agenttest); a real caller has an
// agent URL.
func agent() (*agenttest.Agent, string) {
	a, err := agenttest.New()
	if err != nil {
		log.Fatal(err)
	}
	return a, a.URL
}

// Send a message and render the progress as it arrives; the answer comes
// from the terminal state only.
func ExampleClient_Send() {
	srv, url := agent()
	defer srv.Close()
	ctx := context.Background()

	c, err := client.New(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	s, err := c.SendText(ctx, "what about order 42?")
	if err != nil {
		log.Fatal(err)
	}
	for u, err := range s.Updates() {
		if err != nil {
			log.Fatal(err) // an *IncompleteError, or ctx's error
		}
		if u.Type == client.UpdateProgress && u.Change.Effect == merge.Applied && u.Change.Tool != nil && u.Change.ToolStatusChanged {
			fmt.Printf("tool %s: %s\n", u.Change.Tool.Tool, u.Change.Tool.Status)
		}
	}
	out, err := s.Outcome()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.State, "-", out.Reply)
	v := s.View()
	fmt.Printf("%d blocks, %d tool calls, %d duplicate, %d late\n", len(v.Blocks), len(v.ToolCalls), v.Counters.Duplicates, v.Counters.Late)
	// Output:
	// tool search_orders: running
	// tool search_orders: done
	// tool check_stock: running
	// tool check_stock: done
	// TASK_STATE_COMPLETED - Order 42 has shipped; all 3 items are in stock.
	// 8 blocks, 2 tool calls, 1 duplicate, 1 late
}

// Forward a turn to a front end: every op Update.Op hands — the blocks,
// the seal, the result — as one JSON line each. The front end applies them
// to a merge.Receiver (here in the same process) and has the turn's view
// and verdict.
func ExampleUpdate_Op() {
	srv, url := agent()
	defer srv.Close()
	ctx := context.Background()
	c, err := client.New(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	s, err := c.SendText(ctx, "what about order 42?")
	if err != nil {
		log.Fatal(err)
	}
	var lines [][]byte // what goes over the wire
	for u, err := range s.Updates() {
		if err != nil {
			log.Fatal(err)
		}
		if op, ok := u.Op(); ok {
			b, err := json.Marshal(op)
			if err != nil {
				log.Fatal(err)
			}
			lines = append(lines, b)
		}
	}

	var front *merge.Receiver // the front end
	types := map[schema.OpType]int{}
	for _, b := range lines {
		var op schema.Op
		if err := json.Unmarshal(b, &op); err != nil {
			log.Fatal(err)
		}
		if front == nil {
			front = merge.NewReceiver(op.Task, merge.DefaultCaps())
		}
		front.Apply(op)
		types[op.Type]++
	}
	v, res := front.View(), front.Result()
	fmt.Println(types[schema.OpBlock], "blocks,", types[schema.OpSeal], "seal,", types[schema.OpResult], "result")
	fmt.Println(v.Turn == s.Turn(), len(v.ToolCalls), "tool calls:", v.ToolCalls[0].Status, v.ToolCalls[1].Status)
	fmt.Println(res.Verdict, "-", res.Reply)
	// Output:
	// 12 blocks, 1 seal, 1 result
	// true 2 tool calls: done done
	// completed - Order 42 has shipped; all 3 items are in stock.
}

// Dispatch with return-immediately, then follow the task: the same stream,
// the same parsing, whether the subscription starts early or late.
func ExampleClient_Follow() {
	srv, _ := agent()
	defer srv.Close()
	ctx := context.Background()

	// Force one transport: gRPC, protocol v0.3.
	c, err := client.New(ctx, srv.Endpoint(a2a.TransportProtocolGRPC, agenttest.V0).URL,
		client.WithTransport(a2a.TransportProtocolGRPC), client.WithProtocolVersion("0.3"),
		client.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	id, err := c.Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("order 42")))
	if err != nil {
		log.Fatal(err)
	}
	s, _ := c.Follow(ctx, id)
	out, err := s.Run(func(u client.Update) error {
		return nil // render u
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.State, len(s.View().ToolCalls), "tool calls")
	// Output:
	// TASK_STATE_COMPLETED 2 tool calls
}

// A stream cut mid-turn is resumed with SubscribeToTask; the message is
// not sent again, and the view is the one an uncut stream gives.
func ExampleStream_Updates_reconnect() {
	srv, url := agent()
	defer srv.Close()
	ctx := context.Background()
	c, err := client.New(ctx, url, client.WithRetry(5, time.Millisecond, 50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	srv.CutAfter(4, true) // the callee drops the connection after 4 events
	s, _ := c.SendText(ctx, "order 42")
	for u, err := range s.Updates() {
		if err != nil {
			log.Fatal(err)
		}
		if u.Type == client.UpdateReconnect {
			fmt.Println("cut; resuming, attempt", u.Attempt)
		}
	}
	out, err := s.Outcome()
	v := s.View()
	fmt.Println(out.State, err, len(v.Blocks), "blocks")
	// Output:
	// cut; resuming, attempt 1
	// TASK_STATE_COMPLETED <nil> 8 blocks
}

// A turn that cannot be resolved is never a success.
func ExampleIncompleteError() {
	srv, url := agent()
	defer srv.Close()
	silent := agenttest.Trajectory(3, agenttest.Named("silent"))
	silent.Final = "" // the callee closes the stream without a terminal state
	srv.Register(silent)

	ctx := context.Background()
	c, err := client.New(ctx, url, client.WithRetry(2, time.Millisecond, 5*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, _ := c.SendText(ctx, "silent")
	_, err = s.Run(func(client.Update) error { return nil })
	var ie *client.IncompleteError
	fmt.Println(errors.Is(err, client.ErrIncomplete), errors.As(err, &ie) && ie.State == a2a.TaskStateWorking)
	// Output:
	// true true
}
