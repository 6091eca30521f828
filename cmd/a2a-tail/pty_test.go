//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// openPTY opens a pseudo-terminal pair of rows×cols.
func openPTY(t *testing.T, cols, rows int) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	resizePTY(t, m, cols, rows)
	return m, s
}

func resizePTY(t *testing.T, master *os.File, cols, rows int) {
	t.Helper()
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		t.Fatalf("resize pty: %v", err)
	}
}

// ptyScreen is a vt fed from a pty master; wait blocks until a screen line
// contains a string.
type ptyScreen struct {
	mu     sync.Mutex
	vt     vt
	raw    strings.Builder
	change chan struct{}
}

func (p *ptyScreen) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.raw.Write(b)
	n, err := p.vt.Write(b)
	select {
	case p.change <- struct{}{}:
	default:
	}
	return n, err
}

func (p *ptyScreen) has(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.vt.screen() {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func (p *ptyScreen) wait(t *testing.T, s string, exited <-chan struct{}) {
	t.Helper()
	guard := time.NewTimer(testdep.Budget(time.Minute)) // a guard against a hang, not a synchronisation
	defer guard.Stop()
	for !p.has(s) {
		select {
		case <-p.change:
		case <-exited:
			if !p.has(s) {
				t.Fatalf("a2a-tail exited before %q showed; screen:\n%s", s, strings.Join(p.screen(), "\n"))
			}
			return
		case <-guard.C:
			t.Fatalf("%q never showed; screen:\n%s", s, strings.Join(p.screen(), "\n"))
		}
	}
}

func (p *ptyScreen) screen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.vt.screen()
}

// The live view in a real pseudo-terminal, run as its own process: the
// stream is cut and resumed (a notice), the terminal is resized mid-turn,
// and the screen at the end holds the notice once, the final frame once and
// the verdict — no stale frame lines — and nothing scrolled into the
// scrollback, since the whole output fits the screen.
func TestLiveViewPTYReconnectAndResize(t *testing.T) {
	t.Parallel()
	text := func(seq int64, s string) agenttest.Step {
		return agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: seq, Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: s}}}
	}
	tool := func(seq int64, status envelope.Status) agenttest.Step {
		return agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "c1", Seq: seq, Status: status,
			Payload: envelope.ToolCall{Tool: "build", ToolCallID: "c1"}}}
	}
	out := agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "c1", Seq: 4,
		Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "build", ToolCallID: "c1", Chunk: "one\ntwo\nthree\nfour\n"}}}
	resized := text(6, "after the resize")
	resized.Gate = "resized"
	script := agenttest.Script{Name: "pty", Steps: []agenttest.Step{
		text(1, "starting"), text(2, "before the cut"), tool(3, envelope.StatusRunning), out,
		{Gate: "cut", Envelope: text(5, "after the cut").Envelope},
		resized, tool(7, envelope.StatusDone),
	}, Final: a2a.TaskStateCompleted, FinalText: "built"}
	agent := startCallee(t, script)
	agent.CutAfter(4, true) // the first stream is cut mid-turn

	const cols, rows = 70, 24
	master, slave := openPTY(t, cols, rows)
	defer master.Close()
	raw, _ := json.Marshal([]string{"send", "--color", "never", "--lines", "2", agent.CardURL(agenttest.V1), "pty"})
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(raw), "NO_COLOR=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	scr := &ptyScreen{vt: vt{cols: cols, rows: rows}, change: make(chan struct{}, 1)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(scr, master) // ends with EIO once the child exits
	}()
	exited := make(chan struct{})
	var werr error
	go func() {
		werr = cmd.Wait()
		close(exited)
	}()

	scr.wait(t, "a2a-tail: stream cut", exited)
	scr.wait(t, "│ four", exited)
	agent.Release("cut")
	scr.wait(t, "after the cut", exited)
	// Before the resize: the task id (at once, on stderr) and the notice
	// above a frame drawn once.
	before := scr.screen()
	if len(before) < 4 || !strings.HasPrefix(before[0], "a2a-tail: task ") ||
		before[1] != "a2a-tail: stream cut (SSE stream error: unexpected EOF); resuming" ||
		!strings.HasPrefix(before[2], "task ") {
		t.Errorf("after the cut, the screen is not the notice above the frame:\n%s", strings.Join(before, "\n"))
	}
	for _, l := range []string{"·  starting", "·  before the cut", "   │ four"} {
		if n := count(before, l); n != 1 {
			t.Errorf("%q is %d times on the screen after the cut, want once (a stale frame?)", l, n)
		}
	}

	const narrow = 50
	scr.mu.Lock()
	scr.vt.cols = narrow
	scr.mu.Unlock()
	resizePTY(t, master, narrow, rows)
	agent.Release("resized")
	<-exited
	<-copied
	if werr != nil {
		t.Fatalf("a2a-tail: %v; screen:\n%s", werr, strings.Join(scr.screen(), "\n"))
	}

	// The screen: the notice (wrapped by the terminal at its width), then
	// the frame from its header.
	screen := scr.screen()
	head := -1
	for i, l := range screen {
		if strings.HasPrefix(l, "task ") {
			head = i
			break
		}
	}
	if head < 0 {
		t.Fatalf("no header on the screen:\n%s", strings.Join(screen, "\n"))
	}
	notice := strings.Join(screen[:head], "")
	if want := "a2a-tail: task " + strings.Fields(screen[head])[1] + "a2a-tail: stream cut (SSE stream error: unexpected EOF); resuming"; notice != want {
		t.Errorf("above the frame %q, want the task id and the one cut notice %q", notice, want)
	}
	frame := append([]string(nil), screen[head:]...)
	frame[0] = "header"
	for i := range frame {
		if j := strings.Index(frame[i], " done "); j >= 0 {
			frame[i] = frame[i][:j+len(" done")] // the elapsed time is the wall clock's
		}
	}
	want := []string{
		"header",
		"·  starting",
		"·  before the cut",
		"✓  build [c1] done",
		"   │ three",
		"   │ four",
		"·  after the cut",
		"·  after the resize",
		"✓ completed: built",
	}
	if diff := cmp.Diff(want, frame); diff != "" {
		t.Errorf("screen without the notice (-want +got): stale or missing frame lines\n%s\nraw:\n%q", diff, scr.raw.String())
	}
	scr.mu.Lock()
	first, unknown := scr.vt.first, scr.vt.unknowns()
	scr.mu.Unlock()
	if first != 0 {
		t.Errorf("%d lines went into the scrollback though the output fits the screen", first)
	}
	if len(unknown) > 0 {
		t.Errorf("escape sequences the test terminal does not know: %q", unknown)
	}
}

func count(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if l == s {
			n++
		}
	}
	return n
}
