package termtext

import (
	"strings"
	"testing"
)

func TestJSONSafe(t *testing.T) {
	in := []byte("{\"a\":\"x\u202ey\u0085\x7f\U000E0041\"}")
	want := `{"a":"x\u202ey\u0085\u007f\udb40\udc41"}`
	if got := string(JSONSafe(in)); got != want {
		t.Errorf("JSONSafe = %s, want %s", got, want)
	}
	// A rune split between two writes is escaped whole.
	var b strings.Builder
	w := NewJSONWriter(&b)
	raw := []byte("\"\u202e\"")
	_, _ = w.Write(raw[:2])
	_, _ = w.Write(raw[2:])
	if got := b.String(); got != `"\u202e"` {
		t.Errorf("split write = %q", got)
	}
}
