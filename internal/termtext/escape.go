package termtext

import (
	"fmt"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Invisible reports whether r changes how a terminal shows the text around
// it without showing itself: every default-ignorable code point (Unicode's
// Default_Ignorable_Code_Point, ignorable_table.go: bidi controls, zero-width
// joiners and spaces, fillers such as U+3164, the combining grapheme joiner,
// variation selectors, tag characters), the other format characters (Cf),
// and the line and paragraph separators. A peer could use them to make text
// read other than it is (an override reverses what follows it, "Trojan
// Source"; a filler looks like nothing at all), so Printable shows each as
// <U+XXXX>. Joiners and variation selectors inside emoji sequences are shown
// too: safety over ligatures.
//
//go:generate go test . -run TestDefaultIgnorableTable -update
func Invisible(r rune) bool {
	return r >= 0x80 && (unicode.Is(defaultIgnorable, r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029)
}

// escapeRune is the visible form of an invisible rune.
func escapeRune(r rune) string { return fmt.Sprintf("<U+%04X>", r) }

// JSONSafe rewrites JSON text produced by encoding/json so that no rune a
// terminal would act on stays raw: DEL, the C1 controls and the invisible
// formatting characters become \uXXXX escapes (surrogate pairs above the
// BMP). In JSON they can only occur inside strings, where the escape
// decodes to the same rune: scripts see the same values, and a user who
// pipes a2a-tail -o ndjson to a terminal sees escapes. encoding/json already
// escapes C0 controls and U+2028/2029.
func JSONSafe(b []byte) []byte {
	clean := true
	for _, c := range b {
		if c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == 0x7f, r >= 0x80 && r < 0xa0, Invisible(r):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// JSONWriter applies JSONSafe to what is written through it. A rune split
// between two writes (a bufio.Writer flushes where its buffer ends) is held
// back until its last byte arrives, so that it is escaped whole.
// encoding/json writes valid UTF-8, so nothing stays held at the end.
type JSONWriter struct {
	w       io.Writer
	pending []byte
}

// NewJSONWriter returns a JSONWriter that writes to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write writes p through JSONSafe, less the bytes of a rune it ends inside
// of (they go out with the next Write). It returns len(p), or 0 and the
// error of the underlying writer.
func (j *JSONWriter) Write(p []byte) (int, error) {
	b := append(j.pending, p...)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	j.pending = append([]byte(nil), b[cut:]...)
	if _, err := j.w.Write(JSONSafe(b[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}
