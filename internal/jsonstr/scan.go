package jsonstr

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Scanner is the one JSON tokenizer of the repository's exact readers:
// envelope's parser, the client's frame decoder (internal/fastframe) and
// schema's op key check. It checks syntax exactly as RFC 8259 and
// encoding/json do, and leaves every decision about keys to its caller: a
// lenient reader (an envelope, PROTOCOL.md §2.2) skips the keys it does
// not know and lets a repeated one win, a strict one (an op, a frame)
// refuses them. Strings come back as their raw contents, views of the
// input that the caller reads and never writes, with [Flags]; numbers as
// their text. It allocates nothing.
//
// A method that finds bad syntax returns false and records where and what
// ([Scanner.Err]); the caller stops there.
type Scanner struct {
	b   []byte
	i   int
	err string
	at  int
	lax bool // AllowInvalidUTF8
}

// AllowInvalidUTF8 makes the scanner accept invalid UTF-8 in a string
// (flagged [InvalidUTF8]), as encoding/json does, for a check that follows
// encoding/json's reading of the same bytes. Call it after Reset.
func (s *Scanner) AllowInvalidUTF8() { s.lax = true }

// Reset starts the scanner on b.
func (s *Scanner) Reset(b []byte) { *s = Scanner{b: b} }

// ResetString starts the scanner on str without copying it: the scanner
// never writes to its input, and the raw views it returns are read only.
func (s *Scanner) ResetString(str string) {
	s.Reset(unsafe.Slice(unsafe.StringData(str), len(str)))
}

// Pos is the offset of the cursor in the input.
func (s *Scanner) Pos() int { return s.i }

// Fail records the syntax error what at the cursor and returns false.
func (s *Scanner) Fail(what string) bool {
	s.err, s.at = what, s.i
	return false
}

// Err is the recorded syntax error, "invalid JSON at byte N: what"; ""
// when none was recorded.
func (s *Scanner) Err() string {
	if s.err == "" {
		return ""
	}
	return "invalid JSON at byte " + strconv.Itoa(s.at) + ": " + s.err
}

// ValidUTF8 reports whether the whole input is valid UTF-8: what a reader
// that names invalid UTF-8 before any syntax error asks on failure (a
// successful scan implies it).
func (s *Scanner) ValidUTF8() bool { return utf8.Valid(s.b) }

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek skips whitespace and returns the next byte, 0 at the end.
func (s *Scanner) Peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// Done skips whitespace and reports whether the input ends there.
func (s *Scanner) Done() bool {
	s.ws()
	return s.i == len(s.b)
}

// Object reads the object at the cursor, calling member with each key —
// its raw contents and whether they hold escapes — with the cursor at the
// member's value, which member must read (or [Scanner.Skip]). member
// returns false to stop (after Fail, for a syntax error).
func (s *Scanner) Object(member func(key []byte, f Flags) bool) bool {
	if s.Peek() != '{' {
		return s.Fail("want an object")
	}
	s.i++
	if s.Peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.Peek() != '"' {
			return s.Fail("want an object key")
		}
		key, f, ok := s.String()
		if !ok {
			return false
		}
		if s.Peek() != ':' {
			return s.Fail("want ':' after an object key")
		}
		s.i++
		s.ws()
		if !member(key, f) {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return s.Fail("want ',' or '}' in an object")
		}
	}
}

// Array reads the array at the cursor, calling elem with the cursor at
// each element, which elem must read; false stops.
func (s *Scanner) Array(elem func() bool) bool {
	if s.Peek() != '[' {
		return s.Fail("want an array")
	}
	s.i++
	if s.Peek() == ']' {
		s.i++
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return s.Fail("want ',' or ']' in an array")
		}
	}
}

// Flags describe a string's raw contents.
type Flags uint8

const (
	// Escaped: the contents hold escapes ([AppendUnescaped] decodes them).
	Escaped Flags = 1 << iota
	// Surrogate: an escape is a UTF-16 surrogate, which encoding/json
	// decodes as a pair or replaces with U+FFFD.
	Surrogate
	// InvalidUTF8: the contents hold invalid UTF-8, which encoding/json
	// replaces with U+FFFD (only with AllowInvalidUTF8).
	InvalidUTF8
)

// String reads the string at the cursor (its opening quote) and returns
// its raw contents, between the quotes. Control characters, bad escapes
// and invalid UTF-8 are syntax errors.
func (s *Scanner) String() (raw []byte, f Flags, ok bool) {
	s.i++ // '"'
	start := s.i
	b := s.b
	for s.i < len(b) {
		i := s.plain()
		if i == len(b) {
			break
		}
		if b[i] == '"' {
			s.i++
			return b[start:i], f, true
		}
		if b[i] == '\\' && i+1 < len(b) && simpleEscape[b[i+1]] != 0 { // inline: an envelope in a frame is full of \"
			f |= Escaped
			s.i = i + 2
			continue
		}
		if !s.special(&f) {
			return nil, 0, false
		}
	}
	return nil, 0, s.Fail("unterminated string")
}

// plain moves the cursor over a run of plain ASCII inside a string, the
// bulk of every string, and returns it: a tight loop on a local index
// (s.i, a field, would be stored at every step).
func (s *Scanner) plain() int {
	i, b := s.i, s.b
	for i < len(b) && plainASCII[b[i]] {
		i++
	}
	s.i = i
	return i
}

// StringTo is [Scanner.String] that also appends the string's decoded
// contents to buf, as [AppendUnescaped] would, in the same pass: for a
// long string full of escapes (an envelope inside a frame) the second
// pass cost more than the scan.
func (s *Scanner) StringTo(buf []byte) (out, raw []byte, f Flags, ok bool) {
	s.i++ // '"'
	start, base := s.i, len(buf)
	b := s.b
	run := start // the plain bytes not yet appended begin here
	for s.i < len(b) {
		i := s.plain()
		if i == len(b) {
			break
		}
		switch b[i] {
		case '"':
			s.i++
			if f&Surrogate != 0 { // pairs and lone halves: AppendUnescaped's rules
				return AppendUnescaped(buf[:base], b[start:i]), b[start:i], f, true
			}
			return append(buf, b[run:i]...), b[start:i], f, true
		case '\\':
			buf = append(buf, b[run:i]...)
			if i+1 < len(b) && simpleEscape[b[i+1]] != 0 {
				f |= Escaped
				buf = append(buf, simpleEscape[b[i+1]])
				s.i = i + 2
				run = s.i
				continue
			}
			if !s.special(&f) {
				return buf[:base], nil, 0, false
			}
			if f&Surrogate == 0 {
				buf, _ = appendEscape(buf, b, i)
			}
			run = s.i
		default:
			if !s.special(&f) {
				return buf[:base], nil, 0, false
			}
		}
	}
	return buf[:base], nil, 0, s.Fail("unterminated string")
}

// simpleEscape maps the letter of a two-byte escape to the byte it stands
// for (0: not one).
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// special reads the byte at the cursor inside a string that is not plain
// ASCII, the closing quote or a two-byte escape (which String and StringTo
// read inline, with simpleEscape): a \u escape, which it checks, a bad
// escape, a control character or a multi-byte UTF-8 sequence. It adds what
// it found to f; false after Fail.
func (s *Scanner) special(f *Flags) bool {
	b := s.b
	switch c := b[s.i]; {
	case c == '\\':
		*f |= Escaped
		s.i++
		switch s.peekRaw() {
		case 'u':
			s.i++
			for k := 0; k < 4; k++ {
				if !isHex(s.peekRaw()) {
					return s.Fail(`bad \u escape`)
				}
				s.i++
			}
			if h := b[s.i-4 : s.i-2]; (h[0] == 'd' || h[0] == 'D') && h[1] >= '8' { // U+D800–DFFF
				*f |= Surrogate
			}
		default:
			return s.Fail("bad escape")
		}
	case c < 0x20:
		return s.Fail("control character in a string")
	default: // c >= utf8.RuneSelf
		r, n := utf8.DecodeRune(b[s.i:])
		if r == utf8.RuneError && n <= 1 {
			if !s.lax {
				return s.Fail("invalid UTF-8 in a string")
			}
			*f |= InvalidUTF8
		}
		s.i += n
	}
	return true
}

// peekRaw is the byte at the cursor, without skipping whitespace.
func (s *Scanner) peekRaw() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// plainASCII marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Number reads the number at the cursor and returns its text.
func (s *Scanner) Number() ([]byte, bool) {
	start := s.i
	if s.peekRaw() == '-' {
		s.i++
	}
	switch c := s.peekRaw(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return nil, s.Fail("bad number")
	}
	if s.peekRaw() == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, s.Fail("bad number")
		}
	}
	if c := s.peekRaw(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peekRaw(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return nil, s.Fail("bad number")
		}
	}
	return s.b[start:s.i], true
}

func (s *Scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// Skip reads and discards the value at the cursor. It is iterative, so
// deep nesting cannot exhaust the stack.
func (s *Scanner) Skip() bool {
	var small [16]byte
	stack := small[:0] // open containers, '{' or '['
	for {
		// A value.
		switch c := s.Peek(); {
		case c == '{' || c == '[':
			s.i++
			if (c == '{' && s.Peek() == '}') || (c == '[' && s.Peek() == ']') {
				s.i++
				break
			}
			stack = append(stack, c)
			if c == '{' && !s.key() {
				return false
			}
			continue
		case c == '"':
			if _, _, ok := s.String(); !ok {
				return false
			}
		case c == '-' || ('0' <= c && c <= '9'):
			if _, ok := s.Number(); !ok {
				return false
			}
		case c == 't':
			if !s.literal("true") {
				return false
			}
		case c == 'f':
			if !s.literal("false") {
				return false
			}
		case c == 'n':
			if !s.literal("null") {
				return false
			}
		default:
			return s.Fail("want a value")
		}
		// After a value: close containers until one continues.
		for {
			if len(stack) == 0 {
				return true
			}
			top := stack[len(stack)-1]
			c := s.Peek()
			if c == ',' {
				s.i++
				if top == '{' && !s.key() {
					return false
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				s.i++
				stack = stack[:len(stack)-1]
				continue
			}
			return s.Fail("want ',' or the end of a container")
		}
	}
}

// key reads an object key and its colon.
func (s *Scanner) key() bool {
	if s.Peek() != '"' {
		return s.Fail("want an object key")
	}
	if _, _, ok := s.String(); !ok {
		return false
	}
	if s.Peek() != ':' {
		return s.Fail("want ':' after an object key")
	}
	s.i++
	return true
}

func (s *Scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return s.Fail("bad literal")
	}
	s.i += len(lit)
	return true
}

// TypeName names the JSON type of the value that starts with c, for an
// error detail ("must be a JSON string, got number"); what is no value
// fails in Skip.
func TypeName(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

// Joined decodes strings into one allocation that all of them are slices
// of: for a reader that keeps several strings of one input, one object for
// the garbage collector instead of one per string.
type Joined struct{ buf []byte }

// Grow makes room for n more bytes: the sum of the raw lengths to be
// added (decoded contents are never longer than their raw form).
func (j *Joined) Grow(n int) { j.buf = make([]byte, 0, n) }

// Add appends the decoded contents of raw (with f's Escaped, decoding its
// escapes) and returns where they are in [Joined.String].
func (j *Joined) Add(raw []byte, f Flags) (start, end int) {
	start = len(j.buf)
	if f&Escaped == 0 {
		j.buf = append(j.buf, raw...)
	} else {
		j.buf = AppendUnescaped(j.buf, raw)
	}
	return start, len(j.buf)
}

// String returns everything added; the strings added are its slices. It
// ends the Joined: nothing may be added after it.
func (j *Joined) String() string {
	b := j.buf
	j.buf = nil // the bytes are the string's now, never written again
	return unsafe.String(unsafe.SliceData(b), len(b))
}
