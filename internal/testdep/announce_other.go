//go:build !linux

package testdep

import "os"

// announce writes line to standard output: outside Linux there is no
// portable way to reach the go command's output past its buffering, so
// the line shows with -v, -json or a failure.
func announce(line string, shown bool) { os.Stdout.WriteString(line) }
