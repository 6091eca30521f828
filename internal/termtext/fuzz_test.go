package termtext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPrintable: whatever a peer sends, what the CLI prints of it holds no
// control character (but the newline), no DEL, no C1 control, no bidi
// control or other invisible formatting character, and is valid UTF-8 —
// for text (Printable), for peer messages (Peer: also cut) and for JSON
// output (JSONSafe: also decodes to the same string).
// Seeds: testdata/fuzz/FuzzPrintable.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b]0;title\x07\x1b[2J", "a\u202eb\u2066c\u2069\u200e\u200f\u061c\ufeff\u200b",
		"\u0085\u009b31m", "\x7f", "tab\tcr\r\nnl", "\xff\xfe", "tag \U000E0041", "http://u:pw@h/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Printable": Printable(s), "Peer": Peer(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: not valid UTF-8", name, s, out)
			}
			if i := strings.IndexFunc(out, func(r rune) bool { return terminalControl(r) && r != utf8.RuneError }); i >= 0 {
				t.Fatalf("%s(%q) = %q: a control or invisible character at %d", name, s, out, i)
			}
		}
		if len(Peer(s)) > 8*MaxPeerBytes+100 {
			t.Fatalf("Peer of %d bytes is %d bytes: not cut", len(s), len(Peer(s)))
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		safe := JSONSafe(b)
		if i := strings.IndexFunc(string(safe), func(r rune) bool { return terminalControl(r) && r != utf8.RuneError }); i >= 0 {
			t.Fatalf("JSONSafe(%s) = %s: a control or invisible character at %d", b, safe, i)
		}
		var back string
		if err := json.Unmarshal(safe, &back); err != nil {
			t.Fatalf("JSONSafe(%s) = %s: not JSON: %v", b, safe, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want && utf8.ValidString(s) {
			t.Fatalf("JSONSafe changed the value: %q, want %q", back, want)
		}
	})
}

// terminalControl reports the runes that must never reach a terminal from
// a peer: C0 controls but the newline, DEL, C1 controls, and the invisible
// formatting characters (bidi controls among them). cmd/a2a-tail's
// hostile_test.go holds the same predicate for what the command writes.
func terminalControl(r rune) bool {
	return r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || Invisible(r) || r == utf8.RuneError
}
