package envelope

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// tfrsPart is a text part carrying v under metadata["tfrs"].
func tfrsPart(text string, v any) *a2a.Part {
	p := a2a.NewTextPart(text)
	p.Metadata = map[string]any{MetadataKey: v}
	return p
}

func TestFromPartForms(t *testing.T) {
	valid := parseCases[0]
	var obj map[string]any
	if err := json.Unmarshal([]byte(valid.in), &obj); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		part   *a2a.Part
		want   Envelope
		form   Form
		reason Reason
		field  string
	}{
		{name: "string form", part: tfrsPart("x", valid.in), want: valid.want, form: FormString},
		{name: "object form", part: tfrsPart("x", obj), want: valid.want, form: FormObject},
		{name: "object form with Go ints", part: tfrsPart("x", map[string]any{"v": 1, "kind": "text", "seq": int64(-3), "status": "running",
			"payload": map[string]any{"text": "hi"}}), want: textSeq(-3), form: FormObject},
		{name: "object form with a typed payload", part: tfrsPart("x", map[string]any{"v": 1.0, "kind": "tool_call", "seq": 42.0, "status": "running",
			"payload": ToolCall{Tool: "t"}}), want: Envelope{V: 1, Kind: KindToolCall, Seq: 42, Status: StatusRunning, Payload: ToolCall{Tool: "t"}}, form: FormObject},
		{name: "object form seq float64 1.5", part: tfrsPart("x", map[string]any{"v": 1.0, "kind": "text", "seq": 1.5, "status": "running",
			"payload": map[string]any{"text": "hi"}}), form: FormObject, reason: ReasonBadField, field: "seq"},
		{name: "object form seq float64 2^63", part: tfrsPart("x", map[string]any{"v": 1.0, "kind": "text", "seq": float64(1 << 63), "status": "running",
			"payload": map[string]any{"text": "hi"}}), form: FormObject, reason: ReasonBadField, field: "seq"},
		{name: "object form that cannot be encoded", part: tfrsPart("x", map[string]any{"v": 1.0, "bad": make(chan int)}), form: FormObject, reason: ReasonBadJSON},
		{name: "object form over the cap", part: tfrsPart("x", map[string]any{"pad": string(make([]byte, MaxEnvelopeBytes))}), form: FormObject, reason: ReasonEnvelopeTooLarge},
		{name: "empty object", part: tfrsPart("x", map[string]any{}), form: FormObject, reason: ReasonBadField, field: "v"},
		{name: "tfrs a number", part: tfrsPart("x", 42.0), form: FormOther, reason: ReasonBadJSON},
		{name: "tfrs a bool", part: tfrsPart("x", true), form: FormOther, reason: ReasonBadJSON},
		{name: "tfrs an array", part: tfrsPart("x", []any{valid.in}), form: FormOther, reason: ReasonBadJSON},
		{name: "tfrs null", part: tfrsPart("x", nil), form: FormOther, reason: ReasonBadJSON},
		{name: "tfrs a map[string]string", part: tfrsPart("x", map[string]string{"v": "1"}), form: FormOther, reason: ReasonBadJSON},
		{name: "tfrs an empty string", part: tfrsPart("x", ""), form: FormString, reason: ReasonBadJSON},
		{name: "no metadata", part: a2a.NewTextPart("x"), reason: ReasonNoEnvelope},
		{name: "other metadata", part: &a2a.Part{Content: a2a.Text("x"), Metadata: map[string]any{"TFRS": valid.in}}, reason: ReasonNoEnvelope},
		{name: "nil part", part: nil, reason: ReasonNoEnvelope},
		{name: "data part", part: &a2a.Part{Content: a2a.Data{Value: 1}, Metadata: map[string]any{MetadataKey: valid.in}}, want: valid.want, form: FormString},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, form, _, err := fromPart(tc.part)
			if form != tc.form {
				t.Errorf("form = %q, want %q", form, tc.form)
			}
			checkResult(t, parseCase{want: tc.want, reason: tc.reason, field: tc.field}, got, false, err)
		})
	}
}

// TestObjectFormMirrorsStringForm sends every Parse case that is a JSON
// object through the object form, as a2a-go hands it over (numbers as
// float64), and requires the same outcome.
func TestObjectFormMirrorsStringForm(t *testing.T) {
	n := 0
	for _, tc := range parseCases {
		var obj map[string]any
		if tc.lossy || json.Unmarshal([]byte(tc.in), &obj) != nil || obj == nil {
			continue
		}
		n++
		t.Run(tc.name, func(t *testing.T) {
			got, form, soft, err := fromPart(tfrsPart("x", obj))
			if form != FormObject {
				t.Errorf("form = %q, want object", form)
			}
			checkResult(t, tc, got, soft, err)
		})
	}
	if n < 60 {
		t.Errorf("only %d cases mirrored", n)
	}
}

func textMsg(id string, parts ...*a2a.Part) *a2a.Message {
	return &a2a.Message{ID: id, Role: a2a.MessageRoleAgent, Parts: parts}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func fallbackEnv(text string) Envelope {
	return Envelope{V: 1, Kind: KindText, Status: StatusRunning, Payload: Text{Text: text}}
}

func TestFromMessage(t *testing.T) {
	call := parseCases[0]
	text := `{"v":1,"kind":"text","seq":9,"status":"running","payload":{"text":"second"}}`
	badSeq := textEnv(`"seq":1.5`)
	v2 := `{"v":2,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`
	for _, tc := range []struct {
		name string
		msg  *a2a.Message
		want Reading
	}{
		{name: "one valid part", msg: textMsg("m1", tfrsPart("calling ask_colleague", call.in)),
			want: Reading{Envelope: call.want, Form: FormString, Part: 0}},
		{name: "envelope after a plain text part", msg: textMsg("m1", a2a.NewTextPart("hello"), tfrsPart("x", call.in)),
			want: Reading{Envelope: call.want, Form: FormString, Part: 1}},
		{name: "over the soft limit", msg: textMsg("m1", tfrsPart("x", chunkEnv(SoftChunkLimit+1))),
			want: Reading{Envelope: chunkOf(SoftChunkLimit + 1), Form: FormString, Part: 0, OverSoftLimit: true}},
		{name: "first valid taken, the rest ignored", msg: textMsg("m1",
			tfrsPart("bad", badSeq), a2a.NewTextPart("plain"), tfrsPart("call", call.in), tfrsPart("text", text), tfrsPart("num", 5.0)),
			want: Reading{Envelope: call.want, Form: FormString, Part: 2, Ignored: []Ignored{
				{Part: 0, Form: FormString, Reason: ReasonBadField},
				{Part: 3, Form: FormString, Reason: ReasonExtraEnvelope},
				{Part: 4, Form: FormOther, Reason: ReasonBadJSON},
			}}},
		{name: "plain-text update", msg: textMsg("m-1", a2a.NewTextPart("working on it")),
			want: Reading{Envelope: fallbackEnv("working on it"), Fallback: true, Reason: ReasonNoEnvelope, Part: -1, ID: "msg:m-1"}},
		{name: "message without parts", msg: textMsg("m2"),
			want: Reading{Envelope: fallbackEnv(""), Fallback: true, Reason: ReasonNoEnvelope, Part: -1, ID: "msg:m2"}},
		{name: "nil message", msg: nil,
			want: Reading{Envelope: fallbackEnv(""), Fallback: true, Reason: ReasonNoEnvelope, Part: -1, ID: sha("")}},
		{name: "message without id", msg: textMsg("", a2a.NewTextPart("a")),
			want: Reading{Envelope: fallbackEnv("a"), Fallback: true, Reason: ReasonNoEnvelope, Part: -1, ID: sha("a")}},
		{name: "text parts joined with newlines", msg: textMsg("m3", a2a.NewTextPart(""), a2a.NewTextPart("a"), nil,
			&a2a.Part{Content: a2a.Data{Value: "not text"}}, a2a.NewTextPart("b")),
			want: Reading{Envelope: fallbackEnv("\na\nb"), Fallback: true, Reason: ReasonNoEnvelope, Part: -1, ID: "msg:m3"}},
		{name: "all envelopes invalid: the first reason counts", msg: textMsg("m4", tfrsPart("newer", v2), tfrsPart("broken", "{")),
			want: Reading{Envelope: fallbackEnv("newer\nbroken"), Fallback: true, Reason: ReasonUnsupportedVersion, Form: FormString, Part: -1, ID: "msg:m4",
				Ignored: []Ignored{{Part: 0, Form: FormString, Reason: ReasonUnsupportedVersion}, {Part: 1, Form: FormString, Reason: ReasonBadJSON}}}},
		{name: "chunk too large falls back to the text", msg: textMsg("m5", tfrsPart("[output too large]", chunkEnv(HardChunkLimit+1))),
			want: Reading{Envelope: fallbackEnv("[output too large]"), Fallback: true, Reason: ReasonChunkTooLarge, Form: FormString, Part: -1, ID: "msg:m5",
				Ignored: []Ignored{{Part: 0, Form: FormString, Reason: ReasonChunkTooLarge}}}},
		{name: "tfrs a number", msg: textMsg("m6", tfrsPart("t", 1.0)),
			want: Reading{Envelope: fallbackEnv("t"), Fallback: true, Reason: ReasonBadJSON, Form: FormOther, Part: -1, ID: "msg:m6",
				Ignored: []Ignored{{Part: 0, Form: FormOther, Reason: ReasonBadJSON}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FromMessage(tc.msg)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Reading{}, "Err"), cmpopts.IgnoreFields(Ignored{}, "Err")); diff != "" {
				t.Errorf("Reading (-want +got):\n%s", diff)
			}
			if got.Fallback {
				checkError(t, got.Err, got.Reason, errField(got.Err))
				if got.Reason == ReasonNoEnvelope && !errors.Is(got.Err, ReasonNoEnvelope) {
					t.Errorf("Err = %v, want ReasonNoEnvelope", got.Err)
				}
			} else if got.Err != nil {
				t.Errorf("Err = %v for a valid envelope", got.Err)
			}
			for _, ig := range got.Ignored {
				checkError(t, ig.Err, ig.Reason, errField(ig.Err))
			}
			if len(got.Ignored) > 0 && got.Fallback && got.Err != got.Ignored[0].Err {
				t.Errorf("Err of a fallback must be the first rejected envelope's")
			}
		})
	}
}

func errField(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Field
	}
	return ""
}

func TestFallbackIDStable(t *testing.T) {
	a := FromMessage(textMsg("", a2a.NewTextPart("same"), a2a.NewTextPart("text")))
	b := FromMessage(textMsg("", a2a.NewTextPart("same"), a2a.NewTextPart("text")))
	c := FromMessage(textMsg("", a2a.NewTextPart("other")))
	if a.ID != b.ID {
		t.Errorf("identical messages got IDs %q and %q", a.ID, b.ID)
	}
	if a.ID == c.ID {
		t.Errorf("different texts share the ID %q", a.ID)
	}
	if len(a.ID) != len("sha256:")+64 {
		t.Errorf("ID %q is not sha256:<64 hex>", a.ID)
	}
	// A replay of the same update (same messageId) keeps its identity even
	// if a proxy re-serialised it.
	m := textMsg("mid", a2a.NewTextPart("x"))
	b2, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var m2 a2a.Message
	if err := json.Unmarshal(b2, &m2); err != nil {
		t.Fatal(err)
	}
	if x, y := FromMessage(m).ID, FromMessage(&m2).ID; x != y || x != "msg:mid" {
		t.Errorf("IDs %q and %q, want msg:mid", x, y)
	}
}

func TestMessageText(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  *a2a.Message
		want string
	}{
		{"nil", nil, ""},
		{"no parts", textMsg("m"), ""},
		{"one", textMsg("m", a2a.NewTextPart("a")), "a"},
		{"one among others", textMsg("m", nil, a2a.NewRawPart([]byte("r")), a2a.NewTextPart("a")), "a"},
		{"three", textMsg("m", a2a.NewTextPart("a"), a2a.NewTextPart("b\n"), a2a.NewTextPart("c")), "a\nb\n\nc"},
		{"empty ones keep their place", textMsg("m", a2a.NewTextPart(""), a2a.NewTextPart(""), a2a.NewTextPart("c")), "\n\nc"},
		{"nil part", textMsg("m", nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, MessageText(tc.msg)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
