package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Printable makes text that came from the remote agent safe to write to a
// terminal. Envelopes, tool output, replies and error messages are the
// peer's bytes: an ESC in them would let the peer move the cursor, clear
// the screen, retitle the window or write the clipboard (OSC 52) — and
// would break the live view's line accounting. So every control character
// but the newline is shown in caret notation (ESC as ^[, DEL as ^?), C1
// controls and invalid UTF-8 as U+FFFD, bidi controls and other invisible
// formatting characters as <U+XXXX> (see Invisible), a carriage return is
// dropped (CRLF output stays one line) and a tab is expanded to the next
// multiple of 8 columns.
func Printable(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	col := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n':
			b.WriteByte('\n')
			col = 0
		case r == '\r':
		case r == '\t':
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case r < 0x20 || r == 0x7f:
			b.WriteByte('^')
			b.WriteByte(byte(r) ^ 0x40)
			col += 2
		case r == utf8.RuneError && size == 1, r >= 0x80 && r < 0xa0:
			b.WriteRune(utf8.RuneError)
			col++
		case Invisible(r):
			e := escapeRune(r)
			b.WriteString(e)
			col += len(e)
		default:
			b.WriteRune(r)
			col += RuneWidth(r)
		}
	}
	return b.String()
}

// RuneWidth is the number of terminal columns r takes: 2 for East Asian
// wide and fullwidth characters (CJK, most emoji), 0 for combining marks
// and format characters (zero-width joiner, variation selectors), 1 for
// the rest.
func RuneWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf), r >= 0xfe00 && r <= 0xfe0f:
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Clip cuts a line to at most cols terminal columns, skipping the ANSI SGR
// sequences of the caller's own colours (remote text went through
// Printable, so every ESC in a line is the caller's). A cut line ends with "…" (and a colour
// reset when the line is coloured): the live view counts one screen row
// per line, which holds only if no line wraps.
func Clip(s string, cols int) string {
	if cols <= 0 {
		return s
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				return s[:i]
			}
			i += j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := RuneWidth(r)
		if n+w > cols || n+w == cols && Columns(s[i+size:]) > 0 {
			// No room for r and the ellipsis after it.
			cut := s[:i] + "…"
			if strings.Contains(s, "\x1b[") {
				cut += "\x1b[0m"
			}
			return cut
		}
		n += w
		i += size
	}
	return s
}

// Columns is the width of s on a terminal, SGR sequences excluded.
func Columns(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				return n
			}
			i += j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += RuneWidth(r)
		i += size
	}
	return n
}
