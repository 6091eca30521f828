// Package textcut is the one place where the repository cuts a string on a
// rune boundary: every cap on a peer's text (a reason quoted in an error, a
// text block, a tool's output tail, a chunk of output, a terminal message)
// cuts with it, so that a cut never splits a UTF-8 sequence into bytes a
// reader would show as U+FFFD or as \x escapes.
package textcut

import "unicode/utf8"

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
