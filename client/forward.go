package client

import (
	"errors"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/envelope/emit"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// Forward runs s to its end, as [Stream.Run] does, and hands every block
// the merge applied to f — for an agent that answers its own caller by
// asking another agent, f is the [emit.Tool] of the call that asked, and
// the sub-agent's progress nests under that call in the agent's own turn,
// so that the caller's caller sees it (the nesting extension, PROTOCOL.md
// §10). Each block goes to f once, in the order it was applied, across
// cuts and resumes: a replay's duplicates are not applied, so not
// forwarded. Fallbacks and projections go as the text, tool_call or error
// blocks they are.
//
// A block f refuses with an *envelope.Error (a key too long to forward,
// say) is not dropped silently: an error block saying so is forwarded in
// its place. Any other error of f — the agent's own execution ended
// (emit.ErrStopped), the call was closed (emit.ErrToolEnded) — stops the
// stream, and Forward returns it with what outcome there is. Otherwise it
// returns the sub-agent's outcome: the reply to hand back as the call's
// result, or why there is none.
func Forward(s *Stream, f emit.Forwarder) (terminal.Outcome, error) {
	return s.Run(func(u Update) error {
		op, ok := u.Op()
		if !ok || op.Type != schema.OpBlock {
			return nil
		}
		b := forwardBlock(op.Block)
		err := f.Forward(b)
		if _, bad := errors.AsType[*envelope.Error](err); bad {
			// At the call's top level: the block's own parent may be what
			// could not be forwarded.
			err = f.Forward(emit.Block{Status: envelope.StatusRunning,
				Payload: envelope.ErrorPayload{Message: "a block of the sub-agent could not be forwarded: " + err.Error()}})
		}
		return err
	})
}

// forwardBlock is b, a block of a sub-agent's turn, as [emit.Block]: its
// tool key, its parent, status and payload.
func forwardBlock(b schema.Block) emit.Block {
	return emit.Block{Key: b.ToolKey(), Parent: b.Parent, Status: b.Status, Payload: b.Payload}
}
