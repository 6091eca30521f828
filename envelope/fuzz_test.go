package envelope

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse reads arbitrary tfrs strings. Seeds are in
// testdata/fuzz/FuzzParse; CI runs only those.
//
// Besides "never panics", it checks the decoder against encoding/json used
// as an oracle (with exact keys, which a map gives, and exact numbers, which
// json.Number gives): whatever Parse accepts is valid JSON and says what the
// oracle reads; whatever is valid JSON is never called bad JSON.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		if len(tc.in) < 1<<10 {
			f.Add(tc.in)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, soft, err := parseString(s)
		oracleValid := utf8.ValidString(s) && json.Valid([]byte(s))
		if err != nil {
			r := ReasonOf(err)
			if r == ReasonNone || err.Error() == "" {
				t.Fatalf("rejection without a reason: %#v", err)
			}
			if diff := cmp.Diff(Envelope{}, e); diff != "" {
				t.Fatalf("rejected, yet an envelope (-want +got):\n%s", diff)
			}
			// encoding/json stops at 10000 levels of nesting; below 10000
			// bytes the two must agree on syntax.
			if r == ReasonBadJSON && oracleValid && len(s) < 10000 && bytes.HasPrefix(bytes.TrimLeft([]byte(s), " \t\r\n"), []byte("{")) {
				t.Fatalf("valid JSON object called bad JSON: %v", err)
			}
			return
		}
		if len(s) < 10000 && !oracleValid {
			t.Fatalf("accepted what encoding/json calls invalid")
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("accepted an envelope that does not validate: %v", err)
		}
		if soft != (e.Kind == KindToolOutputAppend && len(e.Payload.(ToolOutputAppend).Chunk) > SoftChunkLimit) {
			t.Fatalf("soft flag %v is wrong", soft)
		}
		checkOracle(t, s, e)

		// Write it back: the same envelope again.
		out, err := Marshal(e)
		if err != nil {
			t.Fatalf("Marshal of an accepted envelope: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Marshal(e)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(e, again); diff != "" {
			t.Fatalf("Parse(Marshal(e)) (-want +got):\n%s", diff)
		}

		// The object form, as a2a-go would hand it over, reads the same
		// while the numbers fit a float64 exactly.
		var obj map[string]any
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			t.Fatalf("oracle: %v", err)
		}
		if e.Seq <= 1<<53 && e.Seq >= -1<<53 {
			got, form, soft2, err := fromPart(tfrsPart("x", obj))
			if err != nil || form != FormObject || soft2 != soft {
				t.Fatalf("object form: %v (%q, %v)", err, form, soft2)
			}
			if diff := cmp.Diff(e, got); diff != "" {
				t.Fatalf("object form (-string form +object form):\n%s", diff)
			}
		}
	})
}

// checkOracle decodes s with encoding/json into a map (exact keys, the last
// duplicate wins, numbers as json.Number) and compares with e.
func checkOracle(t *testing.T, s string, e Envelope) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	intOf := func(name string) int64 {
		n, ok := m[name].(json.Number)
		if !ok {
			t.Fatalf("oracle: %s is %#v", name, m[name])
		}
		r, ok := new(big.Rat).SetString(string(n))
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			t.Fatalf("oracle: %s %s is not an int64", name, n)
		}
		return r.Num().Int64()
	}
	str := func(obj map[string]any, name string) string {
		switch v := obj[name].(type) {
		case string:
			return v
		case nil:
			return ""
		}
		t.Fatalf("oracle: %s is %#v", name, obj[name])
		return ""
	}
	p, ok := m["payload"].(map[string]any)
	if !ok {
		t.Fatalf("oracle: payload is %#v", m["payload"])
	}
	var wp Payload
	switch Kind(str(m, "kind")) {
	case KindThinking:
		wp = Thinking{Text: str(p, "text")}
	case KindToolCall:
		wp = ToolCall{Tool: str(p, "tool"), ToolCallID: str(p, "tool_call_id")}
	case KindToolOutputAppend:
		wp = ToolOutputAppend{Tool: str(p, "tool"), Chunk: str(p, "chunk"), ToolCallID: str(p, "tool_call_id")}
	case KindText:
		wp = Text{Text: str(p, "text")}
	case KindError:
		wp = ErrorPayload{Message: str(p, "message")}
	}
	want := Envelope{V: int(intOf("v")), Kind: Kind(str(m, "kind")), StreamKey: str(m, "streamKey"),
		Seq: intOf("seq"), Status: Status(str(m, "status")), Payload: wp, Parent: str(m, "parent")}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Fatalf("Parse disagrees with encoding/json (-oracle +Parse):\n%s", diff)
	}
}
