// Package callee is the reference A2A callee used by the client tests, the
// benchmarks and `a2a-tail demo`: an a2asrv agent that plays scripted
// trajectories of progress envelopes, served on 127.0.0.1 over JSON-RPC,
// REST and gRPC, each in A2A 1.0 and 0.3.
//
// # The model
//
// A [Script] is what the callee does for one turn: [Step]s — each a
// working status update carrying an envelope (written by
// [envelope.NewStatusUpdate]), a plain-text update, a raw message or an
// artifact update, optionally paused, gated or repeated — then reply
// artifacts and a Final state. The executor picks the registered script
// whose Name is the text of the user message ([Realistic] otherwise), sends
// the submitted Task, then the steps, then the end:
//
//   - a terminal state (completed, failed, canceled, rejected) or
//     input-required: the stream closes there, as in A2A 1.0;
//   - auth-required: the server closes the stream after it (a2asrv would
//     keep it open);
//   - "": a silent cut — every stream of the task closes cleanly without a
//     terminal state, which a2a-go clients see as a loop that just ends.
//
// [Realistic] is the demo trajectory and [Trajectory] generates long ones
// with fault knobs ([Reorder], [Duplicate], [SkipSeqs], [Oversize],
// [PlainText], [EndIn], [PauseEvery]). [Script.Envelopes] is what a caller
// should parse from an uninterrupted stream.
//
// # Serving
//
//	s, err := callee.Start()                  // 127.0.0.1:0, every transport × version
//	defer s.Close()                           // ends executions, waits for goroutines
//	s.Register(callee.Trajectory(50, callee.Named("t50"), callee.EndIn(a2a.TaskStateFailed)))
//	iface := s.Endpoint(a2a.TransportProtocolJSONRPC, callee.V0) // for a2aclient.NewFromEndpoints
//	card := s.CardURL(callee.V1)              // for agentcard.Resolver
//	// send a message whose text is "t50"
//
// Tests steer an execution with gates ([Step.Gate], [Server.Release]) and
// cut streams with [Server.CutAfter]; execution goes on server-side, so a
// caller can resubscribe. [WithHistoryLimit] bounds Task.history for floods.
//
// Every combination is served by a2a-go's own handlers: a2asrv (JSON-RPC,
// REST) and a2agrpc/v1 for 1.0, a2acompat/a2av0 (JSON-RPC, REST) and
// a2agrpc/v0 for 0.3, all over one a2asrv request handler and task store,
// so a task started over one transport can be followed over another.
package callee
