// Package relay forwards the progress of A2A tasks to browsers over
// Server-Sent Events: live, resumable without loss or duplicates, fanned out
// from one upstream per task, and served by any replica.
//
// # The model
//
// A [Handler] serves GET /tasks/{taskId}/events as text/event-stream. Each op
// of the task (package merge: a block, the seal, the result — PROTOCOL.md
// §4) is one SSE event whose data is the op's JSON and whose id is a
// cursor. Receivers apply ops idempotently and in any order, which is what
// makes every rule below safe (PROTOCOL.md §6):
//
//   - Resume. A reader that reconnects with Last-Event-ID (EventSource sends
//     it by itself) or ?after=<cursor> gets exactly the ops after its cursor.
//   - Snapshot. A cursor the relay cannot resume from — none, malformed,
//     fallen out of the bounded op log, from an evicted log, or minted by
//     another process — gets the task's current view as ops (a snapshot),
//     then the live ops. Only a snapshot's last event carries a cursor, so
//     a cut inside a snapshot gives a snapshot again.
//   - End. When the task's latest turn settles the relay sends the seal and
//     the result op and ends the response. A reconnect after that gets what
//     it misses of the final view (a reloaded page, without a cursor: all of
//     it), the result op again, and the end; a page closes its EventSource
//     on the result op. A task has several turns when the user responds
//     to an interrupt: a snapshot holds every turn the relay kept, and a turn
//     attached later reopens the task's stream.
//
// The wire — route, cursor form, snapshot, keep-alives, end and error
// responses — is PROTOCOL.md §8.
//
// # Formats
//
// ?format= selects the wire format of a subscription: "ops" ([FormatOps],
// the default) as above; further formats plug in with [WithFormat] as a
// [Format] (an [Encoder] per subscription) that sees the same ops,
// snapshots and ends. Package relay/frontend is two of them — AG-UI
// (CopilotKit) and the Vercel AI SDK's UI message stream (useChat) — whose
// encoders also serve those protocols' own endpoints ([Handler.AGUI],
// [Handler.Chat]), which send the front end's message to the agent and
// publish its turn here with [Handler.Attach]; it also nests a remote call
// inside an orchestrator's own AG-UI run or useChat stream.
//
// # Sources
//
// One upstream per task, however many readers. [Handler.Attach] publishes a
// turn the caller already runs (its own Client.Send): the caller iterates
// what Attach returns instead of the stream's updates, so it still sees
// every update and its outcome. The task is the relay's from the call to
// Attach (the stream knows its id when Send returns): a reader that comes
// before the first op waits for it, and no Follow starts for it. A request for a task nothing feeds starts a
// [Follower]'s Follow (a [client.Client]: subscribe, with the history
// backfilled) shared by every reader of that task. A follow that ends
// without a verdict (the client reports the turn incomplete) forwards that
// result but settles nothing: the task is dropped and the next request
// follows it again.
//
// # Bounds
//
// Each task keeps an op log capped by ops and bytes ([DefaultMaxOps],
// 8 MiB) and a merged view capped as merge.Caps caps a turn.
// Readers share the log: a publish appends once and wakes each reader with a
// non-blocking send, and each reader writes from its own request goroutine —
// no goroutine, channel or copy per op or per reader. A reader that falls out
// of the log, or whose write does not finish within the write timeout
// (10 s), is dropped; its reconnect resumes or snapshots.
// Readers per task and in total, and tasks are capped; so are bytes, per
// task and in all. A task's budget (128 MiB) covers
// its log (at most 8 MiB of it), its merged view (a
// merge.Budget of merge.DefaultMaxTurnBytes for every turn it keeps) and, in
// what those leave, each front-end reader's own merged view and encoder
// state (package relay/frontend); the tasks share the handler's (64 MiB). Past them a new
// task or front-end reader gets 503 with Retry-After, counted in [Stats],
// and a block that would take a view past a budget is left out of it and
// counted (droppedByCap); the readers already served go on. Plain ops
// readers share the log and cost no budget of their own. A task nobody
// watches is evicted after a TTL ([DefaultTTL]); Close, or the context
// given to [New], stops everything. The Follower's stream holds its own
// view under its client's budget, which the relay cannot see: while a
// Follow runs the relay reserves that budget whole ([WithFollowBudget],
// default [DefaultFollowBudget], 8 MiB: build the Follower with
// client.WithTurnBudget(relay.DefaultFollowBudget), as a2a-tail web does)
// and 4 MiB for its decoding, so that the handler's budget covers all the
// relay holds however many tasks it follows. The Go runtime adds its own
// overhead: the heap grows to about twice what is live before a
// collection, and what is decoded or rendered for a moment comes on top.
// With the defaults the process's RSS stays under 256 MiB however many
// tasks flood it and however many readers read them (TestRelayFloodRSS:
// 24 flooding tasks with an ops, an AG-UI and an AI SDK reader each;
// BENCHMARKS.md has the figures).
//
// # Access
//
// Every request passes an [Authorizer] (request, task id → allow, 403, or 404
// with [ErrNotFound]); without one every request is refused — there is no
// open default ([AllowLoopback] suits a relay on 127.0.0.1). Refusals are a
// JSON body {"error": …}, never a stream. Task ids are checked by
// [ValidateTaskID]. CORS headers are sent only for origins given to
// [WithCORS].
//
// The trap is the confused deputy: the relay reads tasks with its own
// credentials (its Follower's), so the agent's access checks see the relay,
// not the browser. An Authorizer that only checks who the browser is lets it
// read every task the relay may read — tasks other people started elsewhere
// included. The common policy is ready-made: a [TaskSet] filled by
// [WithStartedTasks] (every task the relay's attached streams start, the
// front-end endpoints' included) and by the program (tasks it names), whose
// [TaskSet.Authorizer] allows only those.
//
// A server that puts the relay in front of a browser also checks that each
// request is meant for it: a [Guard] (wrap the whole server) refuses a Host
// it does not respond to — what a DNS-rebinding page sends — and a browser
// Origin it does not allow, and requires an access token when one is set
// (PROTOCOL.md §8.5). `a2a-tail web` uses all three.
//
// # Replicas
//
// By default replicas share nothing. The agent's task store is the durable
// source: a cursor carries a random per-Handler epoch, so a replica that gets
// a cursor it did not mint follows the task (one SubscribeToTask, which
// backfills the history; one GetTask for a settled task) and responds with a
// snapshot. Behind a load balancer no sticky sessions are needed; a
// reconnect that lands elsewhere costs the agent one subscription for a task
// that replica did not already follow, and the reader one snapshot. An
// attached turn (a worker's own Send, a /v1/query stream) is served only by
// the Handler it was attached to.
//
// With a shared [Store] ([WithStore]; package relay/redisstore on Redis
// Streams) every Handler of a deployment — browser-facing replicas and
// workers that only Attach, without an HTTP server — appends its ops to one
// log per task in the store, and each replica serving a task mirrors that
// log into its own bounded log (the bounds above still hold per replica).
// The SSE id is the store's record id, so a reconnect that lands on any
// replica resumes without a snapshot (PROTOCOL.md §8.2.1); the
// useChat endpoint ([Handler.Chat]) shares its chat → task map there; and a lease in the store lets one process per
// task follow it upstream. A store that fails is said in the log and in
// [Stats], and new readers get 503 with Retry-After until it responds.
//
// # Why net/http alone
//
// Writing SSE is an id: line, data: lines and a flush ([EventWriter]);
// the parts that matter — the cursor that names a position in a bounded log
// of one process, the snapshot when it does not, the end at settle, the
// per-reader write deadline through http.ResponseController — are this
// package's own rules. SSE server libraries (github.com/tmaxmax/go-sse and
// its replay providers) keep a replay buffer per topic with their own ids
// and replay from it, which is the part we must do differently (a snapshot of
// a merged view, not a replay of a buffer that may have been trimmed).
package relay
