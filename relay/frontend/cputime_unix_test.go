//go:build unix

package frontend

import "syscall"

// cpuNanos is the CPU time (user and system) the process used so far: a
// benchmark's cost per op that the other tenants of a loaded host do not
// inflate as they inflate wall time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
