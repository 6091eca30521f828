package web

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestNodeTests runs the JS Receiver's own tests (receiver.test.mjs: every
// golden vector, and the JS-only promises) with node's built-in runner.
func TestNodeTests(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(needNode(t), "--test", "--test-reporter=tap", "receiver.test.mjs")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	pass := regexp.MustCompile(`(?m)^# pass (\d+)$`).FindSubmatch(out)
	fail := regexp.MustCompile(`(?m)^# fail (\d+)$`).FindSubmatch(out)
	if pass == nil || fail == nil || string(fail[1]) != "0" {
		t.Fatalf("node --test: no pass/fail summary, or failures:\n%s", out)
	}
	n, _ := strconv.Atoi(string(pass[1]))
	if n < 20 {
		t.Fatalf("node --test ran %d tests, want at least 20:\n%s", n, out)
	}
	t.Logf("node --test: %d tests passed", n)
}
