//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// ptyRun is a2a-tail running on the slave side of a pseudo-terminal, its
// output fed to a vt that keeps the scrollback.
type ptyRun struct {
	master *os.File
	scr    *ptyScreen
	exited chan struct{}
	copied chan struct{}
	code   int
	err    error // a failure to run, not an exit code
}

// startPTY runs a2a-tail with args on a cols×rows pseudo-terminal: this
// test binary as a child, through main, in a session of its own with the
// terminal as its controlling terminal (so that ^C is a SIGINT from the
// tty).
func startPTY(t *testing.T, args []string, cols, rows int) *ptyRun {
	t.Helper()
	master, slave := openPTY(t, cols, rows)
	t.Cleanup(func() { master.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute))
	t.Cleanup(cancel)
	cmd := childCommand(ctx, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	cmd.Env = append(cmd.Env, "NO_COLOR=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	p := &ptyRun{master: master, scr: &ptyScreen{vt: vt{cols: cols, rows: rows}, change: make(chan struct{}, 1)},
		exited: make(chan struct{}), copied: make(chan struct{})}
	go func() {
		defer close(p.copied)
		_, _ = io.Copy(p.scr, master) // ends with EIO once the child exits
	}()
	go func() {
		err := cmd.Wait()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			p.code = exit.ExitCode()
		} else {
			p.err = err
		}
		close(p.exited)
	}()
	return p
}

// wait waits for the command's end and its last output.
func (p *ptyRun) wait(t *testing.T) {
	t.Helper()
	<-p.exited
	<-p.copied
	if p.err != nil {
		t.Fatalf("a2a-tail: %v", p.err)
	}
}

// checkOneView asserts that the terminal — screen and scrollback — holds
// the view exactly once: one header, each of the lines at most once, and
// no erase that copied the screen into the scrollback.
func (p *ptyRun) checkOneView(t *testing.T, lines ...string) {
	t.Helper()
	p.scr.mu.Lock()
	all, clears, unknown := p.scr.vt.screen(), p.scr.vt.clears, p.scr.vt.unknowns()
	p.scr.mu.Unlock()
	headers := 0
	for _, l := range all {
		if strings.HasPrefix(l, "task ") {
			headers++
		}
	}
	if headers != 1 || clears != 0 {
		t.Errorf("the terminal holds %d headers (copies of the view), %d erases pushed the screen into the scrollback; want 1 and 0; terminal:\n%s",
			headers, clears, strings.Join(all, "\n"))
	}
	for _, l := range lines {
		if n := count(all, l); n != 1 {
			t.Errorf("%q is %d times in the terminal, want once", l, n)
		}
	}
	if len(unknown) > 0 {
		t.Errorf("escape sequences the test terminal does not know: %q", unknown)
	}
}

// checkEnd asserts that the terminal ends with the verdict, whose last
// line starts with verdict, then the hint (wrapped at the screen's width),
// which starts with hint.
func (p *ptyRun) checkEnd(t *testing.T, verdict, hint string) {
	t.Helper()
	screen := p.scr.screen()
	all := strings.Join(screen, "") // lines wrapped at the screen's width joined again
	i := strings.LastIndex(all, verdict)
	if i < 0 || !strings.Contains(all[i:], hint) {
		t.Errorf("want the verdict %q…, then %q… last; terminal:\n%s", verdict, hint, strings.Join(screen, "\n"))
	}
}

// TestLiveViewPTYStopsLeaveOneView: an input-required stop and a Ctrl-C
// mid-turn (^C typed on the terminal) each leave the view once, with the
// verdict and the next command under it — not the final frame, the hint,
// and a second frame drawn below the hint.
func TestLiveViewPTYStopsLeaveOneView(t *testing.T) {
	t.Parallel()
	first := envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "first"}}
	srv := startCallee(t,
		agenttest.Script{Name: "held", Steps: []agenttest.Step{{Envelope: &first}, {Gate: "never"}}, Final: a2a.TaskStateCompleted},
		ending("input", a2a.TaskStateInputRequired, "which region?"))
	t.Run("input-required", func(t *testing.T) {
		p := startPTY(t, []string{"send", "--color", "never", srv.CardURL(agenttest.V1), "input"}, 80, 24)
		p.wait(t)
		if p.code != 4 {
			t.Errorf("exit code %d, want 4", p.code)
		}
		p.checkOneView(t, "·  working on it")
		p.checkEnd(t, "respond on task ", "a2a-tail: the agent waits for your response: a2a-tail send --task ")
		screen := p.scr.screen()
		for _, l := range screen {
			if strings.HasPrefix(l, "task ") && !strings.Contains(l, " · input-required · ") {
				t.Errorf("header %q, want the state spelt as the verdict is: input-required", l)
			}
		}
	})
	t.Run("ctrl-c", func(t *testing.T) {
		p := startPTY(t, []string{"send", "--color", "never", srv.CardURL(agenttest.V1), "held"}, 80, 24)
		p.scr.wait(t, "·  first", p.exited)
		if _, err := p.master.Write([]byte{0x03}); err != nil { // ^C
			t.Fatal(err)
		}
		p.wait(t)
		if p.code != 130 {
			t.Errorf("exit code %d, want 130", p.code)
		}
		p.checkOneView(t, "·  first")
		p.checkEnd(t, "✗ stopped before the turn ended: ", "a2a-tail: the task goes on at the agent. Follow it again: ")
	})
}

// TestLiveViewPTYLongTurnScrollback: a 200-block turn, taller than the
// screen, at two sizes, one of them resized (narrower) mid-turn. While it
// runs the view redraws the last screenful in place, so nothing of it goes
// into the scrollback; the final frame, written once, leaves the one copy
// of the view there (tmux, with scroll-on-clear, used to get a copy per
// redraw: 59 at 100×30).
func TestLiveViewPTYLongTurnScrollback(t *testing.T) {
	t.Parallel()
	const n = 200
	steps := make([]agenttest.Step, 0, n+1)
	for i := 1; i <= n; i++ {
		steps = append(steps, agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: int64(i),
			Status: envelope.StatusRunning, Payload: envelope.Text{Text: fmt.Sprintf("block %d", i)}}})
		if i == n/2 {
			steps = append(steps, agenttest.Step{Gate: "half"})
		}
	}
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprintf("·  block %d", i))
	}
	for _, tc := range []struct{ cols, rows, resizeTo int }{{100, 30, 80}, {60, 15, 0}} {
		t.Run(fmt.Sprintf("%dx%d", tc.cols, tc.rows), func(t *testing.T) {
			t.Parallel()
			srv := startCallee(t, agenttest.Script{Name: "long", Steps: steps, Final: a2a.TaskStateCompleted, FinalText: "done"})
			p := startPTY(t, []string{"send", "--color", "never", srv.CardURL(agenttest.V1), "long"}, tc.cols, tc.rows)
			p.scr.wait(t, fmt.Sprintf("·  block %d", n/2), p.exited)
			if tc.resizeTo > 0 {
				// Both at once, under the screen's lock: nothing is read
				// between the pty's resize and the emulator's.
				p.scr.mu.Lock()
				resizePTY(t, p.master, tc.resizeTo, tc.rows)
				p.scr.vt.resize(tc.resizeTo, tc.rows)
				p.scr.mu.Unlock()
			}
			p.scr.mu.Lock()
			var during []string // of the view: the task id's line above it may scroll out
			for _, l := range p.scr.vt.scrollback() {
				if !strings.HasPrefix(l, "a2a-tail: task ") {
					during = append(during, l)
				}
			}
			p.scr.mu.Unlock()
			srv.Release("half")
			p.wait(t)
			if p.code != 0 {
				t.Errorf("exit code %d, want 0", p.code)
			}
			if len(during) != 0 {
				t.Errorf("the scrollback mid-turn holds %q, want nothing of the view: it stays within the screen", during)
			}
			p.checkOneView(t, want...)
			screen := p.scr.screen()
			if last := screen[len(screen)-1]; last != "✓ completed: done" {
				t.Errorf("last line %q, want the verdict", last)
			}
		})
	}
}
