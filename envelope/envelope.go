package envelope

import (
	"encoding/json"
	"strconv"
)

// MetadataKey is the Part.metadata key that carries the envelope.
const MetadataKey = "tfrs"

// Version is the envelope version this package reads and writes.
const Version = 1

// Size limits of the envelope (PROTOCOL.md §2.5) and the reader's own cap.
const (
	// SoftChunkLimit is the size above which a tool_output_append chunk is
	// accepted but flagged (Reading.OverSoftLimit).
	SoftChunkLimit = 8 << 10
	// HardChunkLimit is the size above which the envelope is dropped and the
	// text fallback is used (ReasonChunkTooLarge).
	HardChunkLimit = 64 << 10
	// MaxEnvelopeBytes caps the raw envelope JSON this package will parse.
	// A 64 KiB chunk escaped as \uXXXX is at most 6×64 KiB, so every legal
	// envelope fits.
	MaxEnvelopeBytes = 1 << 20
	// MaxIdentBytes is the longest identifier a reader keeps (streamKey,
	// a fallback's id, tool, tool_call_id, parent): identifiers are keys,
	// and cutting them would merge blocks that differ, so a receiver
	// refuses a longer one (PROTOCOL.md §2.5, §6.7).
	MaxIdentBytes = 1024
)

// Kind is the envelope's kind: what the block is.
type Kind string

// The five kinds of schema v1.
const (
	KindThinking         Kind = "thinking"
	KindToolCall         Kind = "tool_call"
	KindToolOutputAppend Kind = "tool_output_append"
	KindText             Kind = "text"
	KindError            Kind = "error"
)

// valid reports whether k is one of the five kinds of schema v1.
func (k Kind) valid() bool {
	switch k {
	case KindThinking, KindToolCall, KindToolOutputAppend, KindText, KindError:
		return true
	}
	return false
}

// Status is the envelope's status.
type Status string

// The three statuses of schema v1.
const (
	// StatusRunning marks a process block.
	StatusRunning Status = "running"
	// StatusDone marks that the tool of this streamKey finished.
	StatusDone Status = "done"
	// StatusAborted marks that the tool of this streamKey was aborted.
	StatusAborted Status = "aborted"
)

// Valid reports whether s is one of the three statuses of schema v1.
func (s Status) Valid() bool {
	return s == StatusRunning || s == StatusDone || s == StatusAborted
}

// Payload is the per-kind payload of an envelope. Its dynamic type is one of
// [Thinking], [ToolCall], [ToolOutputAppend], [Text] or [ErrorPayload].
type Payload interface {
	// Kind is the envelope kind this payload belongs to.
	Kind() Kind
	validate() error
}

// Thinking is the payload of a thinking block (rendered folded).
type Thinking struct {
	// Text is the thinking text.
	Text string `json:"text"`
}

// ToolCall is the payload of a tool_call block: a tool starts.
type ToolCall struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// ToolCallID is the call's id, "" when the producer gives none.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolOutputAppend is the payload of a tool_output_append block: one
// incremental slice of a tool's output, ordered by seq.
type ToolOutputAppend struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Chunk is this slice of the output.
	Chunk string `json:"chunk"`
	// ToolCallID is the call's id, "" when the producer gives none.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Text is the payload of a text block: ordinary progress text. It is also
// the payload of every fallback pseudo envelope.
type Text struct {
	// Text is the progress text.
	Text string `json:"text"`
}

// ErrorPayload is the payload of an error block: a process error on the
// callee side. It is progress, never a verdict on the turn.
type ErrorPayload struct {
	// Message is the error's text.
	Message string `json:"message"`
}

// Kind implements Payload.
func (Thinking) Kind() Kind { return KindThinking }

// Kind implements Payload.
func (ToolCall) Kind() Kind { return KindToolCall }

// Kind implements Payload.
func (ToolOutputAppend) Kind() Kind { return KindToolOutputAppend }

// Kind implements Payload.
func (Text) Kind() Kind { return KindText }

// Kind implements Payload.
func (ErrorPayload) Kind() Kind { return KindError }

func (Thinking) validate() error     { return nil }
func (Text) validate() error         { return nil }
func (ErrorPayload) validate() error { return nil }
func (p ToolCall) validate() error {
	if p.Tool == "" {
		return fieldError("payload.tool", "required for kind tool_call")
	}
	return nil
}
func (p ToolOutputAppend) validate() error {
	if p.Tool == "" {
		return fieldError("payload.tool", "required for kind tool_output_append")
	}
	if len(p.Chunk) > HardChunkLimit {
		return &Error{Reason: ReasonChunkTooLarge, Field: "payload.chunk",
			Detail: "chunk of " + strconv.Itoa(len(p.Chunk)) + " bytes is over the hard limit of 65536"}
	}
	return nil
}

// Envelope is one structured progress block (schema v1).
//
// Its zero value is not valid; [Envelope.Validate] says why.
type Envelope struct {
	// V is the envelope version; this package reads and writes 1.
	V int
	// Kind says what the block is; it must match Payload.Kind().
	Kind Kind
	// StreamKey is the callee's aggregation key; "" is the default stream.
	StreamKey string
	// Seq orders blocks within one turn (strictly increasing, gaps allowed,
	// any start value).
	Seq int64
	// Status is running, done or aborted.
	Status Status
	// Payload is the per-kind payload, a value of the type that matches
	// Kind (ToolCall, not *ToolCall).
	Payload Payload
	// Parent is the nesting extension (PROTOCOL.md §10): the key of the
	// tool call of the same turn that this block belongs under — a
	// sub-agent's block forwarded into the call that asked the sub-agent.
	// "" (the default) is a top-level block. It never changes the block's
	// identity or order, so a reader that ignores it still shows every
	// block once, in order. It must differ from the block's own tool key
	// ([Envelope.ToolKey]): a call cannot nest under itself.
	Parent string
}

// ToolKey is the key of the tool call e belongs to: its StreamKey, or the
// payload's tool_call_id when the StreamKey is empty ("" for a block of
// the default stream).
func (e Envelope) ToolKey() string {
	if e.StreamKey != "" {
		return e.StreamKey
	}
	switch p := e.Payload.(type) {
	case ToolCall:
		return p.ToolCallID
	case ToolOutputAppend:
		return p.ToolCallID
	}
	return ""
}

// Validate checks e against schema v1 and returns an [*Error] naming the
// first field at fault, or nil.
func (e Envelope) Validate() error {
	switch {
	case e.V < 1:
		return fieldError("v", "must be an integer >= 1")
	case e.V > Version:
		return &Error{Reason: ReasonUnsupportedVersion, Field: "v", Detail: "version " + strconv.Itoa(e.V) + " is newer than 1"}
	case !e.Kind.valid():
		return &Error{Reason: ReasonUnknownKind, Field: "kind", Detail: quote(string(e.Kind)) + " is not a v1 kind"}
	case !e.Status.Valid():
		return fieldError("status", quote(string(e.Status))+" is not running, done or aborted")
	case e.Payload == nil:
		return fieldError("payload", "required")
	case !isPayloadValue(e.Payload):
		// A *ToolCall satisfies Payload too, but a nil one would panic in
		// Kind, and a reader always gives back values.
		return fieldError("payload", "must be a payload value (Thinking, ToolCall, ...), not a pointer")
	case e.Payload.Kind() != e.Kind:
		return fieldError("payload", "is a "+string(e.Payload.Kind())+" payload, kind is "+string(e.Kind))
	}
	if err := e.Payload.validate(); err != nil {
		return err
	}
	return checkParent(e)
}

// checkParent refuses a block that names its own call as its parent: the
// one nesting rule a single envelope can break (a loop through several
// calls spans blocks, and a receiver breaks it, PROTOCOL.md §10.3).
func checkParent(e Envelope) error {
	if e.Parent != "" && e.Parent == e.ToolKey() {
		return fieldError("parent", "names the block's own tool call "+quote(e.Parent))
	}
	return nil
}

func isPayloadValue(p Payload) bool {
	switch p.(type) {
	case Thinking, ToolCall, ToolOutputAppend, Text, ErrorPayload:
		return true
	}
	return false
}

// envelopeJSON is the JSON shape used for writing.
type envelopeJSON struct {
	V         int     `json:"v"`
	Kind      Kind    `json:"kind"`
	StreamKey string  `json:"streamKey,omitempty"`
	Seq       int64   `json:"seq"`
	Status    Status  `json:"status"`
	Payload   Payload `json:"payload"`
	Parent    string  `json:"parent,omitempty"`
}

// MarshalJSON encodes e in the wire form of schema v1. It refuses an invalid
// envelope.
func (e Envelope) MarshalJSON() ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(envelopeJSON(e))
}

// UnmarshalJSON decodes and validates one envelope with the same rules as
// [Parse].
func (e *Envelope) UnmarshalJSON(b []byte) error {
	env, _, err := parseBytes(b)
	if err != nil {
		return err
	}
	*e = env
	return nil
}
