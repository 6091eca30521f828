package callee_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/callee"
)

// Serve a generated trajectory and read it with a plain a2a-go client over
// JSON-RPC 1.0.
func Example() {
	s, err := callee.Start()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	s.Register(callee.Trajectory(5, callee.Named("five"), callee.EndIn(a2a.TaskStateInputRequired)))

	ctx := context.Background()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr} // no Timeout: a2a-go's default kills streams at 3 minutes
	cl, err := a2aclient.NewFromEndpoints(ctx,
		[]*a2a.AgentInterface{s.Endpoint(a2a.TransportProtocolJSONRPC, callee.V1)},
		a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		panic(err)
	}
	defer cl.Destroy()

	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("five"))
	for ev, err := range cl.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			panic(err)
		}
		su, ok := ev.(*a2a.TaskStatusUpdateEvent)
		if !ok {
			continue
		}
		if su.Status.State != a2a.TaskStateWorking {
			fmt.Println(su.Status.State, envelope.MessageText(su.Status.Message))
			continue
		}
		e := envelope.FromMessage(su.Status.Message).Envelope
		fmt.Println(e.Seq, e.Kind, e.StreamKey, e.Status)
	}
	// Output:
	// 1 thinking  running
	// 2 tool_call call-1 running
	// 3 tool_output_append call-1 running
	// 4 tool_output_append call-1 running
	// 5 tool_call call-1 done
	// TASK_STATE_INPUT_REQUIRED which warehouse should I use?
}
