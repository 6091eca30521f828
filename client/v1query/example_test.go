package v1query_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/v1query"
)

// A turn of the endpoint: a remote tool call's projection frames are
// progress, the other frames are the reply, and the body's end completes
// the turn. The server stands in for the runtime.
func ExampleSend() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"content":"RUNNING","projection":{"kind":"remote_agent_invocation","batchId":"b","toolCallId":"c1","sequence":1,"target":"expense-review","phase":"RUNNING","latencyMs":0}}`+"\n\n"+
			`data: {"content":"COMPLETED","projection":{"kind":"remote_agent_invocation","batchId":"b","toolCallId":"c1","sequence":2,"target":"expense-review","phase":"COMPLETED","resultCategory":"SUCCESS","latencyMs":900}}`+"\n\n"+
			`data: {"content":"The expense is approved."}`+"\n\n")
	}))
	defer srv.Close()
	ctx := context.Background()

	s, err := v1query.Send(ctx, srv.URL, "review this expense", v1query.WithConversationID("conv-1"))
	if err != nil {
		log.Fatal(err)
	}
	for u, err := range s.Updates() {
		if err != nil {
			log.Fatal(err) // a *client.IncompleteError, or ctx's error
		}
		if u.Type == client.UpdateProgress && u.Change.Tool != nil && u.Change.ToolStatusChanged {
			fmt.Printf("tool %s: %s\n", u.Change.Tool.Tool, u.Change.Tool.Status)
		}
	}
	out, err := s.Outcome()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.TaskID, out.State, "-", out.Reply)
	// Output:
	// tool expense-review: running
	// tool expense-review: done
	// conv-1 TASK_STATE_COMPLETED - The expense is approved.
}

// A runtime behind TLS with a private certificate authority (here the test
// server's own): WithHTTPClient gives the client that trusts it — or one
// with a proxy, or client certificates.
func ExampleWithHTTPClient() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"content":"Done over TLS."}`+"\n\n")
	}))
	defer srv.Close()
	ctx := context.Background()

	s, err := v1query.Send(ctx, srv.URL, "hello", v1query.WithHTTPClient(srv.Client()))
	if err != nil {
		log.Fatal(err)
	}
	for _, err := range s.Updates() {
		if err != nil {
			log.Fatal(err)
		}
	}
	out, err := s.Outcome()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.State, "-", out.Reply)
	// Output:
	// TASK_STATE_COMPLETED - Done over TLS.
}
