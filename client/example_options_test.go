package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/tfrs/a2a-progress/client"
)

// Adopt an a2a-go client the caller already built (its own transports,
// interceptors, auth): the turn logic is the same, and Close leaves the
// a2a-go client open — it stays the caller's to destroy.
func ExampleWrap() {
	srv, url := agent()
	defer srv.Close()
	ctx := context.Background()

	card, err := agentcard.DefaultResolver.Resolve(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	// No whole-request Timeout on the HTTP client: it would cut every
	// stream longer than it (client.New removes it for the same reason).
	ac, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(&http.Client{}))
	if err != nil {
		log.Fatal(err)
	}
	defer ac.Destroy()

	c := client.Wrap(ac)
	defer c.Close()
	s, err := c.SendText(ctx, "what about order 42?")
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.State == a2a.TaskStateCompleted, out.Reply)
	// Output:
	// true Order 42 has shipped; all 3 items are in stock.
}

// Bound what a long-lived orchestrator spends on its turns: more resume
// attempts after a cut (0 durations keep the default backoff), fewer
// resubscriptions a minute, a smaller byte budget shared by all the
// client's turns, and a GetTask that asks for the last 50 messages of a
// task's history instead of all of it.
func ExampleWithRetry() {
	srv, url := agent()
	defer srv.Close()
	ctx := context.Background()

	c, err := client.New(ctx, url,
		client.WithRetry(10, 0, 0),
		client.WithResubscribeLimit(0, 10),
		client.WithClientBudget(64<<20),
		client.WithHistoryLength(50),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, err := c.SendText(ctx, "what about order 42?")
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Reply)
	// Output:
	// Order 42 has shipped; all 3 items are in stock.
}
