//go:build !unix

package frontend

// cpuNanos is unknown here: the cpu-ns metric reads 0.
func cpuNanos() int64 { return 0 }
