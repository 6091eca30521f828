// Package wiretime holds the range of an op's at (PROTOCOL.md §4.4), which
// package schema checks when it decodes an op and package merge when it
// keeps a block given in Go.
package wiretime

import "time"

// The range of an at a block keeps: the whole years inside what Unix
// nanoseconds in an int64 hold (1677-09-21 to 2262-04-11), so that a
// schema can say it with a pattern and merge's "unknown" (math.MinInt64)
// is outside it.
var (
	Min = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	Max = time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// Kept reports whether t is zero (unknown) or in the range a block keeps.
func Kept(t time.Time) bool {
	return t.IsZero() || !t.Before(Min) && !t.After(Max)
}
