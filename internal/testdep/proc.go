package testdep

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proc is a child process of a test, started by [Start]: the one way the
// module's tests run a helper process (a JS peer, examples/orchestrator,
// the test binary itself in another role) and read what it prints.
type Proc struct {
	t    testing.TB
	what string
	// Stdin is the child's stdin. Closing it is how a child that serves
	// until its parent is gone is told to stop; it also closes when the
	// test ends.
	Stdin io.WriteCloser

	mu    sync.Mutex
	lines []string      // every line the child printed, in order
	read  int           // how many of lines Next has returned
	more  chan struct{} // closed and replaced when a line comes or output ends
	ended bool          // the output ended (the child closed it or exited)
	err   error         // why the output ended, if not at EOF
}

// Output names the child's output [Start] reads lines from.
type Output int

const (
	Stdout Output = iota // the child's stdout; its stderr is the test's
	Stderr               // the child's stderr; its stdout is discarded
)

// Start starts cmd for t with a pipe on its stdin and reads the lines of
// out (see [Proc.Next]) until the child closes it. When the test ends,
// the child's stdin closes, it is interrupted (os.Interrupt) and waited
// for — killed if it has not exited in 10 s — and, if the test failed,
// every line it printed is logged. what names the child in messages.
func Start(t testing.TB, what string, cmd *exec.Cmd, out Output) *Proc {
	t.Helper()
	p := &Proc{t: t, what: what, more: make(chan struct{})}
	var err error
	if p.Stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	var r io.ReadCloser
	if out == Stderr {
		r, err = cmd.StderrPipe()
	} else {
		if cmd.Stderr == nil {
			cmd.Stderr = os.Stderr
		}
		r, err = cmd.StdoutPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.add(sc.Text(), false, nil)
		}
		p.add("", true, sc.Err())
		_, _ = io.Copy(io.Discard, r) // a line over 1 MiB: the child must not block
	}()
	t.Cleanup(func() {
		_ = p.Stdin.Close()
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = cmd.Wait()
		if t.Failed() {
			p.mu.Lock()
			t.Logf("%s printed:\n%s", what, strings.Join(p.lines, "\n"))
			p.mu.Unlock()
		}
	})
	return p
}

func (p *Proc) add(line string, end bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if end {
		p.ended, p.err = true, err
	} else {
		p.lines = append(p.lines, line)
	}
	close(p.more)
	p.more = make(chan struct{})
}

// Next returns the next line the child printed, waiting for it up to
// Budget(30 s); it ends the test if the output ends or the wait runs out
// first.
func (p *Proc) Next() string {
	p.t.Helper()
	deadline := time.After(Budget(30 * time.Second))
	for {
		p.mu.Lock()
		if p.read < len(p.lines) {
			line := p.lines[p.read]
			p.read++
			p.mu.Unlock()
			return line
		}
		ended, err, more := p.ended, p.err, p.more
		p.mu.Unlock()
		if ended {
			p.t.Fatalf("%s's output ended (%v) before the line the test waits for", p.what, errOrEOF(err))
		}
		select {
		case <-more:
		case <-deadline:
			p.t.Fatalf("%s printed no line in %v", p.what, Budget(30*time.Second))
		}
	}
}

// Until returns the submatches of the first line from Next on that match
// finds (a regexp's FindStringSubmatch, say).
func (p *Proc) Until(match func(string) []string) []string {
	p.t.Helper()
	for {
		if m := match(p.Next()); m != nil {
			return m
		}
	}
}

func errOrEOF(err error) error {
	if err == nil {
		return io.EOF
	}
	return err
}
