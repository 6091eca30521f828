package testdep

import (
	"os"
	"os/exec"
	"testing"
)

// ChromiumPath returns the path of the Chromium the tests drive — $CHROMIUM,
// else /usr/bin/chromium, else chromium or chromium-browser on PATH — or
// ends t ([SkipOrFail]) where there is none. what says what the test checks
// in it.
func ChromiumPath(t testing.TB, what string) string {
	t.Helper()
	skipIfShort(t, what)
	for _, name := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	SkipOrFail(t, "no Chromium ($CHROMIUM, /usr/bin/chromium or chromium on PATH)", what+" runs in a real browser; install Chromium (.ci/run does)")
	return ""
}
