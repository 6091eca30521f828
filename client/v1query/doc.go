// Package v1query follows a turn of an agent runtime's plain REST
// endpoint, POST <base>/v1/query (PROTOCOL.md §5.3), through the same
// pipeline as an A2A turn: [Send] returns a [client.Stream], with the same
// updates, merged View and Outcome.
//
// The runtime is not A2A: it has an A2A exit too, but this endpoint answers
// with untyped SSE data: frames, told apart by shape. Projection frames
// {content, projection} are progress (the remote tool-call projections of
// PROTOCOL.md §5.1, merged like the A2A form's), the frame {message, items}
// is the interrupt (an Outcome.Interrupt with its items, state
// input-required), and every other frame is a business chunk of the reply
// (client.UpdateArtifact; the Outcome's artifact "reply", one part per chunk;
// Outcome.Reply, the text chunks joined). The body's clean end completes the
// turn.
//
// The package is built on client's generic seams: the frames become A2A
// events that [client.Replay] runs, named up front by [client.WithTurn],
// with the compatibility layer (client.WithCompat) on. It is named after
// the endpoint it speaks, the only contract it knows; package client
// speaks only A2A.
package v1query
