package jsonstr

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// AppendUnescaped decodes as encoding/json does, surrogates included.
func TestAppendUnescapedMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		``, `plain`, `a\"b\\c\/d`, `\b\f\n\r\t`, `\u00e9\u4E2D`,
		`\ud83d\ude00`, `\ud83d`, `\ude00x`, `\ud83d\u0041`, `é 中`,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := string(AppendUnescaped(nil, []byte(raw))); got != want {
			t.Errorf("AppendUnescaped(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestKind(t *testing.T) {
	for _, tc := range []struct {
		json, want string
	}{
		{`null`, "null"},
		{`"x"`, "a string"},
		{`true`, "a boolean"},
		{`1.5`, "a number"},
		{`[1]`, "an array"},
		{`{"a":1}`, "an object"},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.json), &v); err != nil {
			t.Fatal(err)
		}
		if got := Kind(v); got != tc.want {
			t.Errorf("Kind(%s) = %q, want %q", tc.json, got, tc.want)
		}
	}
	if got := Kind(struct{}{}); got != "a value of another type" {
		t.Errorf("Kind(struct{}{}) = %q", got)
	}
}

// The Scanner accepts exactly the JSON texts encoding/json accepts that
// are valid UTF-8 (encoding/json replaces invalid bytes in a string), and
// with AllowInvalidUTF8 exactly those encoding/json accepts.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0.5e+3,true,false,null,"x\u00e9\ud83d\ude00"]}`, `[]`, `{}`, ` "s" `, `01`, `1.`, `{"a" 1}`,
		`[1,]`, `"\x"`, "\"\xff\"", "\"a\tb\"", `"{\"v\":1,\"t\":\"a\\nb\"} \u00e9\ud83d\ude00 \ud800x \/"`, `nul`, `{"a":1}}`, `[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var sc Scanner
		sc.Reset(data)
		got := sc.Skip()
		if got && !sc.Done() {
			got = sc.Fail("data after the value")
		}
		if want := json.Valid(data) && utf8.Valid(data); got != want {
			t.Fatalf("Scanner on %q: %v (%s), encoding/json: %v", data, got, sc.Err(), want)
		}
		if !got && sc.Err() == "" {
			t.Fatalf("Scanner refused %q without a reason", data)
		}
		sc.Reset(data)
		sc.AllowInvalidUTF8()
		if got := sc.Skip() && sc.Done(); got != json.Valid(data) {
			t.Fatalf("Scanner allowing invalid UTF-8 on %q: %v (%s), encoding/json: %v", data, got, sc.Err(), !got)
		}
		for _, lax := range []bool{false, true} {
			checkStringTo(t, data, lax)
		}
	})
}

// checkStringTo checks that StringTo reads a string at the start of data
// as String does and appends what AppendUnescaped makes of it.
func checkStringTo(t *testing.T, data []byte, lax bool) {
	var a, b Scanner
	a.Reset(data)
	b.Reset(data)
	if lax {
		a.AllowInvalidUTF8()
		b.AllowInvalidUTF8()
	}
	if a.Peek() != '"' || b.Peek() != '"' {
		return
	}
	raw, f, ok := a.String()
	out, raw2, f2, ok2 := b.StringTo([]byte("pre"))
	if ok != ok2 || string(raw) != string(raw2) || f != f2 || a.Pos() != b.Pos() || a.Err() != b.Err() {
		t.Fatalf("lax %v, %q: String %q %v %v at %d (%s), StringTo %q %v %v at %d (%s)",
			lax, data, raw, f, ok, a.Pos(), a.Err(), raw2, f2, ok2, b.Pos(), b.Err())
	}
	want := "pre"
	if ok {
		want = string(AppendUnescaped([]byte(want), raw))
	}
	if string(out) != want {
		t.Fatalf("lax %v, StringTo(%q) appended %q, want %q", lax, data, out, want)
	}
}
