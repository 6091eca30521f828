package testdep

import (
	"os"
	"strings"
	"sync"
	"testing"
)

// RequireEnv names the environment variable that turns every missing
// dependency into a test failure; .ci/run sets it where it installed them.
const RequireEnv = "A2A_PROGRESS_REQUIRE_INTEROP"

// Required reports whether a missing dependency fails a test rather than
// skipping it: RequireEnv or CI (as GitHub Actions and most CI systems set
// it) holds a value other than "", "0" or "false".
func Required() bool {
	return on(os.Getenv(RequireEnv)) || on(os.Getenv("CI"))
}

func on(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// skips counts the tests of this process that skipped, by reason.
var skips struct {
	sync.Mutex
	byReason map[string]int
	order    []string
}

// SkipOrFail ends t because a dependency is missing: it fails t where
// [Required] holds, and otherwise skips it and records reason for the
// package's summary ([Reporting]). reason is short and shared by every
// test that misses the same thing ("node is not on PATH"); detail says
// what the test would have checked and how to get the dependency.
func SkipOrFail(t testing.TB, reason, detail string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s: %s (%s or CI is set: this test must run, not skip)", reason, detail, RequireEnv)
	}
	skips.Lock()
	if skips.byReason == nil {
		skips.byReason = make(map[string]int)
	}
	if skips.byReason[reason] == 0 {
		skips.order = append(skips.order, reason)
	}
	skips.byReason[reason]++
	skips.Unlock()
	t.Skipf("skipping: %s: %s", reason, detail)
}

// skipIfShort skips t under -short, the quick loop of development: the
// suites that start real programs (node, Chromium, redis-server) are most
// of the suite's time. Not counted in the package's summary line: the
// caller asked for it.
func skipIfShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("skipping under -short: %s starts a real program", what)
	}
}
