package relay_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// Publish a turn the orchestrator runs itself, and read it as a browser
// would. Here the turn is a replayed recording; in a real orchestrator it is
// the stream of its own Client.Send, and a Client passed to New follows the
// tasks nobody attached.
func ExampleHandler_Attach() {
	ctx := context.Background()
	h := relay.New(ctx, nil, relay.WithAuthorizer(relay.AllowLoopback))
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/relay/", http.StripPrefix("/relay", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	task := &a2a.Task{ID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	call, _ := envelope.NewStatusUpdate(task, envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "call-1", Seq: 1,
		Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "search"}}, "")
	done, _ := envelope.NewStatusUpdate(task, envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "call-1", Seq: 2,
		Status: envelope.StatusDone, Payload: envelope.ToolCall{Tool: "search"}}, "")
	final := a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("found it")))
	events := func(yield func(a2a.Event, error) bool) {
		for _, ev := range []a2a.Event{task, call, done, final} {
			if !yield(ev, nil) {
				return
			}
		}
	}
	s := client.Replay(ctx, events)
	for range h.Attach(s) { // instead of s.Updates(): every update passes through
	}
	out, _ := s.Outcome()
	fmt.Println("orchestrator:", out.Result().Verdict)

	resp, err := http.Get(srv.URL + "/relay/tasks/task-1/events")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var op schema.Op
		if err := json.Unmarshal([]byte(data), &op); err != nil {
			panic(err)
		}
		switch op.Type {
		case schema.OpBlock:
			fmt.Println("browser:", op.Type, op.Block.Key.Seq, op.Block.Kind, op.Block.Status)
		case schema.OpResult:
			fmt.Println("browser:", op.Type, op.Result.Verdict, op.Result.Reply)
		default:
			fmt.Println("browser:", op.Type)
		}
	}
	// Output:
	// orchestrator: completed
	// browser: block 1 tool_call running
	// browser: block 2 tool_call done
	// browser: seal
	// browser: result completed found it
}
