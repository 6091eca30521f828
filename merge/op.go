package merge

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tfrs/a2a-progress/envelope"
)

// OpType is the type of an op.
type OpType string

// The op types.
const (
	// OpBlock carries one applied block.
	OpBlock OpType = "block"
	// OpSeal says the turn is sealed.
	OpSeal OpType = "seal"
)

// Op is one change to forward to a front end: self-contained, idempotent for
// a [Receiver], and order-free (a Receiver that gets a Turn's ops in any
// order ends with the Turn's view).
//
// Its JSON form is flat and stable; NDJSON is one op per line:
//
//	{"type":"block","task":"t1","streamKey":"call-1","seq":42,"id":"","kind":"tool_call",
//	 "status":"running","payload":{"tool":"search"},"source":"envelope"}
//	{"type":"block","task":"t1","streamKey":"","seq":0,"id":"msg:m7","kind":"text",
//	 "status":"running","payload":{"text":"working…"},"source":"fallback",
//	 "reason":"no_envelope","after":42,"ordinal":1}
//	{"type":"block","task":"t1","streamKey":"ri:b1:call-9","seq":2,"id":"ri:b1:call-9:2",
//	 "kind":"tool_call","status":"done","payload":{"tool":"expense-review","tool_call_id":"call-9"},
//	 "source":"projection","after":42,"ordinal":2}
//	{"type":"seal","task":"t1"}
//
// A block op always has type, task, streamKey, seq, id, kind, status,
// payload (the envelope payload, per kind) and source; it has reason,
// overSoftLimit and truncated only when they are set (non-empty, true,
// non-zero), and, for a fallback or a projection, ordinal and — when it is
// anchored — after (see [Block]: seq means nothing for a fallback, id is its
// identity; a projection's seq counts within its streamKey only). A seal op
// has only type and task.
type Op struct {
	Type OpType
	Task string
	// Block is the block of an OpBlock; zero for OpSeal.
	Block Block
}

// wireBlock is the flat JSON form of a block.
type wireBlock struct {
	StreamKey     string          `json:"streamKey"`
	Seq           int64           `json:"seq"`
	ID            string          `json:"id"`
	Kind          envelope.Kind   `json:"kind"`
	Status        envelope.Status `json:"status"`
	Payload       json.RawMessage `json:"payload"`
	Source        Source          `json:"source"`
	Reason        envelope.Reason `json:"reason,omitempty"`
	OverSoftLimit bool            `json:"overSoftLimit,omitempty"`
	Truncated     int64           `json:"truncated,omitempty"`
	After         *int64          `json:"after,omitempty"`
	Ordinal       int64           `json:"ordinal,omitempty"`
}

type wireHead struct {
	Type OpType `json:"type"`
	Task string `json:"task"`
}

type wireOp struct {
	wireHead
	wireBlock
}

// ErrBadOp is returned (wrapped) by the JSON decoders for an op or block that
// cannot be decoded.
var ErrBadOp = errors.New("merge: bad op")

func (b Block) wire() (*wireBlock, error) {
	p, err := json.Marshal(b.Payload)
	if err != nil {
		return nil, fmt.Errorf("merge: payload: %w", err)
	}
	w := &wireBlock{StreamKey: b.Key.StreamKey, Seq: b.Key.Seq, ID: b.Key.ID, Kind: b.Kind, Status: b.Status,
		Payload: p, Source: b.Source, Reason: b.Reason, OverSoftLimit: b.OverSoftLimit, Truncated: b.Truncated,
		Ordinal: b.Ordinal}
	if b.Anchored {
		w.After = &b.After
	}
	return w, nil
}

func (w *wireBlock) block() (Block, error) {
	b := Block{Key: Key{StreamKey: w.StreamKey, Seq: w.Seq, ID: w.ID}, Kind: w.Kind, Status: w.Status,
		Source: w.Source, Reason: w.Reason, OverSoftLimit: w.OverSoftLimit, Truncated: w.Truncated, Ordinal: w.Ordinal}
	if w.After != nil {
		b.Anchored, b.After = true, *w.After
	}
	var err error
	if b.Payload, err = decodePayload(w.Kind, w.Payload); err != nil {
		return Block{}, err
	}
	e := envelope.Envelope{V: envelope.Version, Kind: b.Kind, Status: b.Status, Payload: b.Payload}
	if err := e.Validate(); err != nil {
		return Block{}, fmt.Errorf("%w: %w", ErrBadOp, err)
	}
	if !b.valid() {
		return Block{}, fmt.Errorf("%w: block %q/%d/%q is not a valid %s block", ErrBadOp, w.StreamKey, w.Seq, w.ID, w.Source)
	}
	return b, nil
}

// decodePayload decodes the payload of kind k into its envelope type.
func decodePayload(k envelope.Kind, raw json.RawMessage) (envelope.Payload, error) {
	switch k {
	case envelope.KindThinking:
		return decodeAs[envelope.Thinking](raw)
	case envelope.KindToolCall:
		return decodeAs[envelope.ToolCall](raw)
	case envelope.KindToolOutputAppend:
		return decodeAs[envelope.ToolOutputAppend](raw)
	case envelope.KindText:
		return decodeAs[envelope.Text](raw)
	case envelope.KindError:
		return decodeAs[envelope.ErrorPayload](raw)
	}
	return nil, fmt.Errorf("%w: kind %q", ErrBadOp, k)
}

// decodeAs decodes raw as a P. It returns the value, not a pointer: a
// Block holds payload values, as a reader gives them.
func decodeAs[P envelope.Payload](raw json.RawMessage) (envelope.Payload, error) {
	var v P
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: payload of kind %s: %w", ErrBadOp, v.Kind(), err)
	}
	return v, nil
}

// MarshalJSON encodes the block in the flat form of a block op, without
// type and task.
func (b Block) MarshalJSON() ([]byte, error) {
	w, err := b.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a block written by MarshalJSON and checks it.
func (b *Block) UnmarshalJSON(data []byte) error {
	var w wireBlock
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOp, err)
	}
	v, err := w.block()
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// MarshalJSON encodes the op in its flat form (see [Op]).
func (o Op) MarshalJSON() ([]byte, error) {
	h := wireHead{Type: o.Type, Task: o.Task}
	if o.Type != OpBlock {
		return json.Marshal(h)
	}
	b, err := o.Block.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(wireOp{h, *b})
}

// UnmarshalJSON decodes an op and checks it: an unknown type, kind, status
// or source, or a payload that does not fit its kind, is an error wrapping
// [ErrBadOp].
func (o *Op) UnmarshalJSON(data []byte) error {
	var w wireOp
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOp, err)
	}
	v := Op{Type: w.Type, Task: w.Task}
	switch w.Type {
	case OpSeal:
	case OpBlock:
		b, err := w.block()
		if err != nil {
			return err
		}
		v.Block = b
	default:
		return fmt.Errorf("%w: type %q", ErrBadOp, w.Type)
	}
	*o = v
	return nil
}
