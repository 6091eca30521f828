// Package transport is the plumbing under a client.Client's a2a-go
// client: what a peer's answer may cost and how its bytes are counted.
//
//   - HTTPClient wraps the caller's HTTP client: no whole-request
//     Timeout (it would cut every stream), every response body bounded
//     by the call that asked for it (Bounds: a unary answer whole, a
//     stream per event) and counted as activity for the call's idle
//     watchdog (WithWatchdog, IdleCause), error bodies labelled so that
//     a2a-go reads them, and the status of calls that ask for it recorded
//     (WithStatus, TaskCallErr).
//   - FactoryOptions registers every a2a-go transport, both protocol
//     versions, on that client and on gRPC dial options that bound a
//     message as the HTTP transports bound a body; an oversize event gets
//     one error (ssewire.ErrEventTooLarge) whichever reader refused it.
//   - ParseCard and GRPCTarget read an agent card of either version and
//     the target of a gRPC interface.
//
// The turn logic — what a call means for the turn, when to resume — stays
// in package client; nothing here imports it.
package transport
