package testdep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Runner is what a TestMain runs: *testing.M, or what [Reporting] wraps it
// in. goleak.VerifyTestMain takes one.
type Runner interface {
	Run() int
}

// Then returns m run, then end called: what a package's tests shared
// (a browser, a node process, a built binary) stops after the last test
// and before goleak looks for what is left.
func Then(m Runner, end func()) Runner { return then{m, end} }

type then struct {
	m   Runner
	end func()
}

func (t then) Run() int {
	defer t.end()
	return t.m.Run()
}

// Reporting wraps m so that, after its tests ran, the package prints one
// line naming the tests that skipped for a missing dependency and why:
//
//	func TestMain(m *testing.M) { goleak.VerifyTestMain(testdep.Reporting(m)) }
//
// `go test ./...` discards the output of a package that passed, so a
// package whose node or Chromium tests all skipped would show a bare "ok".
// The line therefore goes where the go command writes its own "ok" lines
// (its standard output, when that is a terminal or a pipe) unless the
// package's own output is shown anyway (-v, -json, a failure, or
// `go test` in a package directory). A cached result ("ok … (cached)")
// repeats no line: nothing ran.
func Reporting(m Runner) Runner { return reporting{m} }

type reporting struct{ m Runner }

func (r reporting) Run() int {
	code := r.m.Run()
	if line := summary(); line != "" {
		announce(line+"\n", code != 0 || testing.Verbose())
	}
	return code
}

// summary is the package's line about its skipped tests, or "".
func summary() string {
	skips.Lock()
	defer skips.Unlock()
	n := 0
	var why []string
	for _, r := range skips.order {
		n += skips.byReason[r]
		why = append(why, fmt.Sprintf("%s (%d)", r, skips.byReason[r]))
	}
	if n == 0 {
		return ""
	}
	tests := "tests"
	if n == 1 {
		tests = "test"
	}
	return fmt.Sprintf("--- %s: %d %s skipped: %s (set %s=1 to fail instead)",
		packageDir(), n, tests, strings.Join(why, "; "), RequireEnv)
}

// packageDir is the test's package directory relative to the module root
// (the go command runs a test binary in its package's directory).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return filepath.ToSlash(rel)
			}
			return wd
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}
