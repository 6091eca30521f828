package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/callee"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/a2a-tail")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func startCallee(t *testing.T, scripts ...callee.Script) *callee.Server {
	t.Helper()
	srv, err := callee.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for _, sc := range scripts {
		srv.Register(sc)
	}
	return srv
}

// result is what one command line did.
type cliResult struct {
	Code   int
	Stdout string
	Stderr string
}

// lockedBuffer is a bytes.Buffer safe for the live view's ticker.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func runCLI(ctx context.Context, a *app, args ...string) cliResult {
	code := a.run(ctx, args)
	return cliResult{Code: code, Stdout: a.stdout.(interface{ String() string }).String(), Stderr: a.stderr.(interface{ String() string }).String()}
}

// testApp is an app writing to buffers, not a terminal, without colour.
func testApp(stdin string) *app {
	a := newApp(strings.NewReader(stdin), &lockedBuffer{}, &lockedBuffer{})
	a.isTTY = func(io.Writer) bool { return false }
	return a
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	urlRE  = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
)

// normalise replaces what differs between runs: task, context and message
// ids, and the callee's port.
func normalise(s string) string {
	return urlRE.ReplaceAllString(uuidRE.ReplaceAllString(s, "<id>"), "http://<callee>")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "a2a-tail", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/a2a-tail -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// TestGoldenOutputs runs the realistic turn over the reference callee in
// every output format and compares with the golden files.
func TestGoldenOutputs(t *testing.T) {
	srv := startCallee(t)
	for _, tc := range []struct{ name, file string }{
		{"text", "realistic.txt"},
		{"ndjson", "realistic.ndjson"},
		{"json", "realistic.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := testApp("")
			res := runCLI(t.Context(), a, "send", "-o", tc.name, srv.CardURL(callee.V1), callee.RealisticName)
			if res.Code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
			}
			if res.Stderr != "" {
				t.Errorf("stderr = %q, want nothing", res.Stderr)
			}
			golden(t, tc.file, normalise(res.Stdout))
		})
	}
}

// TestEveryTransportSameOutput: the text output does not depend on the
// transport or the protocol version.
func TestEveryTransportSameOutput(t *testing.T) {
	srv := startCallee(t)
	var first string
	for _, v := range callee.Versions {
		for _, tr := range []string{"jsonrpc", "rest"} {
			t.Run(string(v)+"/"+tr, func(t *testing.T) {
				a := testApp("")
				p := map[string]a2a.TransportProtocol{"jsonrpc": a2a.TransportProtocolJSONRPC, "rest": a2a.TransportProtocolHTTPJSON}[tr]
				res := runCLI(t.Context(), a, "send", srv.CardURLFor(p, v), callee.RealisticName)
				if res.Code != exitOK {
					t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
				}
				got := normalise(res.Stdout)
				if first == "" {
					first = got
				} else if diff := cmp.Diff(first, got); diff != "" {
					t.Errorf("output differs from the first transport (-first +this):\n%s", diff)
				}
			})
		}
	}
}

func ending(name string, state a2a.TaskState, text string) callee.Script {
	env := envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "working on it"}}
	return callee.Script{Name: name, Steps: []callee.Step{{Envelope: &env}}, Final: state, FinalText: text}
}

func TestExitCodes(t *testing.T) {
	srv := startCallee(t,
		ending("completed", a2a.TaskStateCompleted, "the answer"),
		ending("failed", a2a.TaskStateFailed, "disk full"),
		ending("canceled", a2a.TaskStateCanceled, "stopped by the operator"),
		ending("rejected", a2a.TaskStateRejected, "not my job"),
		ending("input", a2a.TaskStateInputRequired, "which region?"),
		ending("auth", a2a.TaskStateAuthRequired, "log in first"),
		ending("silent", "", ""),
	)
	url := srv.CardURL(callee.V1)
	tests := []struct {
		name     string
		args     []string
		code     int
		verdict  string // the last line of stdout
		inStderr string
	}{
		{name: "completed", args: []string{"send", url, "completed"}, code: 0, verdict: "✓ completed: the answer"},
		{name: "failed", args: []string{"send", url, "failed"}, code: 3, verdict: "✗ failed: disk full"},
		{name: "canceled", args: []string{"send", url, "canceled"}, code: 3, verdict: "✗ canceled: stopped by the operator"},
		{name: "rejected", args: []string{"send", url, "rejected"}, code: 3, verdict: "✗ rejected: not my job"},
		{name: "input required", args: []string{"send", url, "input"}, code: 4, verdict: "  answer on task <id>"},
		{name: "auth required", args: []string{"send", url, "auth"}, code: 4, verdict: "  answer on task <id>"},
		{name: "silent end is incomplete", args: []string{"send", "--max-retries", "1", url, "silent"}, code: 1,
			verdict: `✗ incomplete: client: turn incomplete (task "<id>", last state TASK_STATE_WORKING, 2 attempts): stream closed before a terminal or interrupted state`},
		{name: "no args", args: nil, code: 2, inStderr: "accepts 2 arg(s), received 0"},
		{name: "bad output", args: []string{"-o", "xml", "demo"}, code: 2, inStderr: `--output "xml": want text, ndjson or json`},
		{name: "bad color", args: []string{"--color", "maybe", "demo"}, code: 2, inStderr: `--color "maybe": want auto, always or never`},
		{name: "unknown flag", args: []string{"--bogus", "demo"}, code: 2, inStderr: "unknown flag: --bogus"},
		{name: "send without text", args: []string{"send", url}, code: 2, inStderr: "requires at least 2 arg(s)"},
		{name: "bad svc-param", args: []string{"--svc-param", "novalue", "demo"}, code: 2, inStderr: `--svc-param "novalue": want key=value`},
		{name: "bad transport", args: []string{"--transport", "carrier-pigeon", "demo"}, code: 2, inStderr: `--transport "carrier-pigeon"`},
		{name: "unreachable agent", args: []string{"send", "http://127.0.0.1:1", "hi"}, code: 1, inStderr: "agent card of http://127.0.0.1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLI(t.Context(), testApp(""), tc.args...)
			if res.Code != tc.code {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", res.Code, tc.code, res.Stderr)
			}
			if tc.verdict != "" {
				lines := strings.Split(strings.TrimRight(normalise(res.Stdout), "\n"), "\n")
				if got := lines[len(lines)-1]; got != tc.verdict {
					t.Errorf("last line = %q, want %q\nstdout:\n%s", got, tc.verdict, res.Stdout)
				}
			}
			if tc.inStderr != "" && !strings.Contains(res.Stderr, tc.inStderr) {
				t.Errorf("stderr = %q, want it to contain %q", res.Stderr, tc.inStderr)
			}
		})
	}
}

// signalWriter tells when its content first contains a string.
type signalWriter struct {
	lockedBuffer
	want string
	once sync.Once
	seen chan struct{}
}

func newSignalWriter(want string) *signalWriter {
	return &signalWriter{want: want, seen: make(chan struct{})}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if strings.Contains(w.lockedBuffer.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *signalWriter) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.seen:
	case <-time.After(10 * time.Second):
		t.Fatalf("never saw %q; output so far:\n%s", w.want, w.String())
	}
}

func TestCtrlC(t *testing.T) {
	first := envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "first"}}
	srv := startCallee(t, callee.Script{Name: "held", Steps: []callee.Step{{Envelope: &first}, {Gate: "never"}}, Final: a2a.TaskStateCompleted})
	out := newSignalWriter("first")
	a := newApp(strings.NewReader(""), out, &lockedBuffer{})
	a.isTTY = func(io.Writer) bool { return false }
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan int)
	go func() { done <- a.run(ctx, []string{"send", srv.CardURL(callee.V1), "held"}) }()
	out.wait(t)
	cancel() // what SIGINT does through signal.NotifyContext
	if code := <-done; code != exitCtrlC {
		t.Errorf("exit code = %d, want %d", code, exitCtrlC)
	}
}

// brokenPipe fails every write like a closed pipe.
type brokenPipe struct{ lockedBuffer }

func (*brokenPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

func TestBrokenPipeIsQuiet(t *testing.T) {
	srv := startCallee(t)
	for _, o := range []string{"text", "ndjson", "json"} {
		t.Run(o, func(t *testing.T) {
			a := newApp(strings.NewReader(""), &brokenPipe{}, &lockedBuffer{})
			a.isTTY = func(io.Writer) bool { return false }
			res := runCLI(t.Context(), a, "send", "-o", o, srv.CardURL(callee.V1), callee.RealisticName)
			if res.Code != exitOK || res.Stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", res.Code, res.Stderr)
			}
		})
	}
}
