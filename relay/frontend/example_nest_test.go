package frontend_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/relay/frontend"
)

// An orchestrator's own AG-UI run with its call to a remote A2A agent
// nested as a sub-agent of its tool call ask_colleague. Here the run's
// events are printed; a server writes each as one SSE "data:" line.
func ExampleAGUIRun() {
	agent, err := agenttest.New() // a remote A2A agent on 127.0.0.1
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()
	ctx := context.Background()
	c, err := client.New(ctx, agent.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	run := frontend.NewAGUIRun(func(ev map[string]any) error {
		switch ev["type"] {
		case "SUBAGENT_STARTED":
			fmt.Println(ev["type"], "under", ev["parentToolCallId"])
		case "TOOL_CALL_START":
			fmt.Println(ev["type"], ev["toolCallName"], "by the sub-agent:", ev["subagentRunId"] != nil)
		case "SUBAGENT_FINISHED", "RUN_STARTED", "RUN_FINISHED":
			fmt.Println(ev["type"])
		case "TOOL_CALL_RESULT":
			if ev["subagentRunId"] == nil {
				fmt.Printf("%s of %s: %s\n", ev["type"], ev["toolCallId"], ev["content"])
			}
		}
		return nil
	})
	_ = run.Emit(map[string]any{"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"})
	_ = run.Emit(map[string]any{"type": "TOOL_CALL_START", "toolCallId": "call-1", "toolCallName": "ask_colleague"})
	_ = run.Emit(map[string]any{"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": `{"question":"where is order 42?"}`})
	_ = run.Emit(map[string]any{"type": "TOOL_CALL_END", "toolCallId": "call-1"})

	s, err := c.SendText(ctx, "where is order 42?")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := run.Nest("call-1", s, frontend.SubagentOptions{Name: "colleague"}); err != nil {
		log.Fatal(err)
	}
	_ = run.Emit(map[string]any{"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "run-1", "outcome": map[string]any{"type": "success"}})
	// Output:
	// RUN_STARTED
	// TOOL_CALL_START ask_colleague by the sub-agent: false
	// SUBAGENT_STARTED under call-1
	// TOOL_CALL_START search_orders by the sub-agent: true
	// TOOL_CALL_START check_stock by the sub-agent: true
	// SUBAGENT_FINISHED
	// TOOL_CALL_RESULT of call-1: Order 42 has shipped; all 3 items are in stock.
	// RUN_FINISHED
}
