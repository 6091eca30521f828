package agenttest_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

// Run the same turn over every transport and protocol version the agent
// serves: CardURLFor gives a card that lists only one interface, so the
// client cannot pick another. The realistic script (an order lookup with
// two tool calls, one envelope late and one repeated) is registered under
// its name; the message text names it.
func ExampleTransports() {
	a, err := agenttest.New(agenttest.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	a.Register(agenttest.Realistic().WithPause(0))

	ctx := context.Background()
	for _, v := range agenttest.Versions() {
		for _, tr := range agenttest.Transports() {
			// The agent's gRPC listens on loopback without TLS.
			c, err := client.New(ctx, a.CardURLFor(tr, v), client.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
			if err != nil {
				log.Fatal(err)
			}
			s, err := c.SendText(ctx, agenttest.RealisticName)
			if err != nil {
				log.Fatal(err)
			}
			out, err := s.Run(func(client.Update) error { return nil })
			c.Close()
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(tr, v, out.Reply == agenttest.RealisticReply, len(s.View().ToolCalls))
		}
	}
	// Output:
	// JSONRPC 1.0 true 2
	// HTTP+JSON 1.0 true 2
	// GRPC 1.0 true 2
	// JSONRPC 0.3 true 2
	// HTTP+JSON 0.3 true 2
	// GRPC 0.3 true 2
}

// The faults of a callee that is not well behaved, as knobs of a generated
// trajectory: seqs that start high and skip, plain-text updates from a
// pre-upgrade callee, and one envelope over the hard chunk limit. The
// client's view counts each (gaps, fallbacks by reason) and never fails
// the turn for them: 10 envelopes and 3 texts applied; 2 skipped seqs and
// the oversize envelope's own seq are the 3 gaps.
func ExampleTrajectory() {
	a, err := agenttest.New(agenttest.WithScripts(agenttest.Trajectory(10,
		agenttest.Named("rough"), agenttest.StartSeq(100), agenttest.SkipSeqs(2), agenttest.PlainText(2), agenttest.Oversize(),
	)))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	ctx := context.Background()
	c, err := client.New(ctx, a.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, err := c.SendText(ctx, "rough")
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	cnt := s.View().Counters
	fmt.Println(out.State, "-", out.Reply)
	fmt.Println("applied", cnt.Applied, "gaps", cnt.Gaps, "fallbacks", cnt.Fallbacks)
	// Output:
	// TASK_STATE_COMPLETED - done: 10 updates
	// applied 13 gaps 3 fallbacks map[chunk_too_large:1 no_envelope:2]
}
