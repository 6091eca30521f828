package relay_test

import (
	"context"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/relay"
)

// noHistoryFollower follows task t1 of an agent that keeps no history: its
// snapshot names no user message, so the Follow cannot name the turn.
type noHistoryFollower struct{}

func (noHistoryFollower) Follow(ctx context.Context, _ a2a.TaskID) (*client.Stream, error) {
	return client.Replay(ctx, func(yield func(a2a.Event, error) bool) {
		_ = yield(&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil) &&
			yield(envelope.NewStatusUpdate(a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}, envelope.Envelope{V: envelope.Version,
				Kind: envelope.KindText, StreamKey: "main", Seq: 1, Status: envelope.StatusDone, Payload: envelope.Text{Text: "hello"}}, "")) &&
			yield(&a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted,
				Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("done"))}}, nil)
	}), nil
}

// A page that sent a message waits for the turn its messageId names: the
// relay names a followed turn so when it dispatched the message itself and
// the agent keeps no history to name it by.
func TestDispatchedTurnOfAgentWithoutHistory(t *testing.T) {
	t.Parallel()
	h := relay.New(testCtx(t), noHistoryFollower{}, relay.WithAuthorizer(relay.AllowAll))
	t.Cleanup(func() { _ = h.Close() })
	h.Dispatched("t1", "msg-1")
	srv := relayServer(t, h)
	evs, err := readAll(testCtx(t), eventsURL(srv.URL, "t1", nil), "")
	if err != nil {
		t.Fatal(err)
	}
	var turns []string
	for _, op := range ops(evs) {
		turns = append(turns, string(op.Type)+" "+op.Turn)
	}
	want := []string{"block msg-1", "seal msg-1", "result msg-1"}
	if d := cmp.Diff(want, turns); d != "" {
		t.Errorf("ops' turns (-want +got):\n%s", d)
	}
}
