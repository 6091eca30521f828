package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/terminal"
)

// Respond to a task that waits for input: the first turn ends with the
// agent's question (exit through the Interrupt, not an error), and the
// answer is the next turn of the same task.
func ExampleClient_Respond() {
	srv, url := agent()
	defer srv.Close()
	srv.Register(agenttest.Trajectory(2, agenttest.Named("book a flight"), agenttest.EndIn(a2a.TaskStateInputRequired)))
	ctx := context.Background()

	c, err := client.New(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	first, err := c.SendText(ctx, "book a flight")
	if err != nil {
		log.Fatal(err)
	}
	out, err := first.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.State, "- interrupted:", out.Interrupt != nil)

	next, err := c.Respond(ctx, first.TaskID(), "what about order 42?")
	if err != nil {
		log.Fatal(err)
	}
	out, err = next.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.State, "-", out.Reply)
	fmt.Println("same task:", next.TaskID() == first.TaskID())
	// Output:
	// TASK_STATE_INPUT_REQUIRED - interrupted: true
	// TASK_STATE_COMPLETED - Order 42 has shipped; all 3 items are in stock.
	// same task: true
}

// Cancel a task from its id, which Send knows before the first update is
// read; the stream of the turn ends with the canceled verdict.
func ExampleClient_Cancel() {
	srv, url := agent()
	defer srv.Close()
	srv.Register(agenttest.Trajectory(3, agenttest.Named("slow"), agenttest.PauseEvery(time.Hour)))
	ctx := context.Background()

	c, err := client.New(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	s, err := c.SendText(ctx, "slow")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Cancel(ctx, s.TaskID()); err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(client.Update) error { return nil })
	fmt.Println(out.State, errors.Is(err, terminal.ErrCanceled))
	// Output:
	// TASK_STATE_CANCELED true
}
