package agenttest

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// streamFilter wraps the a2asrv request handler under every transport, so
// that the two ways a stream ends without a terminal state are produced
// once, on typed events, for JSON-RPC, REST and gRPC alike:
//
//   - Silent end (Script.Final == ""): the executor sends a marker update
//     (working, no message, event metadata silentEndKey) after its steps.
//     The filter swallows it and returns, and each transport then ends its
//     response cleanly, exactly as a peer that closes the stream before a
//     terminal state. A later SubscribeToTask gets the snapshot and is ended
//     after it (the snapshot of a silently ended task is working with no
//     status message, which no step produces).
//   - auth-required: a2asrv does not end the execution there, so the filter
//     ends the stream right after that status (A2A 1.0: a stream closes at
//     an interrupted state).
//   - A snapshot (a Task event) in a settled state ends the stream too.
//     a2asrv only does that for terminal states: a SubscribeToTask that
//     lands on an input-required task while a2asrv is still tearing the
//     execution down can otherwise hang forever (it reads a queue that was
//     already destroyed and is recreated empty).
type streamFilter struct {
	a2asrv.RequestHandler
	s *Agent
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (f streamFilter) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return f.s.filter(f.RequestHandler.SendStreamingMessage(ctx, req))
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (f streamFilter) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return f.s.filter(f.RequestHandler.SubscribeToTask(ctx, req))
}

func (s *Agent) filter(events iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		for ev, err := range events {
			if err != nil {
				yield(nil, err)
				return
			}
			switch e := ev.(type) {
			case *a2a.TaskStatusUpdateEvent:
				if _, ok := e.Metadata[silentEndKey]; ok {
					return
				}
				if !yield(ev, nil) || e.Status.State == a2a.TaskStateAuthRequired {
					return
				}
			case *a2a.Task:
				if !yield(ev, nil) {
					return
				}
				st := e.Status
				if st.State.Terminal() || st.State == a2a.TaskStateInputRequired || st.State == a2a.TaskStateAuthRequired ||
					st.State == a2a.TaskStateWorking && st.Message == nil && s.isSilent(e.ID) {
					return
				}
			default:
				if !yield(ev, nil) {
					return
				}
			}
		}
	}
}
