//go:build !unix

package relay

// cpuNanos is unknown here: the cpu-ns metric reads 0.
func cpuNanos() int64 { return 0 }
