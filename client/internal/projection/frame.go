package projection

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// MetadataKey is the metadata key under which the runtime puts a
// projection on the A2A stream (PROTOCOL.md §5.1).
const MetadataKey = "_remote_invocation"

// Kind is the only projection kind this package knows.
const Kind = "remote_agent_invocation"

// KeyPrefix starts the streamKey and ID of every projection block.
const KeyPrefix = "ri:"

// Phase is a member's state in the runtime's batch coordinator.
type Phase string

// The phases of a member: QUEUED → RUNNING → COMPLETED / INPUT_REQUIRED /
// FAILED / TIMED_OUT.
const (
	PhaseQueued        Phase = "QUEUED"
	PhaseRunning       Phase = "RUNNING"
	PhaseInputRequired Phase = "INPUT_REQUIRED"
	PhaseCompleted     Phase = "COMPLETED"
	PhaseFailed        Phase = "FAILED"
	PhaseTimedOut      Phase = "TIMED_OUT"
)

// Valid reports whether p is one of the six phases.
func (p Phase) Valid() bool {
	switch p {
	case PhaseQueued, PhaseRunning, PhaseInputRequired, PhaseCompleted, PhaseFailed, PhaseTimedOut:
		return true
	}
	return false
}

// Frame is one projection: a member's phase change.
type Frame struct {
	BatchID        string
	ToolCallID     string
	Sequence       int64
	Target         string
	Phase          Phase
	ResultCategory string
	LatencyMs      float64
}

// Parse reads a projection value — what is under [MetadataKey], or the
// "projection" object of a /v1/query frame — strictly (see the package
// doc). The error is an *envelope.Error whose Field names the field at
// fault, prefixed with "_remote_invocation.".
func Parse(v any) (Frame, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return Frame{}, &envelope.Error{Reason: envelope.ReasonBadJSON, Field: MetadataKey,
			Detail: "want a JSON object, got " + jsonstr.Kind(v)}
	}
	kind, err := str(obj, "kind", true)
	if err != nil {
		return Frame{}, err
	}
	if kind != Kind {
		return Frame{}, &envelope.Error{Reason: envelope.ReasonUnknownKind, Field: MetadataKey + ".kind",
			Detail: strconv.Quote(kind) + " is not " + Kind}
	}
	var f Frame
	if f.BatchID, err = str(obj, "batchId", true); err != nil {
		return Frame{}, err
	}
	if f.ToolCallID, err = str(obj, "toolCallId", true); err != nil {
		return Frame{}, err
	}
	if f.Target, err = str(obj, "target", true); err != nil {
		return Frame{}, err
	}
	phase, err := str(obj, "phase", true)
	if err != nil {
		return Frame{}, err
	}
	if f.Phase = Phase(phase); !f.Phase.Valid() {
		return Frame{}, bad("phase", strconv.Quote(phase)+" is not a known phase")
	}
	if f.ResultCategory, err = str(obj, "resultCategory", false); err != nil {
		return Frame{}, err
	}
	seq, err := num(obj, "sequence")
	if err != nil {
		return Frame{}, err
	}
	if seq != math.Trunc(seq) || seq >= 1<<63 {
		return Frame{}, bad("sequence", "must be an integer >= 0")
	}
	f.Sequence = int64(seq)
	if f.LatencyMs, err = num(obj, "latencyMs"); err != nil {
		return Frame{}, err
	}
	return f, nil
}

// StreamKey is the member's key: "ri:" + esc(batchId) + ":" +
// esc(toolCallId) (see the package doc).
func (f Frame) StreamKey() string {
	return KeyPrefix + esc(f.BatchID) + ":" + esc(f.ToolCallID)
}

// ID is the block's identity: the member's key and its sequence.
func (f Frame) ID() string {
	return f.StreamKey() + ":" + strconv.FormatInt(f.Sequence, 10)
}

// Reading maps the frame to the Reading the merge applies as a
// schema.SourceProjection block (see the package doc for the mapping). part
// is the index of the part that carried it, or -1.
func (f Frame) Reading(part int) envelope.Reading {
	e := envelope.Envelope{V: envelope.Version, StreamKey: f.StreamKey(), Seq: f.Sequence}
	call := envelope.ToolCall{Tool: f.Target, ToolCallID: f.ToolCallID}
	switch f.Phase {
	case PhaseQueued, PhaseRunning:
		e.Kind, e.Status, e.Payload = envelope.KindToolCall, envelope.StatusRunning, call
	case PhaseInputRequired:
		e.Kind, e.Status, e.Payload = envelope.KindText, envelope.StatusRunning, envelope.Text{Text: f.Target + ": awaiting input"}
	case PhaseCompleted:
		e.Kind, e.Status, e.Payload = envelope.KindToolCall, envelope.StatusDone, call
	default: // FAILED, TIMED_OUT: Parse admits no other phase
		reason := f.ResultCategory
		if reason == "" {
			reason = string(f.Phase)
		}
		e.Kind, e.Status, e.Payload = envelope.KindError, envelope.StatusAborted, envelope.ErrorPayload{Message: f.Target + ": " + reason}
	}
	return envelope.Reading{Envelope: e, ID: f.ID(), Part: part}
}

func esc(s string) string { return envelope.EscapeKey(s) }

func bad(field, detail string) error {
	return &envelope.Error{Reason: envelope.ReasonBadField, Field: MetadataKey + "." + field, Detail: detail}
}

// str reads a string field; a required one must be present and non-empty.
func str(obj map[string]any, key string, required bool) (string, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		if required {
			return "", bad(key, "required")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", bad(key, "want a string, got "+jsonstr.Kind(v))
	}
	if required && s == "" {
		return "", bad(key, "must not be empty")
	}
	return s, nil
}

// num reads a required non-negative finite number. Values decoded from
// JSON are float64 (or json.Number); a Go producer in the same process may
// hand an int.
func num(obj map[string]any, key string) (float64, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return 0, bad(key, "required")
	}
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case int32:
		f = float64(n)
	case json.Number:
		x, err := n.Float64()
		if err != nil {
			return 0, bad(key, "want a number, got "+strconv.Quote(string(n)))
		}
		f = x
	default:
		return 0, bad(key, "want a number, got "+jsonstr.Kind(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, bad(key, "must be a finite number >= 0")
	}
	return f, nil
}
