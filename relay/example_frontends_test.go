package relay_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/frontend"
)

// An orchestrator's web server that lets CopilotKit (AG-UI) and useChat (the
// AI SDK) front ends talk to an A2A agent through the relay: both protocols'
// own routes, and the task events endpoint they reconnect through. Here an
// AG-UI client's run is one POST, read as HttpAgent would.
func ExampleHandler_AGUI() {
	agent, err := agenttest.New() // the A2A agent, on 127.0.0.1
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
	h := relay.New(ctx, c, relay.WithAuthorizer(relay.AllowLoopback),
		relay.WithFormat(frontend.FormatAGUI, frontend.AGUIFormat),   // ?format=ag-ui
		relay.WithFormat(frontend.FormatAISDK, frontend.AISDKFormat)) // ?format=ai-sdk
	defer h.Close()

	mux := http.NewServeMux()
	mux.Handle("/ag-ui", h.AGUI(c)) // HttpAgent{url: ".../ag-ui"}
	chat := h.Chat(c)               // one handler for both: it remembers each chat's task
	mux.Handle("/api/chat", chat)   // useChat's POST
	mux.Handle("/api/chat/", chat)  // useChat({resume: true}): GET /api/chat/{id}/stream
	events := func(w http.ResponseWriter, r *http.Request) { h.ServeEvents(w, r, r.PathValue("taskId")) }
	mux.HandleFunc("GET /tasks/{taskId}/events", events)  // ?format=ops (default), ag-ui, ai-sdk
	mux.HandleFunc("POST /tasks/{taskId}/events", events) // ?format=ag-ui with a RunAgentInput: reconnect
	srv := httptest.NewServer(mux)
	defer srv.Close()

	run := `{"threadId": "thread-1", "runId": "run-1",
		"messages": [{"id": "m1", "role": "user", "content": "where is order 42?"}]}`
	resp, err := http.Post(srv.URL+"/ag-ui", "application/json", strings.NewReader(run))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type, ToolCallName, Delta string
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			log.Fatal(err)
		}
		switch ev.Type {
		case "TOOL_CALL_START":
			fmt.Println(ev.Type, ev.ToolCallName)
		case "TEXT_MESSAGE_CONTENT":
			fmt.Println(ev.Type, ev.Delta)
		case "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR":
			fmt.Println(ev.Type)
		}
	}
	// Output:
	// RUN_STARTED
	// TOOL_CALL_START search_orders
	// TEXT_MESSAGE_CONTENT Order found. Checking stock.
	// TOOL_CALL_START check_stock
	// TEXT_MESSAGE_CONTENT warehouse API timed out; retrying
	// TEXT_MESSAGE_CONTENT Writing the reply.
	// TEXT_MESSAGE_CONTENT Order 42 has shipped; all 3 items are in stock.
	// RUN_FINISHED
}
