package envelope

import (
	"errors"
	"strconv"

	"github.com/tfrs/a2a-progress/internal/textcut"
)

// Reason says why an update has no usable envelope (or why an extra envelope
// in the same update was ignored). Its values are stable strings, safe to
// log, count and serialise.
//
// A Reason is also the error value of its condition, for errors.Is: the
// detailed [*Error] of a reason matches it,
//
//	errors.Is(err, envelope.ReasonBadField)
//
// so there is one name per condition, in the wire form and in Go.
type Reason string

// Error implements error with the reason's stable name, "bad_field", so
// that a Reason prints the same whether fmt sees a string or an error.
func (r Reason) Error() string { return string(r) }

// The reasons. ReasonNone means a valid envelope was used.
const (
	ReasonNone Reason = ""
	// ReasonNoEnvelope: no part carries metadata["tfrs"] (a plain-text,
	// pre-upgrade working update).
	ReasonNoEnvelope Reason = "no_envelope"
	// ReasonBadJSON: the tfrs value is not a JSON object (syntax error,
	// invalid UTF-8, a number, an array, …).
	ReasonBadJSON Reason = "bad_json"
	// ReasonUnsupportedVersion: v > 1.
	ReasonUnsupportedVersion Reason = "unsupported_version"
	// ReasonUnknownKind: kind is not one of the five v1 kinds.
	ReasonUnknownKind Reason = "unknown_kind"
	// ReasonBadField: a field is missing or has the wrong type or value;
	// Error.Field names it.
	ReasonBadField Reason = "bad_field"
	// ReasonChunkTooLarge: payload.chunk is over HardChunkLimit.
	ReasonChunkTooLarge Reason = "chunk_too_large"
	// ReasonEnvelopeTooLarge: the raw envelope is over MaxEnvelopeBytes.
	ReasonEnvelopeTooLarge Reason = "envelope_too_large"
	// ReasonExtraEnvelope: a further valid envelope in an update whose first
	// valid envelope was already taken (only in Reading.Ignored).
	ReasonExtraEnvelope Reason = "extra_envelope"
)

// Error is the detailed error for an envelope that cannot be used. It
// matches its [Reason] with errors.Is:
//
//	errors.Is(err, envelope.ReasonBadField)
type Error struct {
	// Reason classifies the failure.
	Reason Reason
	// Field names the field at fault ("seq", "payload.tool"), or "".
	Field string
	// Detail says what was wrong, in words.
	Detail string
	// Err is an underlying error (a JSON syntax error), or nil.
	Err error
}

var (
	errNoEnvelope          = &Error{Reason: ReasonNoEnvelope}
	errNoEnvelopeInMessage = &Error{Reason: ReasonNoEnvelope, Detail: "no part carries metadata.tfrs"}
)

// Error implements error: "envelope: seq: must be an integer (bad_field)".
func (e *Error) Error() string {
	s := "envelope: "
	if e.Field != "" {
		s += e.Field + ": "
	}
	if e.Detail != "" {
		s += e.Detail
	} else {
		s += string(e.Reason)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Detail != "" {
		s += " (" + string(e.Reason) + ")"
	}
	return s
}

// Is reports whether target is e's [Reason].
func (e *Error) Is(target error) bool {
	r, ok := target.(Reason)
	return ok && r == e.Reason
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the reason of the first *Error in err's tree (err itself,
// what it wraps, the members of an errors.Join), and ReasonNone when there
// is none.
func ReasonOf(err error) Reason {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Reason
	}
	return ReasonNone
}

func fieldError(field, detail string) *Error {
	return &Error{Reason: ReasonBadField, Field: field, Detail: detail}
}

// quote quotes s for an error message, cut to 64 bytes on a rune boundary
// (a cut inside a UTF-8 sequence would show as \x escapes).
func quote(s string) string {
	if len(s) > 64 {
		s = s[:textcut.Before(s, 64)] + "…"
	}
	return strconv.Quote(s)
}
