// Package jsonstr is the JSON the repository reads and writes by hand: the
// one tokenizer of its exact readers ([Scanner]: envelope's parser, the
// client's frame decoder internal/fastframe, schema's op key check), the
// decoding of a string's escapes ([AppendUnescaped], [Joined]), the
// string writer of its hand-written encoders ([AppendQuoted]) and [Kind],
// a decoded value's JSON type for error details. The tokenizer lives here,
// beside the escape decoding it is checked against, rather than in a
// package of its own: it is the same job (the exact reading of JSON
// text), below envelope in the data flow, and this is the only package
// that uses unsafe for it (reading a string in place, handing out one
// buffer as a string), behind APIs that hide the aliasing.
//
// Why a tokenizer of our own rather than jsontext (go-json-experiment,
// or encoding/json/jsontext under GOEXPERIMENT=jsonv2): on the typical
// 224-byte envelope, reading every token — jsontext.Decoder.ReadToken
// with duplicate names allowed, as an envelope needs — took 4.3–10.5 µs
// and 2 allocations beside the Scanner's 2.0–2.3 µs and none (same run,
// loaded host); jsontext's validation pass alone (Value.IsValid, which
// yields no tokens) 1.3–2.4 µs. Its tokens would also need the raw
// string contents and the surrogate and invalid-UTF-8 flags that the
// frame decoder and the op check decide on. Revisit when encoding/json/v2
// is in the standard library without GOEXPERIMENT.
package jsonstr

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnescaped appends the decoded contents of raw — the bytes between
// a JSON string's quotes, whose escapes are all well formed — to buf; it
// appends at most len(raw) bytes. Like encoding/json, a lone or
// mismatched UTF-16 surrogate becomes U+FFFD.
func AppendUnescaped(buf, raw []byte) []byte {
	for i := 0; i < len(raw); {
		k := bytes.IndexByte(raw[i:], '\\')
		if k < 0 {
			return append(buf, raw[i:]...)
		}
		buf = append(buf, raw[i:i+k]...)
		buf, i = appendEscape(buf, raw, i+k)
	}
	return buf
}

// appendEscape appends the decoding of the escape at raw[i] (a backslash)
// to buf and returns it with the offset after the escape (after both
// halves of a surrogate pair).
func appendEscape(buf, raw []byte, i int) ([]byte, int) {
	if c := simpleEscape[raw[i+1]]; c != 0 {
		return append(buf, c), i + 2
	}
	r := hexVal(raw[i+2:]) // \uXXXX
	i += 6
	if utf16.IsSurrogate(r) {
		if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
			if dec := utf16.DecodeRune(r, hexVal(raw[i+2:])); dec != utf8.RuneError {
				return utf8.AppendRune(buf, dec), i + 6
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(buf, r), i
}

// hexVal is the value of the four hex digits at the start of b.
func hexVal(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Kind returns the JSON type of v with its article: "null", "a string",
// "a boolean", "a number", "an array", "an object", or "a value of another
// type" for what encoding/json never produces.
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, float32, int, int64, int32, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value of another type"
}

const hexDigits = "0123456789abcdef"

// jsonPlain says which ASCII bytes a JSON string holds as they are:
// encoding/json's htmlSafeSet.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// AppendQuoted appends s as a JSON string exactly as encoding/json writes
// it by default — the one string writer of the hand-written JSON encoders
// (schema's ops, relay/frontend's events) (its appendString with escapeHTML): ", \ and the control
// characters escaped (\b \f \n \r \t short, the others \u00XX), <, > and &
// as \u003c \u003e \u0026, each byte of invalid UTF-8 as \ufffd, U+2028
// and U+2029 as \u2028 and \u2029.
func AppendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonPlain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
