// Package client is the caller side of A2A progress: it sends a message to
// an agent (or follows a task) and turns the agent's stream into updates
// you can render, a merged view, and one authoritative outcome — over any
// transport, either protocol version, across cuts.
//
// # The model
//
// A turn is one request to an agent: from the message a caller sends (or
// the task it follows) to the task's next terminal or interrupted state.
// While the agent works, it streams working status updates; each one
// carries a structured progress envelope or, from older agents, plain
// text (package envelope reads both). The client:
//
//   - reads every working update — none is discarded — and merges its
//     envelope into the turn's view by (streamKey, seq), so replays and
//     duplicates are applied once (package merge);
//   - tracks the task's state, and takes the verdict from the terminal
//     state only: completed gives the reply, failed, rejected and canceled
//     an error, input-required and auth-required an interrupt to respond to
//     (package terminal). No envelope — not an error block, not a status
//     "aborted" — changes it;
//   - treats a stream that ends before a terminal or interrupted state as
//     cut, never as a result, and resumes it.
//
// A [Stream] is one turn. It yields [Update]s as they arrive (the
// envelope or fallback with the merge's verdict on it, state changes,
// artifacts, reconnect diagnostics, and last the turn's result), then
// gives the [Stream.Outcome] and the final [Stream.View].
//
// # Forwarding to a front end
//
// A caller forwards the turn to its front end as ops (package merge, and
// PROTOCOL.md §4): each applied block, the seal when the turn settles, and
// the result — the verdict in a JSON form the library owns. [Update.Op]
// hands each of them; the front end applies them to a merge.Receiver (or
// its JavaScript port), in any order, any number of times. Every op names
// the task and the turn ([Stream.Turn]: the messageId of the user message
// that opened it, which a second process following the task reads from
// its history too), so a task's second turn, after an interrupt, never
// mixes with its first. A block op carries at: the event's status
// timestamp, else its arrival time.
//
//	c, err := client.New(ctx, "https://agent.example")
//	s, err := c.SendText(ctx, "summarise the incident")
//	for u, err := range s.Updates() {
//		if err != nil {
//			break // an *IncompleteError, or ctx's error
//		}
//		if op, ok := u.Op(); ok {
//			forward(op) // blocks, the seal, the result
//		}
//	}
//	out, err := s.Outcome() // the verdict, from the terminal state only
//
// # Forwarding down a chain
//
// An agent built on package emit that answers its caller by asking
// another agent hands that agent's stream to [Forward] with the
// emit.Tool of the call that asked: every block the merge applied goes
// into the agent's own turn, nested under the call (PROTOCOL.md §10), so
// its caller's view, page and a2a-tail show the sub-agent's tool calls
// inside the call. Forward returns the sub-agent's outcome, whose reply is
// the call's result.
//
// # Three ways to follow a task
//
// [Client.Send] streams the turn of a new message (SendStreamingMessage).
// [Client.Dispatch] sends with return-immediately and returns the task id;
// [Client.Follow] subscribes to a task (SubscribeToTask) and yields the
// same Stream with the same parsing — the subscription starts with a Task
// snapshot whose history holds the envelopes sent before it, which are
// backfilled. [Client.Poll] is for peers without subscriptions: GetTask
// with history at an interval.
//
// Send returns once the first event has named the task, so
// [Stream.TaskID] is known before any update is read. [Client.Respond]
// starts the next turn of a task that waits for input, [Client.Cancel]
// cancels one. A task the agent does not know ends Follow and Poll with
// an error matching [a2a.ErrTaskNotFound], not an incomplete turn.
//
// Events that come from elsewhere — a recording, or a source that is not
// A2A translated into A2A events — run through the same pipeline with
// [Replay] ([WithTurn] names their turn up front, [WithArtifactProgress]
// routes artifacts that carry progress). Package client/v1query is such a
// source: a runtime's plain REST endpoint.
//
// # Cuts and reconnects
//
// a2a-go ends an event stream silently when the server closes it, and
// with an error on a reset or a truncated body; there is no replay cursor.
// The client treats as a cut: a clean close before the turn settled, a
// transport error, and silence longer than the idle timeout
// ([WithIdleTimeout]; bytes on HTTP, so SSE keep-alives count). After a
// cut it resubscribes to the task with exponential backoff and jitter,
// bounded by [WithRetry]. The new subscription's snapshot is backfilled
// into the merge, which drops what was already seen, so the view after
// any number of cuts equals the view of an uncut stream. A subscription
// refused before its first event — a task that settled meanwhile cannot be
// subscribed to — is resolved with GetTask, whose history is backfilled
// the same way. The message is never sent twice. When nothing resolves the
// turn, the stream ends with an [*IncompleteError] that carries the last
// known state: never a fake success.
//
// Retries end whatever the peer does. A resubscription counts as progress
// only when it brings something the turn did not have — a block, a state
// not reached before, an output artifact not seen before; a peer that
// replays its turn on every subscription (back at submitted, then working;
// its messages under fresh ids) runs out of [WithRetry]'s attempts and the
// turn ends incomplete with [ErrNoProgress] in its cause. On top of that a
// turn resubscribes at most 1000 times in all and 30 times a minute
// ([WithResubscribeLimit], [ErrResubscribeLimit]).
//
// # Transports and versions
//
// [New] reads the agent card (v1.0 and v0.3 formats) and registers
// JSON-RPC, HTTP+JSON and gRPC for both protocol v1.0 and v0.3;
// [WithTransport] forces one. The HTTP transports run on a client with no
// whole-request timeout, because a2a-go's default (3 minutes) kills long
// streams; deadlines come from the context, stalls from the idle timeout.
// [Wrap] adopts an a2aclient.Client built elsewhere.
//
// On JSON-RPC and HTTP+JSON the client registers, through a2a-go's
// transport factories, a transport of its own: unary calls are a2a-go's
// transport's; the two streaming calls
// are sent as a2a-go sends them and their event streams are read by the
// client: each event is bounded over all its lines (10 MiB), and
// the status updates that make up nearly all of a stream are decoded in
// one pass — several times less CPU per event than a2a-go's nested
// decoding (BENCHMARKS.md). A plain progress frame (a working update
// whose one part carries an envelope) is read once, straight into the
// merge, without an a2a-go event: its updates carry no Update.Event
// unless [WithEvents] asks for it. Any other frame is decoded with
// a2a-go's exported types, and errors take a2a-go's error values, so an
// event or a refusal means the same either way.
//
// # Concurrency and resources
//
// A Client is safe for concurrent use. A Stream is iterated by one
// goroutine, on which it pulls the events — no goroutine or channel per
// event; [Stream.View] may be called from any goroutine. Breaking out of
// the iteration, or canceling its context, closes the connection promptly
// and leaves nothing running; a stream from Send that will not be
// iterated is released with [Stream.Close] — or, dropped without it, when
// its context ends, at [Client.Close], or when it is garbage collected.
//
// # Limits
//
// What a peer's response may cost is decided by the call the client made,
// never by what the peer says it sent. On the HTTP transports built by
// [New], a response to a call that is not a stream (GetTask, SendMessage,
// ListTasks, the agent card) is refused past 64 MiB whatever its
// Content-Type ([ErrResponseTooLarge]), and one event of a stream past
// 10 MiB, all its lines together ([ErrEventTooLarge]); gRPC refuses a
// response past 64 MiB and a stream's message past 10 MiB, also with
// [ErrEventTooLarge] — the one error of an oversize event on every path:
// the HTTP transports' reader, gRPC, and the
// recordings and /v1/query streams framed by the same SSE reader (lines
// end at CR, LF or CRLF). A gRPC message is also refused, as too large,
// past 256 Ki protobuf elements (parts, values, messages), counted on the
// wire before it is decoded: a part of two bytes on the wire would build
// hundreds. A GetTask refused as too large is asked again at once for
// less history (history_length), down to none; too large even then, the
// turn ends incomplete at once, as it does when GetTask is not offered or
// the credentials are refused — no retry changes those — so retries never
// hold more than one oversize response. The idle timeout ([WithIdleTimeout])
// covers every call, from the request to the end of the response: a line of
// a stream (a keep-alive comment too) or 16 KiB of any response counts as
// activity, a peer trickling bytes does not. What a turn keeps in memory is
// bounded in bytes: one budget per turn ([WithTurnBudget], 32 MiB) for its
// merged blocks, tool outputs and artifacts, under one budget shared by
// the client's turns ([WithClientBudget], 512 MiB); the merge's count caps
// ([WithCaps]) are a second line. What they drop is counted in the view's
// counters (droppedByCap) and the outcome's (Truncated); the verdict is
// never touched.
//
// # Credentials
//
// Credentials stay with the origin the caller gave. The credentials are
// the service parameters ([WithAuth], [WithServiceParam]) and a password
// in the agent URL; the origin is the URL's scheme, host and port. An
// agent card may name interfaces anywhere: [New] keeps only those on the
// caller's origin and those [WithAllowedHosts] allows, and refuses a card
// left with none with an error that names both origins ([ErrOtherOrigin]).
// A card served after a redirect is judged against the URL the caller
// gave, not the redirect's target. A redirect to another origin never
// carries the credentials: the service parameters' headers,
// Authorization, Proxy-Authorization and Cookie are dropped from it.
// Without credentials a card is followed wherever it points. Credentials
// that an [http.Client] of [WithHTTPClient] adds itself (a cookie jar, a
// RoundTripper) are that client's to scope.
//
// # No orphaned tasks
//
// [Client.Send] gives a message without a context a new context id. When
// the stream fails before its first event, the agent may have created the
// task and be running it; the client finds it with ListTasks (that context,
// our message id in its history) and resumes it without sending again, or
// ends with an [*IncompleteError] that carries the message and context ids
// to find it later. A stream that failed before its request was sent — no
// connection, a failed TLS handshake — cannot have created a task: Send's
// stream ends with that error, and no task is looked for.
package client
