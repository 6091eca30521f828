package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/internal/testdep/chromium"
	"github.com/tfrs/a2a-progress/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/a2a-tail")

func TestMain(m *testing.M) {
	runChild() // a2a-tail itself, for the hostile-peer tests
	goleak.VerifyTestMain(testdep.Reporting(browser.Closing(m)))
}

// browser is the one Chromium of the page tests, each in a browser context
// of its own. Chromium resolves attacker.test to 127.0.0.1, as a DNS
// rebinding attacker's DNS would (TestWebRebindingInBrowser); no other
// test names that host.
var browser = chromium.Shared{Extra: []chromedp.ExecAllocatorOption{
	chromedp.Flag("host-resolver-rules", "MAP attacker.test 127.0.0.1"),
}}

func startCallee(t *testing.T, scripts ...agenttest.Script) *agenttest.Agent {
	t.Helper()
	srv, err := agenttest.New()
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
	atRE   = regexp.MustCompile(`"at": ?"[^"]*"`)
)

// normalise replaces what differs between runs: task, context and message
// ids, the callee's port and the ndjson timestamps.
func normalise(s string) string {
	s = atRE.ReplaceAllString(s, `"at":"<at>"`)
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
			res := runCLI(t.Context(), a, "send", "-o", tc.name, srv.CardURL(agenttest.V1), agenttest.RealisticName)
			if res.Code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
			}
			if got := withoutTaskLine(res.Stderr); got != "" {
				t.Errorf("stderr = %q, want the task id line alone", res.Stderr)
			}
			golden(t, tc.file, normalise(res.Stdout))
		})
	}
}

// TestEveryTransportSameOutput: the text output does not depend on the
// transport or the protocol version.
func TestEveryTransportSameOutput(t *testing.T) {
	t.Parallel()
	srv := startCallee(t)
	var first string
	for _, v := range agenttest.Versions() {
		for _, tr := range []string{"jsonrpc", "rest", "grpc"} {
			t.Run(string(v)+"/"+tr, func(t *testing.T) {
				a := testApp("")
				p := map[string]a2a.TransportProtocol{"jsonrpc": a2a.TransportProtocolJSONRPC, "rest": a2a.TransportProtocolHTTPJSON, "grpc": a2a.TransportProtocolGRPC}[tr]
				res := runCLI(t.Context(), a, "send", "--grpc-plaintext", srv.CardURLFor(p, v), agenttest.RealisticName)
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

func ending(name string, state a2a.TaskState, text string) agenttest.Script {
	env := envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "working on it"}}
	return agenttest.Script{Name: name, Steps: []agenttest.Step{{Envelope: &env}}, Final: state, FinalText: text}
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
	url := srv.CardURL(agenttest.V1)
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
		{name: "input required", args: []string{"send", url, "input"}, code: 4, verdict: "  respond on task <id>"},
		{name: "auth required", args: []string{"send", url, "auth"}, code: 4, verdict: "  respond on task <id>"},
		{name: "silent end is incomplete", args: []string{"send", "--max-retries", "1", url, "silent"}, code: 1,
			verdict: `✗ incomplete: client: turn incomplete (task "<id>", last state TASK_STATE_WORKING, 2 attempts): no progress in 1 resubscription(s) in a row (a replay of what the turn has is not progress); last cut: stream closed before a terminal or interrupted state`},
		{name: "no reconnect with --max-retries 0", args: []string{"send", "--max-retries", "0", url, "silent"}, code: 1,
			verdict: `✗ incomplete: client: turn incomplete (task "<id>", last state TASK_STATE_WORKING, 1 attempt): stream closed before a terminal or interrupted state`,
		},
		{name: "no args", args: nil, code: 2, inStderr: "want <agent-url> <task-id> or a command (follow, send, cancel, replay, query, demo, web), got 0 argument(s)"},
		{name: "mistyped command", args: []string{"replya"}, code: 2, inStderr: "a2a-tail: want <agent-url> <task-id> or a command (follow, send, cancel, replay, query, demo, web), got 1 argument(s); see a2a-tail --help"},
		{name: "bad output", args: []string{"-o", "xml", "demo"}, code: 2, inStderr: `--output "xml": want text, ndjson or json`},
		{name: "bad color", args: []string{"--color", "maybe", "demo"}, code: 2, inStderr: `--color "maybe": want auto, always or never`},
		{name: "unknown flag", args: []string{"--bogus", "demo"}, code: 2, inStderr: "unknown flag: --bogus"},
		{name: "send without text", args: []string{"send", url}, code: 2, inStderr: "requires at least 2 arg(s)"},
		{name: "bad svc-param", args: []string{"send", "--svc-param", "novalue", url, "hi"}, code: 2, inStderr: `--svc-param "novalue": want key=value`},
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
	case <-time.After(testdep.Budget(10 * time.Second)):
		t.Fatalf("never saw %q; output so far:\n%s", w.want, w.String())
	}
}

// TestCtrlC: Ctrl-C exits 130, says so once (the verdict line, or the
// ndjson result's exitCode), and adds nothing on stderr.
func TestCtrlC(t *testing.T) {
	first := envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "first"}}
	srv := startCallee(t, agenttest.Script{Name: "held", Steps: []agenttest.Step{{Envelope: &first}, {Gate: "never"}}, Final: a2a.TaskStateCompleted})
	for _, o := range []string{"text", "ndjson"} {
		t.Run(o, func(t *testing.T) {
			out := newSignalWriter("first")
			stderr := &lockedBuffer{}
			a := newApp(strings.NewReader(""), out, stderr)
			a.isTTY = func(io.Writer) bool { return false }
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan int)
			go func() { done <- a.run(ctx, []string{"send", "-o", o, srv.CardURL(agenttest.V1), "held"}) }()
			out.wait(t)
			cancel() // what SIGINT does through signal.NotifyContext
			if code := <-done; code != exitCtrlC {
				t.Errorf("exit code = %d, want %d", code, exitCtrlC)
			}
			if got := withoutTaskLine(stderr.String()); !nextAfterStop.MatchString(got) {
				t.Errorf("stderr = %q, want the task id, then the next commands alone (the verdict says the rest)", got)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			last := lines[len(lines)-1]
			switch o {
			case "text":
				if !strings.HasPrefix(last, "✗ stopped before the turn ended: ") {
					t.Errorf("verdict line = %q", last)
				}
			case "ndjson":
				var res struct {
					Verdict  string
					ExitCode int
				}
				if err := json.Unmarshal([]byte(last), &res); err != nil {
					t.Fatal(err)
				}
				if res.Verdict != "incomplete" || res.ExitCode != exitCtrlC {
					t.Errorf("result = %+v, want verdict incomplete and exitCode %d", res, exitCtrlC)
				}
			}
		})
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
			res := runCLI(t.Context(), a, "send", "-o", o, srv.CardURL(agenttest.V1), agenttest.RealisticName)
			if res.Code != exitOK || withoutTaskLine(res.Stderr) != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing but the task id", res.Code, res.Stderr)
			}
		})
	}
}

// TestAsyncAndFollow: send --async prints the task id and follows it; a
// later follow of the settled task rebuilds the same view from its history
// and exits with its verdict.
func TestAsyncAndFollow(t *testing.T) {
	t.Parallel()
	srv := startCallee(t)
	url := srv.CardURL(agenttest.V1)
	streamedText := runCLI(t.Context(), testApp(""), "send", url, agenttest.RealisticName)
	async := runCLI(t.Context(), testApp(""), "send", "--async", url, agenttest.RealisticName)
	if async.Code != exitOK {
		t.Fatalf("send --async: exit %d, stderr %s", async.Code, async.Stderr)
	}
	id := strings.TrimPrefix(strings.TrimSpace(async.Stderr), "a2a-tail: task ")
	if !uuidRE.MatchString(id) {
		t.Fatalf("send --async printed %q on stderr, want the task id", async.Stderr)
	}
	if diff := cmp.Diff(normalise(streamedText.Stdout), normalise(async.Stdout)); diff != "" {
		t.Errorf("async output differs from the streamed one (-send +send --async):\n%s", diff)
	}
	// The task has settled: the subscription is refused, GetTask resolves it.
	// Its history holds every envelope, the duplicate once, in seq order.
	follow := runCLI(t.Context(), testApp(""), url, id, "-o", "json")
	if follow.Code != exitOK {
		t.Fatalf("follow: exit %d, stderr %s", follow.Code, follow.Stderr)
	}
	streamed := runCLI(t.Context(), testApp(""), "send", "-o", "json", url, agenttest.RealisticName)
	var a, b struct {
		View    schema.View
		Outcome map[string]any
	}
	if err := json.Unmarshal([]byte(streamed.Stdout), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(follow.Stdout), &b); err != nil {
		t.Fatal(err)
	}
	// A followed settled task is backfilled from its history, whose
	// messages carry no time: their at is the snapshot's.
	ignore := cmp.Options{cmpopts.IgnoreFields(schema.View{}, "Task", "Turn", "Counters"), cmpopts.IgnoreFields(schema.Block{}, "At")}
	if diff := cmp.Diff(a.View, b.View, ignore); diff != "" {
		t.Errorf("view of the followed settled task (-streamed +followed):\n%s", diff)
	}
	if b.Outcome["verdict"] != "completed" || b.Outcome["reply"] != agenttest.RealisticReply {
		t.Errorf("followed outcome = %v", b.Outcome)
	}
}

func TestTimestampsAndColor(t *testing.T) {
	srv := startCallee(t)
	url := srv.CardURL(agenttest.V1)
	res := runCLI(t.Context(), testApp(""), "send", "--timestamps", url, agenttest.RealisticName)
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ `)
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if strings.HasPrefix(l, "✓") || strings.HasPrefix(l, "  artifact") || strings.HasPrefix(l, "    ") {
			continue
		}
		if !stamp.MatchString(l) {
			t.Errorf("line without a timestamp: %q", l)
		}
	}
	if strings.Contains(res.Stdout, "\x1b[") {
		t.Errorf("ANSI codes in output to a non-terminal")
	}
	res = runCLI(t.Context(), testApp(""), "send", "--color", "always", url, agenttest.RealisticName)
	if !strings.Contains(res.Stdout, "\x1b[32m✓ completed\x1b[0m") || !strings.Contains(res.Stdout, "\x1b[31merror: warehouse") {
		t.Errorf("--color always: no colour in\n%q", res.Stdout)
	}
	t.Setenv("NO_COLOR", "1")
	a := testApp("")
	a.isTTY = func(io.Writer) bool { return true }
	if a.useColor() {
		t.Errorf("NO_COLOR set: colour on a terminal with --color auto")
	}
	a.color = "always"
	if !a.useColor() {
		t.Errorf("--color always must win over NO_COLOR")
	}
}

var taskLineRE = regexp.MustCompile(`(?m)^a2a-tail: task \S+\n`)

// withoutTaskLine is stderr without the line that names the task of a send.
func withoutTaskLine(stderr string) string { return taskLineRE.ReplaceAllString(stderr, "") }
