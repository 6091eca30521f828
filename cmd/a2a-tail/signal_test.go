package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// A signal stops a2a-tail (a child process, through main) in the middle of a turn: SIGTERM exits
// 143 and SIGINT (Ctrl-C) 130 — handled, not killed: the verdict line says
// the turn was stopped — in every output.
func TestSignalExitCodes(t *testing.T) {
	t.Parallel()
	first := envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "first"}}
	srv := startCallee(t, agenttest.Script{Name: "held", Steps: []agenttest.Step{{Envelope: &first}, {Gate: "never"}}, Final: a2a.TaskStateCompleted})
	tests := []struct {
		name   string
		sig    syscall.Signal
		output string
		code   int
		last   string // the last line of stdout starts with it
	}{
		{"sigterm text", syscall.SIGTERM, "text", 143, "✗ stopped before the turn ended: "},
		{"sigint text", syscall.SIGINT, "text", 130, "✗ stopped before the turn ended: "},
		{"sigterm ndjson", syscall.SIGTERM, "ndjson", 143, `{"type":"result",`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := childCommand(t.Context(), "send", "-o", tc.output, "--color", "never", srv.CardURL(agenttest.V1), "held")
			cmd.Env = append(cmd.Env, "NO_COLOR=1")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The first envelope on stdout: the turn is under way and the
			// agent holds it at the gate.
			r := bufio.NewReader(stdout)
			var lines []string
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("stdout ended before the first envelope: %v; stderr:\n%s", err, stderr.String())
				}
				lines = append(lines, strings.TrimRight(line, "\n"))
				if strings.Contains(line, "first") {
					break
				}
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(r)
			lines = append(lines, strings.Split(strings.TrimRight(string(rest), "\n"), "\n")...)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(testdep.Budget(30 * time.Second)):
				_ = cmd.Process.Kill()
				t.Fatalf("a2a-tail did not exit after %v", tc.sig)
			}
			var exit *exec.ExitError
			code := 0
			if errors.As(werr, &exit) {
				code = exit.ExitCode() // -1 when the signal killed it unhandled
			}
			if d := cmp.Diff(tc.code, code); d != "" {
				t.Errorf("exit code (-want +got):\n%s\nstderr:\n%s", d, stderr.String())
			}
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.last) {
				t.Errorf("last line = %q, want it to start with %q", last, tc.last)
			}
			if tc.output == "ndjson" && !strings.Contains(lines[len(lines)-1], `"exitCode":143`) {
				t.Errorf("result line = %q, want exitCode 143", lines[len(lines)-1])
			}
			if got := withoutTaskLine(stderr.String()); !nextAfterStop.MatchString(got) {
				t.Errorf("stderr = %q, want the task id, then the next commands alone (the verdict says the rest)", got)
			}
		})
	}
}

// nextAfterStop is what a2a-tail says on stderr after Ctrl-C or SIGTERM.
var nextAfterStop = regexp.MustCompile(`^a2a-tail: the task goes on at the agent\. Follow it again: a2a-tail http://\S+ \S+ · cancel it: a2a-tail cancel http://\S+ \S+\n$`)

// TestVersion: --version names the build — the module version and, built
// from a git clone, the commit — and exits 0.
func TestVersion(t *testing.T) {
	t.Parallel() // the build waits on the go command
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot build a2a-tail")
	}
	// -buildvcs=true: what go build does by default in a clone, whatever
	// GOFLAGS this machine sets. -race when this test binary has it: the
	// packages are then those go test just compiled, not all built again.
	bin := filepath.Join(t.TempDir(), "a2a-tail")
	args := []string{"build", "-buildvcs=true", "-o", bin}
	if testdep.Race {
		args = append(args, "-race")
	}
	if out, err := exec.Command(gobin, append(args, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("a2a-tail --version: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`^a2a-tail (\(devel\)|v\S+)( \(commit ([0-9a-f]{40}) of \S+(, modified)?\))? go1\.\S+\n$`)
	m := re.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("a2a-tail --version = %q, want %v", out, re)
	}
	head, err1 := exec.Command("git", "rev-parse", "HEAD").Output()
	top, err2 := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err1 != nil || err2 != nil {
		t.Logf("not in a git checkout: no commit to compare (%q)", out)
		return
	}
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		// go build stamps a commit only where .git is a directory, not in
		// a worktree (.git is a file there).
		t.Logf("a git worktree: go build records no commit here (%q)", out)
		return
	}
	if got, want := m[3], strings.TrimSpace(string(head)); got != want {
		t.Errorf("--version names commit %q, want the checkout's %q (%q)", got, want, out)
	}
}
