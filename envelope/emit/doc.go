// Package emit writes progress envelopes from a Go A2A agent built on
// a2a-go's a2asrv: the callee side of package envelope, with the state of
// a turn kept for you.
//
// # The model
//
// An a2asrv executor yields events from Execute. An [Emitter], made with
// [New] for one Execute call, turns what the agent does into working
// status updates, each holding one envelope and its human-readable text
// fallback in the same Part (the wire format is in PROTOCOL.md):
//
//	em := emit.New(ec, yield)        // inside the iterator Execute returns
//	defer em.Close()                 // yield is never called after Execute
//	em.Thinking("look the order up, then check stock")
//	call, err := em.ToolStart("search_orders", "")
//	call.Output(rows)                // split into chunks by the size limits
//	call.Done()                      // or call.Aborted()
//	em.Text("order found")
//	em.Finish(a2a.TaskStateCompleted, "Order 42 has shipped.")
//
// The emitter keeps what a hand-written producer gets wrong:
//
//   - seq: one counter per turn, from 1 or [WithStartSeq], strictly increasing
//     in the order the events reach a2asrv, even when several goroutines of
//     the execution emit at once;
//   - tool calls: [Emitter.ToolStart] returns a [Tool] whose blocks share
//     the call's streamKey; it ends once, with [Tool.Done] or
//     [Tool.Aborted], and refuses output after that;
//   - size limits: [Tool.Output] splits long output with
//     envelope.SplitOutput ([WithChunkLimit], at most envelope.HardChunkLimit a
//     chunk), and an envelope a reader would drop (over
//     envelope.MaxEnvelopeBytes, a tool call without a name) is refused with
//     the *envelope.Error that says why, before it uses a seq;
//   - the submitted Task that a2asrv wants first for a new task.
//
// Only the final state is the verdict: an error block ([Emitter.Error],
// [Tool.Error]) is progress, and a turn that fails ends with
// Finish(a2a.TaskStateFailed, reason). When a2asrv stops taking events
// (the request's context ended), every call returns [ErrStopped] and the
// executor should return.
//
// # Forwarding a sub-agent
//
// An agent that answers by asking another agent forwards that agent's
// progress into its own turn, under the tool call that asked, so that its
// own caller sees the sub-agent's tool calls inside that call (the nesting
// extension, PROTOCOL.md §10). [Tool.Forward] takes one [Block] of the
// sub-agent's turn — plain types, so this package needs nothing of the
// caller side — and sends it with this turn's next seq, a key in the
// call's namespace and the call as its parent; client.Forward feeds it
// every block a client.Stream applied, once each, across cuts:
//
//	call, _ := em.ToolStart("ask_colleague", "")
//	s, _ := colleague.SendText(ctx, question)   // package client
//	out, err := client.Forward(s, call)          // C's progress, nested
//	call.Done()
//	em.Finish(a2a.TaskStateCompleted, out.Text)
//
// A turn is one Execute call. A task that continues after input-required
// gets a new Execute call, so a new Emitter; its seqs may start again,
// since readers key envelopes by turn.
//
// # Why here
//
// emit depends only on package envelope and a2a-go, below every other
// package of this module, so an agent imports it without the caller side.
package emit
