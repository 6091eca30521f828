// Package agenttest provides an A2A agent for tests, in the spirit of
// net/http/httptest: a real agent on 127.0.0.1, speaking JSON-RPC, REST
// and gRPC in A2A 1.0 and 0.3 through a2a-go's own server, that plays a
// scripted turn of progress envelopes. Test an orchestrator built on
// [github.com/tfrs/a2a-progress/client] (or on plain a2a-go) against it:
// real sockets, real frames, and every way a turn can end.
//
//	a, err := agenttest.New(agenttest.WithScripts(
//		agenttest.Trajectory(20, agenttest.Named("flaky"), agenttest.Duplicate(2), agenttest.EndIn(a2a.TaskStateFailed))))
//	if err != nil { … }
//	defer a.Close()
//	c, err := client.New(ctx, a.URL)   // the 1.0 card, all three transports
//	s, err := c.SendText(ctx, "flaky") // the message text names the script
//
// # The model
//
// A [Script] is what the agent does for one turn. Its [Step]s each send one
// working status update — an envelope (written with [envelope.NewPart], its
// text fallback in the same Part), a plain-text update, a raw message for
// broken or hand-made envelopes, or an artifact update — optionally after a
// pause, behind a gate, or repeated. Then come the reply artifacts and the
// Final state:
//
//   - completed, failed, canceled or rejected (terminal) and input-required
//     (interrupted): the stream closes there, as A2A 1.0 says;
//   - auth-required: the agent closes the stream right after it (a2asrv
//     alone would keep it open);
//   - "": a silent cut — every stream of the task closes cleanly without a
//     terminal state, which an a2a-go client sees as a loop that just ends.
//
// The agent plays the registered script whose Name is the text of the user
// message, and [Realistic] (an order lookup with two tool calls, one
// envelope out of order and one duplicated) for any other text.
// [Trajectory] generates long scripts with fault knobs: [Reorder],
// [Duplicate], [SkipSeqs], [Oversize], [PlainText], [EndIn], [PauseEvery].
// [Script.Envelopes] is what a caller should parse from an uninterrupted
// stream.
//
// # Steering a turn
//
// [Agent.CutAfter] cuts the next streaming response after k events, cleanly
// or abruptly, on any transport; the execution goes on server-side, so a
// caller can resubscribe. [Step.Gate] holds an execution until
// [Agent.Release], so a test can act at a known point of the turn (follow
// the task, cut, cancel).
//
// # Addresses
//
// [Agent.URL] is the base of the A2A 1.0 agent card; [Agent.CardURL] and
// [Agent.CardURLFor] give the 0.3 card and cards that list one transport;
// [Agent.Endpoint] gives one interface, for a client forced onto one
// transport (client.WithTransport, or a2aclient.NewFromEndpoints). gRPC is
// plaintext.
//
// Every combination is served by a2a-go's own handlers: a2asrv (JSON-RPC,
// REST) and a2agrpc/v1 for 1.0, a2acompat/a2av0 (JSON-RPC, REST) and
// a2agrpc/v0 for 0.3, all over one a2asrv request handler and task store,
// so a task started over one transport can be followed over another.
// [Agent.Close] ends what is still running and returns once every
// goroutine the agent started has ended, so tests that use goleak stay
// clean.
package agenttest
