package envelope

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// Form is the shape in which metadata["tfrs"] was found.
type Form string

// The forms of the tfrs value.
const (
	// FormNone: no tfrs key.
	FormNone Form = ""
	// FormString: the spec form, a JSON string holding the envelope.
	FormString Form = "string"
	// FormObject: a JSON object under the key (tolerated, validated identically).
	FormObject Form = "object"
	// FormOther: a value that is neither (a number, an array, …): always bad JSON.
	FormOther Form = "other"
)

// fromPart reads the envelope carried by one part's metadata["tfrs"].
//
// It returns the envelope, the form in which it was found, whether its chunk
// is over [SoftChunkLimit], and an [*Error]: [ReasonNoEnvelope] when the part
// has no tfrs key, or the reason the envelope cannot be used.
func fromPart(p *a2a.Part) (e Envelope, form Form, overSoft bool, err error) {
	if p == nil {
		return Envelope{}, FormNone, false, errNoEnvelope
	}
	v, ok := p.Metadata[MetadataKey]
	if !ok {
		return Envelope{}, FormNone, false, errNoEnvelope
	}
	switch v := v.(type) {
	case string:
		e, overSoft, err = parseString(v)
		return e, FormString, overSoft, err
	case map[string]any:
		// Re-encoding sends the object through the very decoder the string
		// form uses, so both forms obey one set of rules. Numbers arrive as
		// float64 here, which is why seq accepts integral floats.
		b, merr := json.Marshal(v)
		if merr != nil {
			return Envelope{}, FormObject, false, &Error{Reason: ReasonBadJSON, Detail: "object form cannot be encoded", Err: merr}
		}
		e, overSoft, err = parseBytes(b)
		return e, FormObject, overSoft, err
	default:
		return Envelope{}, FormOther, false, &Error{Reason: ReasonBadJSON, Detail: "tfrs holds " + jsonstr.Kind(v) + ", want a JSON string or object"}
	}
}

// Ignored is a part that carried a tfrs key but did not provide the update's
// envelope.
type Ignored struct {
	// Part is the index of the part in the message.
	Part int
	// Form is the shape of its tfrs value.
	Form Form
	// Reason is why it was not used; ReasonExtraEnvelope for a valid
	// envelope after the first.
	Reason Reason
	// Err is the detailed error.
	Err error
}

// Reading is what one working update carries: a valid envelope, or a text
// fallback. Reading never fails; a fallback says why in Reason and Err.
type Reading struct {
	// Envelope is the valid envelope, or for a fallback the pseudo envelope
	// {v:1, kind:text, status:running, payload:{text: <the update's text>}}
	// (its Seq is 0 and means nothing; use ID).
	Envelope Envelope
	// Fallback is true when Envelope is the pseudo text envelope.
	Fallback bool
	// Reason is ReasonNone for a valid envelope, else why the update fell
	// back (ReasonNoEnvelope for a plain-text update).
	Reason Reason
	// Err is the detailed *Error of a fallback, nil otherwise.
	Err error
	// Form is the shape of the tfrs value that was used, or for a fallback
	// of the first one that was rejected (FormNone when there was none).
	Form Form
	// Part is the index of the part whose envelope was used, or -1.
	Part int
	// OverSoftLimit is true when the envelope's chunk is over SoftChunkLimit.
	OverSoftLimit bool
	// ID identifies a fallback across replays of the same update: "msg:" +
	// messageId, or "sha256:" + hex digest of the text when the message has
	// no id. "" for a valid envelope, whose identity is (StreamKey, Seq).
	ID string
	// Ignored lists the other parts that carried a tfrs key.
	Ignored []Ignored
}

// FromMessage reads the envelope of a working status message: the first
// valid envelope in part order, or the text fallback. A nil message gives
// a fallback with empty text.
func FromMessage(m *a2a.Message) Reading {
	r := Reading{Part: -1}
	var firstErr error
	if m != nil {
		for i, p := range m.Parts {
			e, form, soft, err := fromPart(p)
			if form == FormNone {
				continue
			}
			if err == nil && r.Part < 0 {
				r.Envelope, r.Form, r.Part, r.OverSoftLimit = e, form, i, soft
				continue
			}
			if err == nil {
				err = &Error{Reason: ReasonExtraEnvelope, Detail: "part " + strconv.Itoa(i) + " carries a second envelope (at most one per update)"}
			} else if firstErr == nil {
				firstErr = err
				if r.Part < 0 {
					r.Form = form
				}
			}
			r.Ignored = append(r.Ignored, Ignored{Part: i, Form: form, Reason: ReasonOf(err), Err: err})
		}
	}
	if r.Part >= 0 {
		return r
	}
	if firstErr == nil {
		firstErr = errNoEnvelopeInMessage
	}
	text := MessageText(m)
	r.Envelope = Envelope{V: Version, Kind: KindText, Status: StatusRunning, Payload: Text{Text: text}}
	r.Fallback = true
	r.Err = firstErr
	r.Reason = ReasonOf(firstErr)
	r.ID = fallbackID(m, text)
	// The rejected envelopes are all in Ignored, the first one also in Err.
	return r
}

// FromTfrs is [FromMessage] for a message of one part whose
// metadata["tfrs"] is a JSON string, b being its contents (unescaped),
// when b is a valid envelope: the same Reading, and true. It keeps nothing
// of b. false when b is not a valid envelope: the fallback then needs the
// whole message (FromMessage). It lets a reader of the wire hand the
// envelope over without building the a2a-go message around it.
func FromTfrs(b []byte) (Reading, bool) {
	e, soft, err := parseBytes(b)
	if err != nil {
		return Reading{}, false
	}
	return Reading{Envelope: e, Form: FormString, Part: 0, OverSoftLimit: soft}, true
}

// MessageText joins the text parts of m with "\n" (what a pre-upgrade
// caller displays); an empty text part keeps its place, other parts and nil
// parts are skipped. It returns "" for a nil message.
func MessageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	n, count := 0, 0
	for _, p := range m.Parts {
		if t, ok := partText(p); ok {
			n += len(t)
			count++
		}
	}
	if count == 1 {
		for _, p := range m.Parts {
			if t, ok := partText(p); ok {
				return t
			}
		}
	}
	var b strings.Builder
	b.Grow(n + count)
	first := true
	for _, p := range m.Parts {
		if t, ok := partText(p); ok {
			if !first {
				b.WriteByte('\n')
			}
			first = false
			b.WriteString(t)
		}
	}
	return b.String()
}

// partText returns the text of a text part. A nil part (JSON "parts":[null]
// decodes to one) is no text part.
func partText(p *a2a.Part) (string, bool) {
	if p == nil {
		return "", false
	}
	t, ok := p.Content.(a2a.Text)
	return string(t), ok
}

func fallbackID(m *a2a.Message, text string) string {
	if m != nil && m.ID != "" {
		return "msg:" + m.ID
	}
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}
