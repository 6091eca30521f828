package testdep

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// NodeServer is one node process that runs the scripts of a directory's
// serve.mjs for all the tests of a package: relay/testdata/frontends's
// serve.mjs reads {"id", "script", "cfg"} lines on stdin, runs them at
// once and answers {"id", "out"} lines on stdout as each ends. Starting
// node with the client libraries costs about a second of CPU, more than
// most cases. The zero NodeServer with Dir set starts it on the first
// [NodeServer.Run]; [NodeServer.Stopping] ends it after the tests.
type NodeServer struct {
	Dir string // where serve.mjs and the scripts are

	once  sync.Once
	err   error // why it did not start
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when its stdout ended

	mu      sync.Mutex
	next    int
	waiting map[int]chan json.RawMessage
	ended   error    // why no more answers come (after done)
	log     []string // its stderr and any stdout line that is no answer, last maxLog
}

const maxLog = 50 // lines of a NodeServer's log kept for its errors

// Run runs script with cfg in the node process (node is the binary [NPM]
// returned; the first Run starts it) and returns what the script printed
// for cfg. A script that threw is an error, with what it said.
func (w *NodeServer) Run(ctx context.Context, node, script string, cfg any) (json.RawMessage, error) {
	w.once.Do(func() { w.err = w.start(node) })
	if w.err != nil {
		return nil, w.err
	}
	ch := make(chan json.RawMessage, 1)
	w.mu.Lock()
	if w.ended != nil {
		w.mu.Unlock()
		return nil, w.ended
	}
	id := w.next
	w.next++
	line, err := json.Marshal(struct {
		ID     int    `json:"id"`
		Script string `json:"script"`
		Cfg    any    `json:"cfg"`
	}{id, script, cfg})
	if err == nil {
		w.waiting[id] = ch
		_, err = w.stdin.Write(append(line, '\n'))
	}
	w.mu.Unlock()
	if err != nil {
		w.forget(id)
		return nil, fmt.Errorf("sending %s its config: %w\n%s", script, err, w.logTail())
	}
	var out json.RawMessage
	select {
	case out = <-ch:
	case <-w.done:
		select {
		case out = <-ch:
		default:
			return nil, fmt.Errorf("%w\n%s", w.ended, w.logTail())
		}
	case <-ctx.Done():
		w.forget(id)
		return nil, fmt.Errorf("no answer from node: %w\n%s", ctx.Err(), w.logTail())
	}
	var c struct {
		Crash string `json:"crash"`
	}
	if err := json.Unmarshal(out, &c); err == nil && c.Crash != "" {
		return nil, errors.New(c.Crash)
	}
	return out, nil
}

// forget drops the wait for request id's answer.
func (w *NodeServer) forget(id int) {
	w.mu.Lock()
	delete(w.waiting, id)
	w.mu.Unlock()
}

func (w *NodeServer) start(node string) error {
	w.waiting = make(map[int]chan json.RawMessage)
	w.done = make(chan struct{})
	w.cmd = exec.Command(node, "serve.mjs")
	w.cmd.Dir = w.Dir
	var err error
	if w.stdin, err = w.cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := w.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := w.cmd.Start(); err != nil {
		return fmt.Errorf("start node serve.mjs: %w", err)
	}
	var logs sync.WaitGroup
	logs.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			w.note("stderr: " + sc.Text())
		}
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 256<<20) // one run's events, whole
		for sc.Scan() {
			var a struct {
				ID  *int            `json:"id"`
				Out json.RawMessage `json:"out"`
			}
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil || a.ID == nil {
				w.note("stdout: " + clipLine(sc.Text()))
				continue
			}
			w.mu.Lock()
			ch := w.waiting[*a.ID]
			delete(w.waiting, *a.ID)
			w.mu.Unlock()
			if ch == nil {
				w.note(fmt.Sprintf("an answer to no request: id %d", *a.ID))
				continue
			}
			ch <- a.Out
		}
		logs.Wait()
		err := w.cmd.Wait()
		w.mu.Lock()
		w.ended = errors.Join(errors.New("node serve.mjs ended"), sc.Err(), err)
		w.mu.Unlock()
		close(w.done)
	}()
	return nil
}

// clip keeps the first 500 bytes of a line for the log.
func clipLine(s string) string {
	if len(s) > 500 {
		return s[:500] + "…"
	}
	return s
}

func (w *NodeServer) note(line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log = append(w.log, line)
	if len(w.log) > maxLog {
		w.log = w.log[len(w.log)-maxLog:]
	}
}

func (w *NodeServer) logTail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.log, "\n")
}

// stop ends the node process (its stdin closes) and waits for it, or
// kills it when it has not ended within a budget.
func (w *NodeServer) stop() {
	w.once.Do(func() { w.err = errors.New("the tests ended") })
	if w.cmd == nil || w.cmd.Process == nil {
		return
	}
	_ = w.stdin.Close()
	select {
	case <-w.done:
	case <-time.After(Budget(10 * time.Second)):
		_ = w.cmd.Process.Kill() // a run that never ends
		<-w.done
	}
}

// Stopping returns m run, then the node process stopped (goleak then sees
// none of its goroutines):
//
//	goleak.VerifyTestMain(testdep.Reporting(server.Stopping(m)))
func (w *NodeServer) Stopping(m Runner) Runner { return Then(m, w.stop) }
