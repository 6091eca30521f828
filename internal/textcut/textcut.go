// Package textcut is the one place where the repository cuts a string on a
// rune boundary: every cap on a peer's text (a reason quoted in an error, a
// text block, a tool's output tail, a chunk of output, a terminal message)
// cuts with it, so that a cut never splits a UTF-8 sequence into bytes a
// reader would show as U+FFFD or as \x escapes.
package textcut

import (
	"strconv"
	"unicode/utf8"
)

// Before returns the largest index j ≤ i at which s may be cut: j is
// len(s), or s[j] starts a rune. i is clamped to [0, len(s)]. For bytes
// that are not UTF-8 at all it may return 0 (no boundary before i).
func Before(s string, i int) int {
	i = min(max(i, 0), len(s))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// After returns the smallest index j ≥ i at which s may be cut: j is
// len(s), or s[j] starts a rune. i is clamped to [0, len(s)].
func After(s string, i int) int {
	i = min(max(i, 0), len(s))
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// Cut returns s when it is at most limit bytes; otherwise its head, cut on
// a rune boundary (Before) to at most limit bytes, followed by a marker
// that gives the byte counts: "… [cut: 9437184 bytes in all, 1024 shown]".
// The one implementation of that cut: terminal.Cut is this, and
// internal/termtext cuts a peer's messages with it.
//
// The result is a new string: it does not keep the whole of s in memory.
func Cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := Before(s, limit)
	return s[:n] + "… [cut: " + strconv.Itoa(len(s)) + " bytes in all, " + strconv.Itoa(n) + " shown]"
}
