package termtext

import "testing"

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nsecond line", "plain text\nsecond line"},
		{"中文 and ü", "中文 and ü"},
		{"\x1b[2Jclear", "^[[2Jclear"},
		{"title\x1b]0;pwned\x07", "title^[]0;pwned^G"},
		{"crlf\r\nline", "crlf\nline"},
		{"a\tb", "a       b"},
		{"中\tb", "中      b"},
		{"del\x7f", "del^?"},
		{"c1\u009b2J", "c1\ufffd2J"},
		{"bad\xffutf8", "bad\ufffdutf8"},
	}
	for _, tc := range tests {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

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
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven chars", 10, "eleven ch…"},
		{"\x1b[31mred text here\x1b[0m", 5, "\x1b[31mred …\x1b[0m"},
		{"\x1b[31mred\x1b[0m", 3, "\x1b[31mred\x1b[0m"},
		{"ünïcödé wörds", 5, "ünïc…"},
		// Wide runes take two columns: the cut leaves room for "…".
		{"中文字符很宽", 12, "中文字符很宽"},
		{"中文字符很宽", 11, "中文字符很…"},
		{"中文字符很宽", 10, "中文字符…"},
		{"💭 thinking", 6, "💭 th…"},
		// Combining marks take none.
		{"e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301e\u0301"},
		{"ab", 1, "…"},
	}
	for _, tc := range tests {
		if got := Clip(tc.in, tc.width); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}
