package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/termtext"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// The hostile-peer tests run a2a-tail as a child process (this test binary,
// re-executed with childArgsEnv set) against a deliberately hostile A2A
// peer on 127.0.0.1, and assert what a user would see: the exit code, a
// diagnostic that says what happened, the child's peak RSS under a bound,
// and for credentials what the other host received. A child process is
// what makes the memory bound real: its peak RSS (getrusage) counts every
// byte the command touched, with no sampling.

const (
	childArgsEnv = "A2A_TAIL_HOSTILE_CHILD_ARGS"
	childRSSEnv  = "A2A_TAIL_HOSTILE_CHILD_RSS"
	// childMainEnv set: the child runs the command line through main —
	// the signals, SIGPIPE — as the built binary does.
	childMainEnv = "A2A_TAIL_CHILD_MAIN"
)

// childCommand is a2a-tail with args as a child process: this test binary,
// re-executed, running the command line through main (no go build).
func childCommand(ctx context.Context, args ...string) *exec.Cmd {
	raw, _ := json.Marshal(args)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(raw), childMainEnv+"=1")
	return cmd
}

// runChild is called from TestMain: in the child, run the command line and
// exit with its code.
func runChild() {
	raw := os.Getenv(childArgsEnv)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, "child args:", err)
		os.Exit(99)
	}
	if os.Getenv(childMainEnv) != "" {
		os.Args = append(os.Args[:1], args...)
		main()
	}
	code := run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr)
	if path := os.Getenv(childRSSEnv); path != "" {
		// The peak of this process's own memory: getrusage's ru_maxrss
		// would count the parent's too (exec keeps the high-water mark
		// of the address space it replaces).
		status, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				_ = os.WriteFile(path, []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))), 0o600)
			}
		}
	}
	os.Exit(code)
}

// childResult is what one a2a-tail process did.
type childResult struct {
	code           int
	stdout, stderr string
	rssMiB         float64 // peak resident set size
	took           time.Duration
}

func runA2ATail(t *testing.T, env []string, args ...string) childResult {
	t.Helper()
	return runA2ATailFor(t, testdep.Budget(3*time.Minute), env, args...)
}

// runA2ATailFor is runA2ATail with the child's time limit.
func runA2ATailFor(t *testing.T, limit time.Duration, env []string, args ...string) childResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd.Env = append(append(os.Environ(), env...), childArgsEnv+"="+string(raw), childRSSEnv+"="+rssFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := childResult{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("a2a-tail %q: %v", args, err)
		}
	}
	res.code = cmd.ProcessState.ExitCode()
	kib, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatalf("the child did not report its peak RSS: %v", err)
	}
	n, err := strconv.ParseFloat(string(kib), 64)
	if err != nil {
		t.Fatalf("the child's peak RSS %q: %v", kib, err)
	}
	res.rssMiB = n / 1024
	return res
}

// hostile is a JSON-RPC A2A 1.0 peer whose every answer is scripted by the
// test. It records the requests it got.
type hostile struct {
	srv *httptest.Server
	// card answers GET /.well-known/agent-card.json; nil: a card naming
	// this server's JSON-RPC endpoint.
	card func(w http.ResponseWriter, r *http.Request)
	// methods answer the JSON-RPC methods; a missing one is "method not
	// found".
	methods map[string]func(w http.ResponseWriter, r *http.Request, req rpcRequest)

	mu   sync.Mutex
	reqs []seenRequest
}

type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type seenRequest struct {
	Path, Method, Auth string
	APIKey             string // X-Api-Key, a credential net/http never drops
	Params             json.RawMessage
}

func newHostile(t *testing.T) *hostile {
	t.Helper()
	h := &hostile{methods: map[string]func(http.ResponseWriter, *http.Request, rpcRequest){}}
	h.srv = httptest.NewServer(h)
	t.Cleanup(h.srv.Close)
	hostilesMu.Lock()
	hostiles[t] = append(hostiles[t], h)
	hostilesMu.Unlock()
	return h
}

// hostiles are the peers of each running case, for published.
var (
	hostilesMu sync.Mutex
	hostiles   = map[*testing.T][]*hostile{}
)

// published makes the setup's writes to every peer of t's card and
// methods visible to its handlers, which read them under the peer's lock.
func published(t *testing.T) {
	hostilesMu.Lock()
	defer hostilesMu.Unlock()
	for _, h := range hostiles[t] {
		h.mu.Lock()
		//lint:ignore SA2001 empty: the happens-before edge is the point
		h.mu.Unlock()
	}
	delete(hostiles, t)
}

func (h *hostile) seen() []seenRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]seenRequest(nil), h.reqs...)
}

func (h *hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seen := seenRequest{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), APIKey: r.Header.Get("X-Api-Key")}
	if r.Method == http.MethodGet {
		h.mu.Lock()
		h.reqs = append(h.reqs, seen)
		card := h.card
		h.mu.Unlock()
		if card != nil {
			card(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, cardJSON(h.srv.URL))
		return
	}
	var req rpcRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	seen.Method, seen.Params = req.Method, req.Params
	h.mu.Lock()
	h.reqs = append(h.reqs, seen)
	f := h.methods[req.Method]
	h.mu.Unlock()
	if f == nil {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
		return
	}
	f(w, r, req)
}

func cardJSON(rpcURL string) string {
	return fmt.Sprintf(`{"name":"hostile","description":"x","version":"1","capabilities":{"streaming":true},`+
		`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],`+
		`"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, rpcURL)
}

// sse starts an SSE answer and returns a function writing one frame.
func sse(w http.ResponseWriter, id json.RawMessage) func(result string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return func(result string) {
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, result)
		w.(http.Flusher).Flush()
	}
}

// sseError refuses a streaming call the way a2a-go does: an error frame.
func sseError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "text/event-stream")
	b, _ := json.Marshal(msg)
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,\"message\":%s}}\n\n", id, code, b)
}

func taskJSON(id, state, extra string) string {
	return fmt.Sprintf(`{"task":{"id":%s,"contextId":"c1","status":{"state":%q}%s}}`, jsonString(id), state, extra)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func statusJSON(id, state, msgID, text string) string {
	t, _ := json.Marshal(text)
	return fmt.Sprintf(`{"statusUpdate":{"taskId":%s,"contextId":"c1","status":{"state":%q,"message":{"messageId":%q,"role":"ROLE_AGENT","parts":[{"text":%s}]}}}}`,
		jsonString(id), state, msgID, t)
}

// endless writes prefix, then filler bytes until total or the client
// leaves; each write is flushed.
func endless(w http.ResponseWriter, prefix string, total int64, filler []byte) {
	n, _ := io.WriteString(w, prefix)
	written := int64(n)
	for written < total {
		k, err := w.Write(filler)
		if err != nil {
			return
		}
		written += int64(k)
		w.(http.Flusher).Flush()
	}
}

var mib = bytes.Repeat([]byte("x"), 1<<20)

// bigTask answers GetTask with a task whose history is total bytes, labelled
// contentType.
func bigTask(contentType string, total int64) func(http.ResponseWriter, *http.Request, rpcRequest) {
	return func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		w.Header().Set("Content-Type", contentType)
		endless(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"history":[{"messageId":"h","role":"ROLE_AGENT","parts":[{"text":"`, req.ID), total, mib)
	}
}

func refuseSubscribe(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
	sseError(w, req.ID, -32001, "task not found")
}

// A hostile answer of 1 GiB, sixteen times the bound of a non-streaming
// answer (64 MiB). The peer writes only as fast as the client reads, so a
// client that stops at the bound costs the test no more than that.
const hugeResponse = 1 << 30

// rssBound is the peak RSS a case may reach. The bound of one answer is
// 64 MiB; a2a-go's JSON decoder doubles its buffer up to that, so about
// three times the bound is live at the last doubling (measured: 215 MiB,
// however large the peer's answer). The race detector multiplies what a
// process touches (a child of 22 MiB takes 40): the bound follows.
func rssBound(mibs float64) float64 {
	if testdep.Race {
		return mibs * 3
	}
	return mibs
}

type hostileCase struct {
	name string
	// setup configures the peer (and may start others) and returns the
	// command line.
	setup func(t *testing.T, h *hostile) []string
	code  int
	// flags are added to the command line.
	flags []string
	// output (stdout and stderr: the verdict line is on stdout, the
	// diagnostics on stderr) must hold each of these.
	output []string
	// anyOf: the output must hold one of these, when set.
	anyOf []string
	// maxRSS bounds the child's peak RSS, in MiB (before rssBound).
	maxRSS float64
	// check inspects the result and the peer further.
	check func(t *testing.T, h *hostile, r childResult)
}

func TestHostilePeers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("hostile peers serve hundreds of MiB")
	}
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			if testdep.Race && tc.maxRSS > 100 {
				// The race detector triples what the child touches and
				// slows the read of hundreds of MiB tenfold: the bound is
				// measured where it means something (.ci/run runs these
				// without -race).
				t.Skip("a memory bound of hundreds of MiB: run without -race")
			}
			t.Parallel()
			h := newHostile(t)
			args := tc.setup(t, h)
			published(t)
			r := runA2ATail(t, nil, append(args, tc.flags...)...)
			t.Logf("peak RSS %.0f MiB, %v, exit %d", r.rssMiB, r.took.Round(time.Millisecond), r.code)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, clipForLog(r.stderr))
			}
			for _, s := range tc.output {
				if !strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("the output lacks %q:\nstdout: %s\nstderr: %s", s, clipForLog(r.stdout), clipForLog(r.stderr))
				}
			}
			if len(tc.anyOf) > 0 && !slices.ContainsFunc(tc.anyOf, func(s string) bool { return strings.Contains(r.stdout+r.stderr, s) }) {
				t.Errorf("the output holds none of %q:\nstdout: %s\nstderr: %s", tc.anyOf, clipForLog(r.stdout), clipForLog(r.stderr))
			}
			if bound := rssBound(tc.maxRSS); r.rssMiB > bound {
				t.Errorf("peak RSS %.0f MiB, want at most %.0f MiB", r.rssMiB, bound)
			}
			for _, out := range []string{r.stdout, r.stderr} {
				if i := strings.IndexFunc(out, terminalControl); i >= 0 {
					t.Errorf("a control or invisible character reached the output at byte %d: %q", i, out[max(0, i-20):min(len(out), i+20)])
				}
			}
			if tc.check != nil {
				tc.check(t, h, r)
			}
		})
	}
}

// terminalControl reports the runes that must never reach a terminal from
// a peer: C0 controls but the newline, DEL, C1 controls, and the invisible
// formatting characters (bidi controls among them). internal/termtext's
// FuzzPrintable holds the same predicate for what its functions return.
func terminalControl(r rune) bool {
	return r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || termtext.Invisible(r) || r == utf8.RuneError
}

func clipForLog(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

func hostileCases() []hostileCase {
	// The history lengths the REST peer's GetTask was asked for.
	var (
		restMu    sync.Mutex
		restAsked []string
	)
	return []hostileCase{
		{
			// The same over REST: the refusal and the shrinking history are
			// the client's, whatever the binding.
			name: "GetTask answer of 1 GiB over REST, retried",
			setup: func(t *testing.T, h *hostile) []string {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.HasSuffix(r.URL.Path, ":subscribe") {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusNotFound)
						fmt.Fprint(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found"}}`)
						return
					}
					restMu.Lock()
					n := r.URL.Query().Get("historyLength")
					if n == "" {
						n = "all"
					}
					restAsked = append(restAsked, n)
					restMu.Unlock()
					w.Header().Set("Content-Type", "application/json")
					endless(w, `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"history":[{"messageId":"h","role":"ROLE_AGENT","parts":[{"text":"`, hugeResponse, mib)
				}))
				t.Cleanup(srv.Close)
				return []string{"--transport", "rest", srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"answer over 64 MiB refused", "not asked again", "no retry can change this"},
			maxRSS: 256,
			check: func(t *testing.T, h *hostile, r childResult) {
				restMu.Lock()
				defer restMu.Unlock()
				if d := cmp.Diff([]string{"all", "32", "4", "0"}, restAsked); d != "" {
					t.Errorf("GetTask history lengths (-want +got):\n%s", d)
				}
			},
		},
		{
			name: "GetTask answer of 1 GiB labelled text/event-stream",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SubscribeToTask"] = refuseSubscribe
				h.methods["GetTask"] = bigTask("text/event-stream", hugeResponse)
				return []string{"--transport", "jsonrpc", "--max-retries", "0", h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"incomplete", "answer over 64 MiB refused"},
			maxRSS: 280,
		},
		{
			name: "agent card of 1 GiB labelled text/event-stream",
			setup: func(t *testing.T, h *hostile) []string {
				h.card = func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					endless(w, `{"name":"`, hugeResponse, mib)
				}
				return []string{h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"agent card of", "answer over 64 MiB refused"},
			maxRSS: 250,
		},
		{
			name: "GetTask answer of 1 GiB, retried",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SubscribeToTask"] = refuseSubscribe
				h.methods["GetTask"] = bigTask("application/json", hugeResponse)
				return []string{"--transport", "jsonrpc", h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"answer over 64 MiB refused", "not asked again", "no retry can change this"},
			maxRSS: 256,
			check: func(t *testing.T, h *hostile, r childResult) {
				// Each refusal asks again at once for less history; after
				// none, the turn ends: no second subscription, however long
				// --retry-for is.
				var got []string
				subs := 0
				for _, s := range h.seen() {
					if s.Method == "SubscribeToTask" {
						subs++
					}
					if s.Method == "GetTask" {
						var p struct {
							HistoryLength *int `json:"historyLength"`
						}
						_ = json.Unmarshal(s.Params, &p)
						if p.HistoryLength == nil {
							got = append(got, "all")
						} else {
							got = append(got, fmt.Sprint(*p.HistoryLength))
						}
					}
				}
				if d := cmp.Diff([]string{"all", "32", "4", "0"}, got); d != "" {
					t.Errorf("GetTask history lengths (-want +got):\n%s", d)
				}
				if subs != 1 {
					t.Errorf("%d subscriptions, want 1", subs)
				}
			},
		},
		{
			// The client's one SSE reader bounds the event over all its
			// lines, and says so.
			name:   "one SSE event of 1 GiB in 1 MiB data lines",
			setup:  hugeSSEEvent,
			code:   exitRuntime,
			output: []string{"stream event over 10 MiB refused", "incomplete"},
			maxRSS: 120,
		},
		{
			name: "a card on host A naming interfaces on host B",
			setup: func(t *testing.T, h *hostile) []string {
				b := newHostile(t)
				b.methods["SubscribeToTask"] = completeTask
				h.card = func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, cardJSON(b.srv.URL)) }
				t.Cleanup(func() {
					if got := b.seen(); len(got) != 0 {
						t.Errorf("host B got %d requests (first: %+v), want none", len(got), got[0])
					}
				})
				return []string{"--auth", "Bearer s3cret", h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"the agent card names another origin", "--allow-host"},
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				// The diagnostic names both origins.
				if !strings.Contains(r.stderr, h.srv.URL) || strings.Count(r.stderr, "127.0.0.1:") < 3 {
					t.Errorf("stderr does not name both origins: %s", r.stderr)
				}
			},
		},
		{
			name: "a card on host A naming host B, allowed with --allow-host",
			setup: func(t *testing.T, h *hostile) []string {
				b := newHostile(t)
				b.methods["SubscribeToTask"] = completeTask
				h.card = func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, cardJSON(b.srv.URL)) }
				t.Cleanup(func() {
					for _, s := range b.seen() {
						if s.Auth != "Bearer s3cret" {
							t.Errorf("host B, allowed, got %s without the credentials", s.Method)
						}
					}
				})
				return []string{"--auth", "Bearer s3cret", "--allow-host", strings.TrimPrefix(b.srv.URL, "http://"), h.srv.URL, "t1"}
			},
			code:   exitOK,
			maxRSS: 60,
		},
		{
			name: "a card redirected (302) from host A to host B, naming B",
			setup: func(t *testing.T, h *hostile) []string {
				b := newHostile(t)
				b.methods["SubscribeToTask"] = completeTask
				h.card = func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, b.srv.URL+r.URL.Path, http.StatusFound)
				}
				t.Cleanup(func() {
					got := b.seen()
					for _, s := range got {
						if s.Auth != "" || s.APIKey != "" || s.Method != "" {
							t.Errorf("host B got %+v: the credentials or a call followed the redirect", s)
						}
					}
					if len(got) != 1 {
						t.Errorf("host B got %d requests, want the card request only", len(got))
					}
				})
				return []string{"--auth", "Bearer s3cret", "--svc-param", "X-Api-Key=k3y", h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"the agent card names another origin"},
			maxRSS: 60,
		},
		{
			name: "send --async when the task id carries escape sequences",
			setup: func(t *testing.T, h *hostile) []string {
				const id = "t\x1b]0;pwned\x07\x1b[2J\u202e1"
				h.methods["SendMessage"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, taskJSON(id, "TASK_STATE_SUBMITTED", ""))
				}
				h.methods["SubscribeToTask"] = func(w http.ResponseWriter, r *http.Request, req rpcRequest) {
					send := sse(w, req.ID)
					send(taskJSON(id, "TASK_STATE_WORKING", ""))
					send(statusJSON(id, "TASK_STATE_COMPLETED", "f", "done"))
				}
				return []string{"--transport", "jsonrpc", "send", "--async", h.srv.URL, "go"}
			},
			code:   exitOK,
			output: []string{"task t^[]0;pwned^G^[[2J<U+202E>1"},
			maxRSS: 60,
		},
		{
			name: "a JSON-RPC error with a 4 MiB message",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SendStreamingMessage"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					sseError(w, req.ID, -32602, "bad "+strings.Repeat("\x1b[31mno", 4<<20/7))
				}
				return []string{"--transport", "jsonrpc", "send", h.srv.URL, "go"}
			},
			code:   exitRuntime,
			output: []string{"[cut: ", " bytes in all, 1"},
			maxRSS: 100,
			check: func(t *testing.T, h *hostile, r childResult) {
				if len(r.stderr)+len(r.stdout) > 8<<10 {
					t.Errorf("%d bytes written for one error, want it cut", len(r.stderr)+len(r.stdout))
				}
			},
		},
		{
			name: "http://user:password@host/ as the agent URL",
			setup: func(t *testing.T, h *hostile) []string {
				h.card = func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
				return []string{strings.Replace(h.srv.URL, "http://", "http://user:pa55word@", 1), "t1"}
			},
			code:   exitRuntime,
			output: []string{"user:***@127.0.0.1"},
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				if strings.Contains(r.stderr+r.stdout, "pa55word") {
					t.Errorf("the password was printed:\n%s", r.stderr)
				}
			},
		},
		{
			name: "bidi controls in agent text",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SendStreamingMessage"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					send := sse(w, req.ID)
					send(taskJSON("t1", "TASK_STATE_WORKING", ""))
					send(statusJSON("t1", "TASK_STATE_WORKING", "w1", "safe \u202eexe.txt\u2066 \u200b\ufeff"))
					send(statusJSON("t1", "TASK_STATE_COMPLETED", "f", "reply \u202egnp.exe \u061c\u200e"))
				}
				return []string{"--transport", "jsonrpc", "send", h.srv.URL, "go"}
			},
			code:   exitOK,
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				for _, s := range []string{"safe <U+202E>exe.txt<U+2066> <U+200B><U+FEFF>", "reply <U+202E>gnp.exe <U+061C><U+200E>"} {
					if !strings.Contains(r.stdout, s) {
						t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
					}
				}
			},
		},
		{
			name: "bidi controls in agent text, -o ndjson",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SendStreamingMessage"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					send := sse(w, req.ID)
					send(taskJSON("t1", "TASK_STATE_WORKING", ""))
					send(statusJSON("t1", "TASK_STATE_COMPLETED", "f", "reply \u202egnp.exe\u0085\u007f"))
				}
				return []string{"--transport", "jsonrpc", "-o", "ndjson", "send", h.srv.URL, "go"}
			},
			code:   exitOK,
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				last := r.stdout[strings.LastIndex(strings.TrimSuffix(r.stdout, "\n"), "\n")+1:]
				var res struct{ Reply string }
				if err := json.Unmarshal([]byte(last), &res); err != nil || res.Reply != "reply \u202egnp.exe\u0085\u007f" {
					t.Errorf("result line %q: reply %q, %v; want the reply unchanged once decoded", last, res.Reply, err)
				}
			},
		},
		{
			name: "GetTask body trickling at 1 byte/s",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SubscribeToTask"] = refuseSubscribe
				h.methods["GetTask"] = func(w http.ResponseWriter, r *http.Request, req rpcRequest) {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"t1",`, req.ID)
					w.(http.Flusher).Flush()
					tick := time.NewTicker(time.Second)
					defer tick.Stop()
					for {
						select {
						case <-r.Context().Done():
							return
						case <-tick.C:
							if _, err := w.Write([]byte(" ")); err != nil {
								return
							}
							w.(http.Flusher).Flush()
						}
					}
				}
				return []string{"--transport", "jsonrpc", "--max-retries", "0", "--idle-timeout", "2s", h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"no data for the idle timeout"},
			maxRSS: 60,
		},
		{
			// --retry-for is a deadline: each subscription would wait for
			// the idle timeout (2 minutes), the window ends it.
			name: "subscriptions that stall, --retry-for 3s",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SubscribeToTask"] = func(w http.ResponseWriter, r *http.Request, req rpcRequest) {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
					<-r.Context().Done()
				}
				h.methods["GetTask"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`, req.ID)
				}
				return []string{"--transport", "jsonrpc", "--retry-for", "3s", h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"incomplete", "no progress within 3s of the cut"},
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				if r.took > 10*time.Second {
					t.Errorf("took %v: --retry-for 3s must end the turn within about 3 s", r.took)
				}
			},
		},
		{
			// Progress is what the turn has not shown, not a new message id:
			// a peer that cuts after a bad frame and replays the same texts
			// under fresh ids on every subscription ends the turn within
			// the count of replays, and the texts are shown once.
			name: "a peer replaying the same texts under fresh ids",
			setup: func(t *testing.T, h *hostile) []string {
				var round int
				replay := func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					h.mu.Lock()
					round++
					n := round
					h.mu.Unlock()
					send := sse(w, req.ID)
					send(taskJSON("t1", "TASK_STATE_WORKING", ""))
					for i := range 5 {
						send(statusJSON("t1", "TASK_STATE_WORKING", fmt.Sprintf("r%d-m%d", n, i), fmt.Sprintf("line %d", i)))
					}
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"statusUpdate\":\n\n", req.ID)
				}
				h.methods["SendStreamingMessage"] = replay
				h.methods["SubscribeToTask"] = replay
				h.methods["GetTask"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`, req.ID)
				}
				return []string{"--transport", "jsonrpc", "send", h.srv.URL, "go"}
			},
			code:   exitRuntime,
			output: []string{"incomplete", "no progress in 6 resubscription(s) in a row"},
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				if r.took > 10*time.Second {
					t.Errorf("took %v, want under 10 s", r.took)
				}
				for i := range 5 {
					if n := strings.Count(r.stdout, fmt.Sprintf("line %d", i)); n != 1 {
						t.Errorf("%q shown %d times, want once:\n%s", fmt.Sprintf("line %d", i), n, clipForLog(r.stdout))
					}
				}
			},
		},
		{
			name: "an agent card whose headers never come",
			setup: func(t *testing.T, h *hostile) []string {
				h.card = func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
				return []string{"--idle-timeout", "1s", h.srv.URL, "t1"}
			},
			code:   exitRuntime,
			output: []string{"agent card of", "no data for the idle timeout"},
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				if r.took > 20*time.Second {
					t.Errorf("took %v: the card's 30 s bound, not the idle timeout, ended it", r.took)
				}
			},
		},
		{
			name: "an endless stream of new blocks",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SendStreamingMessage"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					send := sse(w, req.ID)
					send(taskJSON("t1", "TASK_STATE_WORKING", ""))
					for i := range 3000 {
						send(statusJSON("t1", "TASK_STATE_WORKING", fmt.Sprintf("w%d", i), fmt.Sprintf("block %d", i)))
					}
					send(statusJSON("t1", "TASK_STATE_COMPLETED", "f", "done"))
				}
				return []string{"--transport", "jsonrpc", "--max-blocks", "100", "-o", "ndjson", "send", h.srv.URL, "go"}
			},
			code:   exitOK,
			output: []string{"cap reached: 100 blocks per turn (max blocks)", "--max-blocks"},
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				if n := strings.Count(r.stderr, "cap reached"); n != 1 {
					t.Errorf("%d cap notices, want one", n)
				}
				last := r.stdout[strings.LastIndex(strings.TrimSuffix(r.stdout, "\n"), "\n")+1:]
				var res struct {
					Counters struct{ Applied, DroppedByCap int64 }
				}
				if err := json.Unmarshal([]byte(last), &res); err != nil || res.Counters.Applied != 100 || res.Counters.DroppedByCap != 2900 {
					t.Errorf("result counters %+v (%v), want 100 applied and 2900 dropped by the cap", res.Counters, err)
				}
			},
		},
		{
			name: "a send cut before its first event, ListTasks finds the task",
			setup: func(t *testing.T, h *hostile) []string {
				var msg struct{ MessageID, ContextID string }
				h.methods["SendStreamingMessage"] = func(w http.ResponseWriter, r *http.Request, req rpcRequest) {
					var p struct {
						Message struct{ MessageID, ContextID string }
					}
					_ = json.Unmarshal(req.Params, &p)
					h.mu.Lock()
					msg = p.Message
					h.mu.Unlock()
					cutConnection(w)
				}
				h.methods["ListTasks"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					var p struct{ ContextID string }
					_ = json.Unmarshal(req.Params, &p)
					h.mu.Lock()
					m := msg
					h.mu.Unlock()
					tasks := ""
					if p.ContextID == m.ContextID && m.ContextID != "" {
						tasks = fmt.Sprintf(`{"id":"orphan","contextId":%q,"status":{"state":"TASK_STATE_WORKING"},"history":[{"messageId":%q,"role":"ROLE_USER","parts":[{"text":"go"}]}]}`, m.ContextID, m.MessageID)
					}
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tasks":[%s],"totalSize":1,"pageSize":100,"nextPageToken":""}}`, req.ID, tasks)
				}
				h.methods["SubscribeToTask"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					send := sse(w, req.ID)
					send(taskJSON("orphan", "TASK_STATE_WORKING", ""))
					send(statusJSON("orphan", "TASK_STATE_COMPLETED", "f", "found and done"))
				}
				return []string{"--transport", "jsonrpc", "send", h.srv.URL, "go"}
			},
			code:   exitOK,
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				if !strings.Contains(r.stdout, "found and done") {
					t.Errorf("stdout lacks the resumed task's reply:\n%s", r.stdout)
				}
				var methods []string
				for _, s := range h.seen() {
					methods = append(methods, s.Method)
				}
				if d := cmp.Diff([]string{"SendStreamingMessage", "ListTasks", "SubscribeToTask"}, methods); d != "" {
					t.Errorf("calls (-want +got): the message must be sent once\n%s", d)
				}
			},
		},
		{
			name: "a send cut before its first event, no ListTasks",
			setup: func(t *testing.T, h *hostile) []string {
				h.methods["SendStreamingMessage"] = func(w http.ResponseWriter, r *http.Request, req rpcRequest) {
					cutConnection(w)
				}
				return []string{"--transport", "jsonrpc", "send", h.srv.URL, "go"}
			},
			code:   exitRuntime,
			output: []string{"may have created a task", "find it by context id"},
			maxRSS: 60,
			check: func(t *testing.T, h *hostile, r childResult) {
				var p struct {
					Message struct{ MessageID, ContextID string }
				}
				for _, s := range h.seen() {
					if s.Method == "SendStreamingMessage" {
						_ = json.Unmarshal(s.Params, &p)
					}
				}
				m := p.Message
				if out := r.stdout + r.stderr; m.MessageID == "" || m.ContextID == "" || !strings.Contains(out, m.MessageID) || !strings.Contains(out, m.ContextID) {
					t.Errorf("the output does not name the message %q and context %q:\n%s", m.MessageID, m.ContextID, out)
				}
			},
		},
	}
}

// completeTask answers a subscription with a task that completes.
func completeTask(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
	send := sse(w, req.ID)
	send(taskJSON("t1", "TASK_STATE_WORKING", ""))
	send(statusJSON("t1", "TASK_STATE_COMPLETED", "f", "done"))
}

// cutConnection drops the TCP connection without an answer.
func cutConnection(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// hugeSSEEvent makes the stream one SSE event of 1 GiB in 1 MiB data lines
// (a task whose metadata string never ends) and tails it over JSON-RPC.
func hugeSSEEvent(t *testing.T, h *hostile) []string {
	h.methods["SubscribeToTask"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		w.Header().Set("Content-Type", "text/event-stream")
		prefix := fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"},\"metadata\":{\"x\":\"", req.ID)
		line := append(append([]byte("data: "), mib[:1<<20-7]...), '\n')
		endless(w, prefix+"\n", 1<<30, line)
	}
	return []string{"--transport", "jsonrpc", "--max-retries", "1", h.srv.URL, "t1"}
}
