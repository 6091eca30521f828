package redisstore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/redisstore"
	"github.com/tfrs/a2a-progress/schema"
)

// The test binary runs again as a child process of a test when childEnv
// names a mode: TestMain runs the mode's function instead of the tests and
// exits with its status.
const childEnv = "A2A_PROGRESS_REDISSTORE_CHILD"

// children are the modes a child process can run.
var children = map[string]func() error{
	"worker": runWorker,
	"logs":   runLogs,
}

// runChild runs the child mode named in the environment, if any; ok
// reports whether there was one.
func runChild() (code int, ok bool) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		return 0, false
	}
	run := children[mode]
	if run == nil {
		fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
		return 2, true
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", mode, err)
		return 1, true
	}
	return 0, true
}

// child starts this test binary as a child process in mode, with env
// added to its environment; it is ended with the test's context.
func child(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testCtx(t), exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+mode), env...)
	return cmd
}

// workerResult is what a worker process prints after its turn: the view
// and outcome of its stream, as s.View and s.Outcome give them.
type workerResult struct {
	View    schema.View `json:"view"`
	Reply   string      `json:"reply"`
	Err     string      `json:"err,omitempty"`
	Stats   relay.Stats
	Process int `json:"pid"`
}

// runWorker is an orchestrator worker in a process of its own: a relay
// Handler without an HTTP server on the Redis of A2A_TEST_REDIS, that
// Sends the script A2A_TEST_SCRIPT to the agent of A2A_TEST_AGENT and
// Attaches the stream. It prints "task <id>" once the first op names the
// task, and a workerResult as JSON after the turn, then exits.
func runWorker() error {
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute))
	defer cancel()
	st, err := redisstore.New(os.Getenv("A2A_TEST_REDIS"))
	if err != nil {
		return err
	}
	defer st.Close()
	h := relay.New(ctx, nil, relay.WithStore(st))
	defer h.Close()
	c, err := client.New(ctx, os.Getenv("A2A_TEST_AGENT"), client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := c.SendText(ctx, os.Getenv("A2A_TEST_SCRIPT"))
	if err != nil {
		return err
	}
	named := false
	for u := range h.Attach(s) {
		if op, ok := u.Op(); ok && op.Task != "" && !named {
			named = true
			fmt.Printf("task %s\n", op.Task)
		}
	}
	res := workerResult{View: s.View(), Stats: h.Stats(), Process: os.Getpid()}
	out, err := s.Outcome()
	if err != nil {
		res.Err = err.Error()
	} else {
		res.Reply = out.Reply
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// startWorker starts a worker process that runs a turn of the agent's
// script; it returns the turn's task id and a channel that yields the
// worker's result once the process has exited.
func startWorker(t *testing.T, r *redisServer, agent *agenttest.Agent, script string) (string, <-chan workerResult) {
	t.Helper()
	cmd := child(t, "worker", "A2A_TEST_REDIS="+r.URL(), "A2A_TEST_AGENT="+agent.CardURL(agenttest.V1), "A2A_TEST_SCRIPT="+script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if cmd.Process.Pid == os.Getpid() {
		t.Fatal("the worker runs in the test's own process")
	}
	task := make(chan string, 1)
	done := make(chan workerResult, 1)
	failed := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		var last []byte
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "task "); ok {
				task <- id
				continue
			}
			last = slices.Clone(sc.Bytes())
		}
		err := cmd.Wait()
		var res workerResult
		if err == nil && stderr.Len() > 0 {
			err = errors.New("the worker wrote to stderr")
		}
		if err == nil {
			err = json.Unmarshal(last, &res)
		}
		if err != nil {
			failed <- fmt.Errorf("worker process: %w\nstdout: %s\nstderr: %s", err, last, stderr.Bytes())
			return
		}
		done <- res
	}()
	select {
	case id := <-task:
		// The result is read from done, or the failure reported there as
		// a test failure by the caller's receive.
		out := make(chan workerResult, 1)
		go func() {
			select {
			case res := <-done:
				out <- res
			case err := <-failed:
				out <- workerResult{Err: err.Error()}
			}
		}()
		return id, out
	case err := <-failed:
		t.Fatal(err)
	case res := <-done:
		t.Fatalf("the worker's turn ended before any op: %+v", res)
	}
	return "", nil
}

// A Store leaves go-redis's process-wide logger alone: go-redis's default
// logger (stderr, "redis: …") gets the Store's lines (here: dials to a
// Redis that is not there) as well as those of a plain go-redis client,
// and the Store writes nothing to stdout of its own. Run in a child
// process, whose outputs the test reads whole.
func TestRedisLoggerLeftAlone(t *testing.T) {
	t.Parallel()
	ports := []string{closedPort(t), closedPort(t)}
	cmd := child(t, "logs", "A2A_TEST_PORTS="+strings.Join(ports, ","))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	// Which ports the lines of each output name, and how those lines look.
	type lines struct {
		Ports  []string
		Prefix string
	}
	classify := func(out []byte, prefix string) lines {
		var l lines
		for line := range strings.Lines(string(out)) {
			for _, p := range ports {
				if strings.Contains(line, "127.0.0.1:"+p) && !slices.Contains(l.Ports, p) {
					l.Ports = append(l.Ports, p)
				}
			}
			if !strings.HasPrefix(line, prefix) || !strings.Contains(line, "failed to dial") {
				l.Prefix = fmt.Sprintf("a line not %q…failed to dial: %q", prefix, line)
			}
		}
		return l
	}
	got := map[string]lines{
		"stdout":                         classify(stdout.Bytes(), ""),
		"stderr (go-redis's own logger)": classify(stderr.Bytes(), "redis: "),
	}
	want := map[string]lines{
		"stdout":                         {},
		"stderr (go-redis's own logger)": {Ports: ports},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ports named per output (-want +got):\n%s\nstdout:\n%s\nstderr:\n%s", d, stdout.Bytes(), stderr.Bytes())
	}
}

// closedPort is a loopback port nothing listens on (it did a moment ago).
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// runLogs dials the two closed ports of A2A_TEST_PORTS, go-redis's logger
// as go-redis sets it: a Store, then a plain go-redis client; each
// command must fail.
func runLogs() error {
	ports := strings.Split(os.Getenv("A2A_TEST_PORTS"), ",")
	if len(ports) != 2 {
		return fmt.Errorf("A2A_TEST_PORTS %q: want two ports", os.Getenv("A2A_TEST_PORTS"))
	}
	ctx := context.Background()
	st, err := redisstore.New("redis://127.0.0.1:" + ports[0] + "/0")
	if err != nil {
		return err
	}
	_, rerr := st.Read(ctx, "t", "", 0)
	perr := st.Ping(ctx)
	st.Close()
	if rerr == nil || perr == nil {
		return fmt.Errorf("store: read %v, ping %v: want both to fail", rerr, perr)
	}
	var op *net.OpError
	want := "redisstore: read: dial tcp 127.0.0.1:" + ports[0] + ": connect: connection refused"
	if !errors.As(rerr, &op) || op.Op != "dial" || rerr.Error() != want {
		return fmt.Errorf("store: read's error %q (%T), want %q wrapping the dial's *net.OpError", rerr, errors.Unwrap(rerr), want)
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + ports[1], MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err == nil {
		return errors.New("the plain client's ping did not fail")
	}
	return nil
}
