package testdep

import (
	"os/exec"
	"testing"
)

// RedisServer returns the path of redis-server, or ends t ([SkipOrFail])
// where it is not on PATH. what says what the test checks with it.
func RedisServer(t testing.TB, what string) string {
	t.Helper()
	skipIfShort(t, what)
	p, err := exec.LookPath("redis-server")
	if err != nil {
		SkipOrFail(t, "redis-server is not on PATH", what+" runs against a real Redis; install redis-server (.ci/run does)")
	}
	return p
}
