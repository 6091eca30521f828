package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrintableInvisible(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"file\u202eexe.txt", "file<U+202E>exe.txt"},
		{"\u2066isolate\u2069", "<U+2066>isolate<U+2069>"},
		{"marks \u200e\u200f\u061c", "marks <U+200E><U+200F><U+061C>"},
		{"zero\u200bwidth\ufeff", "zero<U+200B>width<U+FEFF>"},
		{"line\u2028sep", "line<U+2028>sep"},
		{"tag\U000E0041", "tag<U+E0041>"},
		{"ESC \x1b[2J", "ESC ^[[2J"},
		{"emoji 👍 and é stay", "emoji 👍 and é stay"},
	} {
		if got := printable(tc.in); got != tc.want {
			t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPeerText(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2000 bytes
	got := peerText("err: " + long)
	want := "err: " + strings.Repeat("é", 509) + "… [cut: 2005 bytes in all, 1023 shown]"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cut (-want +got):\n%s", d)
	}
	for in, want := range map[string]string{
		`Get "http://user:pw@h:1/x": refused`:         `Get "http://user:***@h:1/x": refused`,
		"a https://u:p@a/ and http://v:q@b:2 c":       "a https://u:***@a/ and http://v:***@b:2 c",
		"http://user@h/ has no password":              "http://user@h/ has no password",
		"no url: user:pw@host":                        "no url: user:pw@host",
		"http://u:p:q@h/ a colon in the password too": "http://u:***@h/ a colon in the password too",
	} {
		if got := peerText(in); got != want {
			t.Errorf("peerText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSONSafe(t *testing.T) {
	in := []byte("{\"a\":\"x\u202ey\u0085\x7f\U000E0041\"}")
	want := `{"a":"x\u202ey\u0085\u007f\udb40\udc41"}`
	if got := string(jsonSafe(in)); got != want {
		t.Errorf("jsonSafe = %s, want %s", got, want)
	}
	// A rune split between two writes is escaped whole.
	var b strings.Builder
	w := &jsonWriter{w: &b}
	raw := []byte("\"\u202e\"")
	_, _ = w.Write(raw[:2])
	_, _ = w.Write(raw[2:])
	if got := b.String(); got != `"\u202e"` {
		t.Errorf("split write = %q", got)
	}
}

// The stderr logger's attributes are peer text too: cut, redacted, and
// quoted with escapes by the text handler.
func TestLoggerEscapes(t *testing.T) {
	var b strings.Builder
	a := &app{stderr: &b, verbose: 2}
	a.logger().Debug("a2a stream cut", "cause", errors.New("\u202eevil\x1b[2J at http://u:pw@h/ "+strings.Repeat("x", 4<<20)))
	out := b.String()
	if strings.ContainsAny(out, "\u202e\x1b") || strings.Contains(out, "pw@") || len(out) > 4*maxPeerMessage {
		t.Fatalf("log line of %d bytes: %.300q", len(out), out)
	}
	if !strings.Contains(out, `\u202eevil\x1b[2J at http://u:***@h/`) || !strings.Contains(out, "bytes in all") {
		t.Fatalf("log line: %.300q", out)
	}
}
