package agenttest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
)

// Test an orchestrator against a generated trajectory with faults: the
// client's view holds every block once, whatever the wire did.
func Example() {
	a, err := agenttest.New(agenttest.WithScripts(
		agenttest.Trajectory(12, agenttest.Named("flaky"), agenttest.Duplicate(2), agenttest.Reorder(1)),
	))
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
	s, err := c.SendText(ctx, "flaky") // the message text names the script
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	v := s.View()
	fmt.Println(out.State, "-", out.Reply)
	fmt.Printf("%d tool calls, %d duplicates, %d late\n", len(v.ToolCalls), v.Counters.Duplicates, v.Counters.Late)
	for _, tc := range v.ToolCalls {
		fmt.Printf("%s %s %s %q\n", tc.Key, tc.Tool, tc.Status, tc.Output)
	}
	// Output:
	// TASK_STATE_COMPLETED - done: 12 updates
	// 2 tool calls, 2 duplicates, 1 late
	// call-1 fetch_page done "call-1 line 1\ncall-1 line 2\n"
	// call-2 run_sql done "call-2 line 1\ncall-2 line 2\ncall-2 line 3\n"
}

// A hand-written script: an envelope, a plain-text update from a
// pre-upgrade callee, a broken envelope (a Raw step), then a question for
// the user. The broken envelope degrades to its text, with the reason.
func ExampleScript() {
	ask := agenttest.Script{
		Name: "ask",
		Steps: []agenttest.Step{
			{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindThinking, Seq: 1, Status: envelope.StatusRunning,
				Payload: envelope.Thinking{Text: "two warehouses match"}}},
			{Text: "still looking"},
			{Raw: &a2a.Message{Parts: a2a.ContentParts{{
				Content:  a2a.Text("half an envelope"),
				Metadata: map[string]any{envelope.MetadataKey: `{"v":1,"kind":`},
			}}}},
		},
		Final:     a2a.TaskStateInputRequired,
		FinalText: "Berlin or Hamburg?",
	}
	a, err := agenttest.New(agenttest.WithScripts(ask))
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
	s, err := c.SendText(ctx, "ask")
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(client.Update) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range s.View().Blocks {
		fmt.Printf("%s from %s %q", b.Kind, b.Source, b.Payload)
		if b.Reason != "" {
			fmt.Printf(" (%s)", b.Reason)
		}
		fmt.Println()
	}
	fmt.Println(out.State, "-", out.Interrupt != nil, out.Interrupt.Question)
	// Output:
	// thinking from envelope {"two warehouses match"}
	// text from fallback {"still looking"} (no_envelope)
	// text from fallback {"half an envelope"} (bad_json)
	// TASK_STATE_INPUT_REQUIRED - true Berlin or Hamburg?
}

// Cut the stream mid-turn: the client resumes it with SubscribeToTask and
// its view equals the view of an uncut stream.
func ExampleAgent_CutAfter() {
	a, err := agenttest.New()
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

	a.CutAfter(3, true) // drop the connection after the 3rd event
	s, err := c.SendText(ctx, "any text plays the realistic script")
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(u client.Update) error {
		if u.Type == client.UpdateReconnect {
			fmt.Println("cut; resuming")
		}
		return nil
	})
	fmt.Println(out.State, err, len(s.View().Blocks), "blocks")
	// Output:
	// cut; resuming
	// TASK_STATE_COMPLETED <nil> 8 blocks
}

// A silent cut: the agent closes every stream of the task without a
// terminal state. The client never reports that as a success.
func ExampleEndIn() {
	a, err := agenttest.New(agenttest.WithScripts(
		agenttest.Trajectory(3, agenttest.Named("vanish"), agenttest.EndIn("")),
	))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	ctx := context.Background()
	c, err := client.New(ctx, a.URL, client.WithRetry(1, 0, 0))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, err := c.SendText(ctx, "vanish")
	if err != nil {
		log.Fatal(err)
	}
	_, err = s.Run(func(client.Update) error { return nil })
	fmt.Println(errors.Is(err, client.ErrIncomplete))
	// Output:
	// true
}

// Force one transport and version, here JSON-RPC in A2A 0.3, with a plain
// a2a-go client (its 0.3 transports live in a2acompat/a2av0).
func ExampleAgent_Endpoint() {
	a, err := agenttest.New(agenttest.WithScripts(
		agenttest.Trajectory(4, agenttest.Named("four"), agenttest.EndIn(a2a.TaskStateRejected)),
	))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	ctx := context.Background()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cl, err := a2aclient.NewFromEndpoints(ctx,
		[]*a2a.AgentInterface{a.Endpoint(a2a.TransportProtocolJSONRPC, agenttest.V0)},
		// No Timeout: a2a-go's default client kills streams at 3 minutes.
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: &http.Client{Transport: tr}}))
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Destroy()

	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("four"))
	for ev, err := range cl.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			log.Fatal(err)
		}
		if su, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			if su.Status.State != a2a.TaskStateWorking {
				fmt.Println(su.Status.State, envelope.MessageText(su.Status.Message))
				continue
			}
			e := envelope.FromMessage(su.Status.Message).Envelope
			fmt.Println(e.Seq, e.Kind, e.StreamKey, e.Status)
		}
	}
	// Output:
	// 1 thinking  running
	// 2 tool_call call-1 running
	// 3 tool_output_append call-1 running
	// 4 tool_output_append call-1 running
	// TASK_STATE_REJECTED the callee gave up
}

// Hold the turn at a gate to act at a known point of it: here the test
// sees the first block before the agent goes on.
func ExampleAgent_Release() {
	sc := agenttest.Trajectory(4, agenttest.Named("gated"))
	sc.Steps[1].Gate = "after-first"
	a, err := agenttest.New(agenttest.WithScripts(sc))
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
	s, err := c.SendText(ctx, "gated")
	if err != nil {
		log.Fatal(err)
	}
	out, err := s.Run(func(u client.Update) error {
		if u.Type == client.UpdateProgress {
			fmt.Println(u.Reading.Envelope.Seq, u.Reading.Envelope.Kind)
			if u.Reading.Envelope.Seq == 1 {
				a.Release("after-first") // the agent waits for this
			}
		}
		return nil
	})
	fmt.Println(out.State, err)
	// Output:
	// 1 thinking
	// 2 tool_call
	// 3 tool_output_append
	// 4 tool_output_append
	// TASK_STATE_COMPLETED <nil>
}
