// Package frontend speaks two front ends' own protocols: AG-UI 1.0
// (@ag-ui/client, CopilotKit) and the Vercel AI SDK's UI message stream v1
// (useChat). It holds their encoders and nesting writers and needs no relay:
// package relay serves the encoders (relay.Encoder) and the protocols'
// endpoints, and the task, its op log, its subscribers, bounds, access
// hook, Store and replicas are the relay's.
//
// # Two ways in
//
//   - Formats of the task events endpoint. [AGUIFormat] and [AISDKFormat],
//     given to relay.New with relay.WithFormat under [FormatAGUI] and
//     [FormatAISDK], serve ?format=ag-ui and ?format=ai-sdk: a front end
//     watches (or reconnects to) a task the relay already serves, with the
//     same resume, snapshot and end as the plain ops.
//   - The protocols' own endpoints. relay.Handler.AGUI (HttpAgent's POST
//     of a RunAgentInput) and relay.Handler.Chat (useChat's POST, and its
//     GET <chat id>/stream resume) send the front end's last user message
//     to the agent with a relay.Agent, publish the turn with
//     relay.Handler.Attach, and respond with the task's subscription in the
//     protocol, through [NewAGUIEncoder] and [NewAISDKEncoder]. A cut
//     connection resumes through the relay like any other.
//
// Both render the merged view (package merge) in view order, whole blocks
// at a time, and re-synchronise when a late block lands before what was
// sent, so that the strict client libraries never see an invalid sequence
// and show each block once (PROTOCOL.md §9). An op that changes the view
// only at its end is told without a render, so an op costs the same at any
// length of turn. Neither protocol can insert before what a client holds,
// so a re-synchronisation restates the view: late blocks are paced so that
// they too cost O(1) amortised per op — a late block that starts an item
// is told at once after what the client holds (out of place until the next
// re-synchronisation), and renders are paid for by a credit of one item
// per op, past which they wait (the view at most doubles in between); the
// seal, the result and the stream's end always render, so every turn ends
// with the client's view in view order. Each subscriber keeps its own merged view and encoder
// state, charged to its task's byte budget in the relay (past it: 503 with
// Retry-After).
//
// # Nesting
//
// An orchestrator that serves its own front end nests a remote call inside
// its own tool call instead of handing the front end the callee's task:
// [AGUIRun] writes the callee's turn as an AG-UI sub-agent of the caller's
// tool call into the caller's run, and [ChatStream] as paced preliminary
// outputs (the callee's view so far) of the caller's useChat tool part,
// resumable after a page reload. Both feed the callee's ops through the same
// encoders, told whose events they are (PROTOCOL.md §9.3).
package frontend
