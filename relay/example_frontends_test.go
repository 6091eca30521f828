package relay_test

import (
	"context"
	"log"
	"net/http"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/relay"
)

// An orchestrator's web server that lets CopilotKit (AG-UI) and useChat (the
// AI SDK) front ends talk to an A2A agent through the relay: both protocols'
// own routes, and the task events endpoint they reconnect through.
func ExampleHandler_AGUI() {
	ctx := context.Background()
	c, err := client.New(ctx, "http://127.0.0.1:9999") // the A2A agent
	if err != nil {
		log.Fatal(err)
	}
	h := relay.New(ctx, c, relay.WithAuthorizer(relay.AllowLoopback))
	defer h.Close()

	mux := http.NewServeMux()
	mux.Handle("/ag-ui", h.AGUI(c)) // HttpAgent{url: ".../ag-ui"}
	chat := h.Chat(c)               // one handler for both: it remembers each chat's task
	mux.Handle("/api/chat", chat)   // useChat's POST
	mux.Handle("/api/chat/", chat)  // useChat({resume: true}): GET /api/chat/{id}/stream
	events := func(w http.ResponseWriter, r *http.Request) { h.ServeEvents(w, r, r.PathValue("taskId")) }
	mux.HandleFunc("GET /tasks/{taskId}/events", events)  // ?format=ops (default), ag-ui, ai-sdk
	mux.HandleFunc("POST /tasks/{taskId}/events", events) // ?format=ag-ui with a RunAgentInput: reconnect
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}
