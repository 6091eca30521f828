package emit

import (
	"fmt"

	"github.com/tfrs/a2a-progress/envelope"
)

// Block is one block of a sub-agent's turn, in plain types, to forward
// with [Tool.Forward]: what a caller read from the agent its tool call
// asked. Package client hands over the blocks its merge applied as Blocks
// (client.Forward), so that this package needs nothing of the caller side.
type Block struct {
	// Key is the block's tool key in the sub-agent's turn: its streamKey,
	// or the payload's tool_call_id when the streamKey is empty; "" for a
	// block of the sub-agent's default stream.
	Key string
	// Parent is the block's parent in the sub-agent's turn: set when the
	// sub-agent itself forwarded it from an agent further down; "" at the
	// sub-agent's top level.
	Parent string
	// Status is running, done or aborted.
	Status envelope.Status
	// Payload is the block's payload, a value (envelope.ToolCall, not
	// *envelope.ToolCall).
	Payload envelope.Payload
}

// Forwarder takes the blocks of a sub-agent's turn, in the order a caller
// applied them. [*Tool] is one: the tool call that asked the sub-agent.
type Forwarder interface {
	Forward(Block) error
}

var _ Forwarder = (*Tool)(nil)

// Forward sends b, a block of the sub-agent that t's call asked, as a
// block of this turn nested under the call (the nesting extension,
// PROTOCOL.md §10): with this turn's next seq, the key
// envelope.ForwardKey(t.ID(), b.Key) — so no forwarded key meets one of
// this turn's own — and the parent t.ID() for a block at the sub-agent's
// top level, envelope.ForwardKey(t.ID(), b.Parent) for one the sub-agent
// nested itself. A reader that knows nothing of nesting sees an ordinary
// block of this turn, once and in order; one that knows it shows the
// sub-agent's calls inside t's. The text fallback names t's tool before
// the block's own text ("ask_colleague › calling tool search"); a chunk's
// is the chunk alone.
//
// The sub-agent's seqs are not kept: a block gets this turn's next seq, so
// seqs stay strictly increasing in this turn (a block that reached the
// caller late stands where it was forwarded), and every cap of a reader
// (blocks, stream keys, output per call) applies to the forwarded blocks
// as to the rest of the turn. Forward fails after t ended
// ([ErrToolEnded]), and with the *envelope.Error of an envelope a reader
// would drop (a forwarded key over the identifier cap, a payload of
// another kind than the block, a block that names its own call as its
// parent).
func (t *Tool) Forward(b Block) error {
	e := t.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := t.usableLocked(); err != nil {
		return err
	}
	parent := t.id
	if b.Parent != "" {
		parent = envelope.ForwardKey(t.id, b.Parent)
	}
	env := envelope.Envelope{StreamKey: envelope.ForwardKey(t.id, b.Key), Status: b.Status, Payload: b.Payload, Parent: parent}
	if len(env.StreamKey) > envelope.MaxIdentBytes || len(parent) > envelope.MaxIdentBytes {
		return fmt.Errorf("emit: forward %q: %w", b.Key, &envelope.Error{Reason: envelope.ReasonBadField, Field: "streamKey",
			Detail: "the forwarded key is over the identifier cap of 1024 bytes (a chain too deep, or a key too long)"})
	}
	text := ""
	if _, chunk := b.Payload.(envelope.ToolOutputAppend); !chunk && b.Payload != nil {
		env.V, env.Kind = envelope.Version, b.Payload.Kind()
		text = t.tool + " › " + envelope.DefaultText(env)
	}
	if err := e.sendLocked(env, text); err != nil {
		return fmt.Errorf("emit: forward %q: %w", b.Key, err)
	}
	return nil
}
