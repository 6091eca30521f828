package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Parse decodes and validates one envelope given as its JSON text (the spec
// form of metadata["tfrs"]). The error is an [*Error].
func Parse(s string) (Envelope, error) {
	e, _, err := parseString(s)
	return e, err
}

// parseString avoids copying s: encoding/json never writes to its input and
// every string it returns is a fresh copy, so viewing s as bytes is safe.
func parseString(s string) (Envelope, bool, error) {
	return parseBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// field states of the hand-decoded scalars below.
const (
	absent uint8 = iota
	present
	wrongType
	notInteger
	outOfRange
)

// optString records whether a JSON string field was present and well-typed,
// without aborting the whole decode on a wrong type (encoding/json stops at
// the first error an Unmarshaler returns).
type optString struct {
	s     string
	state uint8
}

func (o *optString) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' {
		if string(b) == "null" {
			o.state = absent
			return nil
		}
		o.state = wrongType
		return nil
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		// The decoder has already checked syntax and we have checked UTF-8,
		// so an unescaped string is its own value.
		o.s = string(inner)
	} else if err := json.Unmarshal(b, &o.s); err != nil {
		o.state = wrongType
		return nil
	}
	o.state = present
	return nil
}

// optInt is a JSON number that must hold an integral value within int64.
type optInt struct {
	n     int64
	state uint8
}

func (o *optInt) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		if string(b) == "null" {
			o.state = absent
			return nil
		}
		o.state = wrongType // "3", true, {}, []
		return nil
	}
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		o.n, o.state = n, present
		return nil
	} else if errors.Is(err, strconv.ErrRange) {
		o.state = outOfRange
		return nil
	}
	// A fraction or an exponent: accept only an exactly integral value that
	// fits int64 (42.0 and 4.2e1 are 42; 1.5 is not an integer).
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		o.state = outOfRange
	case f != math.Trunc(f):
		o.state = notInteger
	case f < -(1<<63) || f >= 1<<63:
		o.state = outOfRange
	default:
		o.n, o.state = int64(f), present
	}
	return nil
}

// kindField and statusField match the enum literals without allocating.
type kindField struct {
	k     Kind
	state uint8
}

func (f *kindField) UnmarshalJSON(b []byte) error {
	var o optString
	switch string(b) {
	case `"thinking"`:
		f.k, f.state = KindThinking, present
	case `"tool_call"`:
		f.k, f.state = KindToolCall, present
	case `"tool_output_append"`:
		f.k, f.state = KindToolOutputAppend, present
	case `"text"`:
		f.k, f.state = KindText, present
	case `"error"`:
		f.k, f.state = KindError, present
	default:
		_ = o.UnmarshalJSON(b)
		f.k, f.state = Kind(o.s), o.state
	}
	return nil
}

type statusField struct {
	s     Status
	state uint8
}

func (f *statusField) UnmarshalJSON(b []byte) error {
	var o optString
	switch string(b) {
	case `"running"`:
		f.s, f.state = StatusRunning, present
	case `"done"`:
		f.s, f.state = StatusDone, present
	case `"aborted"`:
		f.s, f.state = StatusAborted, present
	default:
		_ = o.UnmarshalJSON(b)
		f.s, f.state = Status(o.s), o.state
	}
	return nil
}

type wirePayload struct {
	Text       optString `json:"text"`
	Tool       optString `json:"tool"`
	ToolCallID optString `json:"tool_call_id"`
	Chunk      optString `json:"chunk"`
	Message    optString `json:"message"`
}

type wireIn struct {
	V         optInt      `json:"v"`
	Kind      kindField   `json:"kind"`
	StreamKey optString   `json:"streamKey"`
	Seq       optInt      `json:"seq"`
	Status    statusField `json:"status"`
	Payload   wirePayload `json:"payload"`
}

// parseBytes is the one decoder behind every read path. It returns the
// envelope, whether its chunk is over the soft limit, and an *Error.
func parseBytes(b []byte) (Envelope, bool, error) {
	if len(b) > MaxEnvelopeBytes {
		return Envelope{}, false, &Error{Reason: ReasonEnvelopeTooLarge,
			Detail: itoa(len(b)) + " bytes is over the cap of " + itoa(MaxEnvelopeBytes)}
	}
	if !utf8.Valid(b) {
		return Envelope{}, false, &Error{Reason: ReasonBadJSON, Detail: "not valid UTF-8"}
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return Envelope{}, false, &Error{Reason: ReasonBadJSON, Detail: "not a JSON object"}
	}
	var w wireIn
	decErr := json.Unmarshal(b, &w)
	var typeErr *json.UnmarshalTypeError
	if decErr != nil && !errors.As(decErr, &typeErr) {
		return Envelope{}, false, &Error{Reason: ReasonBadJSON, Err: decErr}
	}
	// The version decides how to read everything else, so it is judged first.
	switch w.V.state {
	case absent:
		return Envelope{}, false, fieldError("v", "required")
	case present:
		if w.V.n < 1 {
			return Envelope{}, false, fieldError("v", "must be >= 1, got "+strconv.FormatInt(w.V.n, 10))
		}
		if w.V.n > Version {
			return Envelope{}, false, &Error{Reason: ReasonUnsupportedVersion, Field: "v",
				Detail: "version " + strconv.FormatInt(w.V.n, 10) + " is newer than 1"}
		}
	default:
		return Envelope{}, false, intError("v", w.V.state)
	}
	if typeErr != nil {
		f := typeErr.Field
		if f == "" {
			f = "payload"
		}
		return Envelope{}, false, fieldError(f, "must be a JSON "+expected(f)+", got "+typeErr.Value)
	}
	switch w.Kind.state {
	case absent:
		return Envelope{}, false, fieldError("kind", "required")
	case wrongType:
		return Envelope{}, false, fieldError("kind", "must be a string")
	}
	if !w.Kind.k.Valid() {
		return Envelope{}, false, &Error{Reason: ReasonUnknownKind, Field: "kind", Detail: quote(string(w.Kind.k)) + " is not a v1 kind"}
	}
	if w.StreamKey.state == wrongType {
		return Envelope{}, false, fieldError("streamKey", "must be a string")
	}
	if w.Seq.state != present {
		return Envelope{}, false, intError("seq", w.Seq.state)
	}
	switch w.Status.state {
	case absent:
		return Envelope{}, false, fieldError("status", "required")
	case wrongType:
		return Envelope{}, false, fieldError("status", "must be a string")
	}
	if !w.Status.s.Valid() {
		return Envelope{}, false, fieldError("status", quote(string(w.Status.s))+" is not running, done or aborted")
	}
	p, err := w.Payload.build(w.Kind.k)
	if err != nil {
		return Envelope{}, false, err
	}
	e := Envelope{V: int(w.V.n), Kind: w.Kind.k, StreamKey: w.StreamKey.s, Seq: w.Seq.n, Status: w.Status.s, Payload: p}
	return e, len(w.Payload.Chunk.s) > SoftChunkLimit, nil
}

func (w *wirePayload) build(k Kind) (Payload, error) {
	req := func(name string, o optString) error {
		switch o.state {
		case absent:
			return fieldError("payload."+name, "required for kind "+string(k))
		case wrongType:
			return fieldError("payload."+name, "must be a string")
		}
		return nil
	}
	opt := func(name string, o optString) error {
		if o.state == wrongType {
			return fieldError("payload."+name, "must be a string")
		}
		return nil
	}
	var p Payload
	var err error
	switch k {
	case KindThinking:
		err = req("text", w.Text)
		p = Thinking{Text: w.Text.s}
	case KindText:
		err = req("text", w.Text)
		p = Text{Text: w.Text.s}
	case KindError:
		err = req("message", w.Message)
		p = ErrorPayload{Message: w.Message.s}
	case KindToolCall:
		if err = req("tool", w.Tool); err == nil {
			err = opt("tool_call_id", w.ToolCallID)
		}
		p = ToolCall{Tool: w.Tool.s, ToolCallID: w.ToolCallID.s}
	case KindToolOutputAppend:
		if err = req("tool", w.Tool); err == nil {
			if err = req("chunk", w.Chunk); err == nil {
				err = opt("tool_call_id", w.ToolCallID)
			}
		}
		p = ToolOutputAppend{Tool: w.Tool.s, Chunk: w.Chunk.s, ToolCallID: w.ToolCallID.s}
	}
	if err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func intError(field string, state uint8) error {
	switch state {
	case absent:
		return fieldError(field, "required")
	case notInteger:
		return fieldError(field, "must be an integer, got a fraction")
	case outOfRange:
		return fieldError(field, "out of int64 range")
	default:
		return fieldError(field, "must be a JSON number")
	}
}

func expected(field string) string {
	if field == "payload" {
		return "object"
	}
	return "string"
}
