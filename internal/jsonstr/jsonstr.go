// Package jsonstr holds what the repository's JSON readers share: the
// decoding of a JSON string's contents that a scanner has already checked,
// for the two hand-written readers (envelope's parser and
// internal/fastframe), which must decode escapes exactly as encoding/json
// does; and [Kind], the JSON type of a decoded value for error details
// ("want a string, got a number").
package jsonstr

import (
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
		c := raw[i]
		if c != '\\' {
			buf = append(buf, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := hexVal(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hexVal(raw[i+2:])); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default: // '"', '\\', '/'
			buf = append(buf, raw[i+1])
		}
		i += 2
	}
	return buf
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
