// Package bench measures what the caller side costs on top of raw a2a-go,
// and that it stays bounded: throughput end to end, latency from a frame's
// arrival to its update, memory on a 1M-envelope stream and across 10k
// concurrent Follow streams. BENCHMARKS.md holds the figures and the
// commands that produced them.
//
// # The model
//
// A benchmark of the caller must be bound by the caller. Served by a2asrv,
// a long stream measures the server (its task store deep-copies a growing
// history per event, so the cost per event grows with the events already
// sent), so the peer here is an [agenttest.FrameServer]: a plain http.Handler that writes
// pre-rendered SSE frames. The frames are those of the reference callee's
// [callee.Trajectory] — the same envelopes, rendered once by a2a-go's own
// JSON encoding for JSON-RPC and REST (A2A 1.0) — with holes for the seq,
// the message id and the task id, so that a stream of any length costs the
// server a few appends per frame.
//
// Each measurement reads the same stream several ways, in turn in one
// process: [RawSend] is plain a2a-go iteration that touches the text of
// every part, the floor; [SDKSend] is the whole client pipeline (envelope
// read, merge, ops, verdict, idle watchdog, one Update per event). Their
// ratio, measured side by side, is the cost of the SDK; absolute figures
// move with the load of the shared host. A [Reader] is either one by name
// ("raw", "sdk"), and [Order] rotates which of them goes first.
//
// The heavy figures come from client/internal/bench/cmd/a2abench; the
// benchmarks of this package are the same code at a size `go test -bench`
// runs in seconds (flags -e2e.n, -lat.n).
package bench
