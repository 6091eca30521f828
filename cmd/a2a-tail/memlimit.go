package main

import (
	"os"
	"runtime/debug"
	"sync"
)

// defaultMemoryLimit is the soft memory limit a2a-tail gives the Go
// runtime when GOMEMLIMIT is not set: the process's policy, not the
// library's (package client never forces a collection). A hostile peer
// makes a2a-go hold several times a refused 64 MiB response for a moment;
// without a limit the collector's next goal is set while that is live, and
// a retry allocates as much again on top of the garbage (TestHostilePeers'
// retried GetTask: 217 MiB with a collection forced after each refusal,
// 469 MiB with none). Near the limit the runtime collects sooner instead.
// It is soft: a turn that needs more live memory gets it, and a small
// stream never comes near it.
const defaultMemoryLimit = 192 << 20

var memoryLimitOnce sync.Once

// softMemoryLimit sets defaultMemoryLimit once, unless GOMEMLIMIT says
// otherwise.
func softMemoryLimit() {
	memoryLimitOnce.Do(func() {
		if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
			debug.SetMemoryLimit(defaultMemoryLimit)
		}
	})
}
