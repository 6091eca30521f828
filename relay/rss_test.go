package relay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/internal/flood"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/frontend"
)

// The relay's memory, measured from outside: a child process (this test
// binary, re-executed) runs a relay with the default caps that follows a
// peer filling every cap of one turn (flood.FillEveryCap: 300 tool calls of
// 360 KiB output, 8 000 text blocks of 8 KiB, 1 024 artifacts of 64 KiB and
// one of 1 GiB; 1.3 GiB of JSON) while subscribers read the task in the ops,
// AG-UI and AI SDK formats. The child reports its peak RSS (VmHWM, from
// /proc/self/status) and its Stats.

const (
	// relayChildEnv, set to the peer's JSON-RPC URL, makes the test binary
	// a relay child (runRelayChild).
	relayChildEnv = "A2A_PROGRESS_RELAY_CHILD"
	// floodEnv, set, runs TestRelayFloodRSS (as it runs the a2a-tail
	// flood tests): the peer sends 1.3 GiB.
	floodEnv = "A2A_PROGRESS_FLOOD"
)

// childReport is what the relay child writes when its stdin closes.
type childReport struct {
	HWMKiB  int64
	LiveKiB int64 // the largest live heap after a collection
	Stats   relay.Stats
}

// relayProfileEnv, set to a directory, makes the relay child write the
// heap profile of its largest live heap there (heap.pprof), to see where
// the memory goes.
const relayProfileEnv = "A2A_PROGRESS_RELAY_PROFILE"

// liveWatch keeps the largest live heap the collector measured.
type liveWatch struct{ max atomic.Int64 }

func (w *liveWatch) run(dir string) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for range time.Tick(50 * time.Millisecond) {
		metrics.Read(s)
		v := int64(s[0].Value.Uint64())
		if v <= w.max.Load()*21/20 {
			continue
		}
		w.max.Store(v)
		if dir != "" {
			if f, err := os.Create(filepath.Join(dir, "heap.pprof")); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				_ = f.Close()
			}
		}
	}
}

// runRelayChild, in a relay child, serves a relay that follows the peer
// and prints its address; when stdin closes it prints its report and
// exits.
func runRelayChild() {
	peer := os.Getenv(relayChildEnv)
	if peer == "" {
		return
	}
	ctx := context.Background()
	// As a2a-tail web does: the Follower's turn budget is the one the
	// relay reserves for each Follow (relay.WithFollowBudget).
	c, err := client.New(ctx, peer, client.WithTransport(a2a.TransportProtocolJSONRPC),
		client.WithTurnBudget(relay.DefaultFollowBudget))
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(2)
	}
	h := relay.New(ctx, c, append(frontFormats, relay.WithAuthorizer(relay.AllowAll))...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(2)
	}
	go func() { _ = http.Serve(ln, h) }()
	var live liveWatch
	go live.run(os.Getenv(relayProfileEnv))
	fmt.Printf("http://%s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	rep := childReport{Stats: h.Stats(), LiveKiB: live.max.Load() >> 10}
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			rep.HWMKiB, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	b, _ := json.Marshal(rep)
	fmt.Println(string(b))
	os.Exit(0)
}

// floodTasksEnv sets the number of concurrent flooding tasks of
// TestRelayFloodRSS's second run (default 24), to measure others.
const floodTasksEnv = "A2A_PROGRESS_FLOOD_TASKS"

// The relay's RSS with one flooding task, and with many at once (each with
// an ops, an AG-UI and an AI SDK reader): the process's byte budget, which
// holds each Follow's turn budget while it runs, keeps the peak under
// relayRSSBound whatever the number of tasks; the tasks that do not fit
// are refused with 503.
func TestRelayFloodRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("a child process against a flooding peer")
	}
	if testdep.Race {
		t.Skip("a memory bound of hundreds of MiB: run without -race")
	}
	if os.Getenv(floodEnv) == "" {
		t.Skip("the peer sends 1.3 GiB per task: set " + floodEnv + "=1 (.ci/run does)")
	}
	many := 24
	if n, err := strconv.Atoi(os.Getenv(floodTasksEnv)); err == nil && n > 0 {
		many = n
	}
	peer := httptest.NewServer(perTask(flood.Handler(&flood.Peer{Events: flood.FillEveryCap}, "jsonrpc")))
	defer peer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	// The baseline: a relay child that follows nothing.
	idle := startRelayChild(ctx, t, peer.URL, 0)
	baseline := float64(idle.report(t).HWMKiB) / 1024

	// One task, eight readers: each front-end reader would keep a merged
	// view of the turn (32 MiB) of its own; the task's budget holds them all.
	one := floodRSS(ctx, t, peer.URL, 1, []string{relay.FormatOps, relay.FormatOps, frontend.FormatAGUI, frontend.FormatAGUI,
		frontend.FormatAGUI, frontend.FormatAISDK, frontend.FormatAISDK, frontend.FormatAISDK})
	want := []string{"result completed", "result completed", "RUN_FINISHED", "RUN_FINISHED", "RUN_FINISHED", "finish", "finish", "finish"}
	if d := cmp.Diff(want, one.ends[0]); d != "" {
		t.Errorf("one task: how each subscriber's stream ended (-want +got):\n%s", d)
	}
	if got := one.rep.Stats.Bytes + one.rep.Stats.ViewBytes; got > relay.DefaultMaxTaskBytes {
		t.Errorf("the task costs %d bytes as counted, over its budget of %d", got, relay.DefaultMaxTaskBytes)
	}

	// Many tasks at once: the first ones run to their end; once the budget
	// is taken, a late reader gets 503 — a task's first reader (its
	// Follow), or a front-end reader whose encoder no longer fits.
	formats := []string{relay.FormatOps, frontend.FormatAGUI, frontend.FormatAISDK}
	all := floodRSS(ctx, t, peer.URL, many, formats)
	ran, refused := 0, 0
	wantEnd := []string{"result completed", "RUN_FINISHED", "finish"}
	for i, ends := range all.ends {
		whole := true
		for j, end := range ends {
			switch {
			case end == wantEnd[j]:
			case strings.HasPrefix(end, "503 "):
				refused++
				whole = false
			default:
				whole = false
				t.Errorf("task %d: %s reader ended %q: want %q, or 503 for a reader that does not fit", i+1, formats[j], end, wantEnd[j])
			}
		}
		if whole {
			ran++
		}
	}
	t.Logf("%d tasks: %d ran with every reader, %d readers refused with 503 (stats %+v)", many, ran, refused, all.rep.Stats)
	if ran == 0 || (many > 8 && refused == 0) {
		t.Errorf("%d tasks: %d ran and %d readers were refused: want some of each", many, ran, refused)
	}
	for _, r := range []struct {
		name string
		mib  float64
	}{{"one task", one.mib}, {fmt.Sprint(many, " tasks"), all.mib}} {
		t.Logf("%s: peak RSS %.0f MiB (baseline %.0f MiB, bound %d MiB)", r.name, r.mib, baseline, relayRSSBound>>20)
		if r.mib > float64(relayRSSBound>>20) {
			t.Errorf("%s: peak RSS %.0f MiB, want at most %d MiB", r.name, r.mib, relayRSSBound>>20)
		}
	}
}

// relayRSSBound is the relay's documented bound on its RSS with the
// default budget, however many tasks and readers (see the package doc).
const relayRSSBound = 256 << 20

// floodResult is what one relay child did: how each reader of each task
// ended, its peak RSS in MiB and its report.
type floodResult struct {
	ends [][]string
	mib  float64
	rep  childReport
}

// floodRSS runs a relay child on the flooding peer with tasks t1…tN read
// at once, each by one reader per format.
func floodRSS(ctx context.Context, t *testing.T, peerURL string, tasks int, formats []string) floodResult {
	t.Helper()
	child := startRelayChild(ctx, t, peerURL, tasks)
	res := floodResult{ends: make([][]string, tasks)}
	start := time.Now()
	var wg sync.WaitGroup
	for k := range tasks {
		res.ends[k] = make([]string, len(formats))
		base := child.url + "/tasks/t" + strconv.Itoa(k+1) + "/events"
		for i, f := range formats {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res.ends[k][i] = readToEnd(ctx, base+"?format="+f, f)
			}()
		}
	}
	wg.Wait()
	res.rep = child.report(t)
	res.mib = float64(res.rep.HWMKiB) / 1024
	t.Logf("%d tasks × %d readers: %v, peak RSS %.0f MiB, largest live heap %.0f MiB", tasks, len(formats),
		time.Since(start).Round(time.Millisecond), res.mib, float64(res.rep.LiveKiB)/1024)
	return res
}

// perTask serves next (a peer of task t1) for any task tN: the JSON-RPC
// request names tN, and every "t1" of the answer says tN, so that each
// task the relay follows is a flood of its own.
func perTask(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct {
			Params struct {
				ID string `json:"id"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if req.Params.ID == "" || req.Params.ID == "t1" {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&renamer{ResponseWriter: w, to: []byte(`"` + req.Params.ID + `"`)}, r)
	})
}

// renamer writes "t1" as another task id.
type renamer struct {
	http.ResponseWriter
	to []byte
}

func (r *renamer) Write(b []byte) (int, error) {
	if _, err := r.ResponseWriter.Write(bytes.ReplaceAll(b, []byte(`"t1"`), r.to)); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (r *renamer) Flush() { r.ResponseWriter.(http.Flusher).Flush() }

// relayChild is a relay child process.
type relayChild struct {
	url  string
	proc *testdep.Proc
}

// startRelayChild starts a relay child following the peer at peerURL, for
// the given number of tasks (its profile's name); the test's cleanup kills
// it.
func startRelayChild(ctx context.Context, t *testing.T, peerURL string, tasks int) *relayChild {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), relayChildEnv+"="+peerURL)
	if dir := os.Getenv(relayProfileEnv); dir != "" {
		sub := filepath.Join(dir, strconv.Itoa(tasks))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, relayProfileEnv+"="+sub)
	}
	p := testdep.Start(t, "the relay child", cmd, testdep.Stdout)
	return &relayChild{url: p.Next(), proc: p}
}

// report closes the child's stdin and returns its report.
func (c *relayChild) report(t *testing.T) childReport {
	t.Helper()
	_ = c.proc.Stdin.Close()
	line := c.proc.Next()
	var rep childReport
	if err := json.Unmarshal([]byte(line), &rep); err != nil {
		t.Fatalf("the child's report %q: %v", line, err)
	}
	return rep
}

// readToEnd reads the event stream at url until it ends with the turn's
// end, reconnecting (with Last-Event-ID) when the relay drops a reader
// that fell behind, and returns how it ended: "result <verdict>" for ops,
// the AG-UI or AI SDK event type of the end otherwise, or what went wrong.
func readToEnd(ctx context.Context, url, format string) string {
	last, lastID := "", ""
	for range 20 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if lastID != "" && format == relay.FormatOps {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.Status + " " + string(b)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 256<<20) // a front-end snapshot holds a whole view
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				lastID = v
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			var ev struct {
				Type    string `json:"type"`
				Verdict string `json:"verdict"`
			}
			if json.Unmarshal([]byte(data), &ev) != nil {
				continue // [DONE] and the like
			}
			switch {
			case format == relay.FormatOps && ev.Type == "result":
				last = "result " + ev.Verdict
			case format != relay.FormatOps && ev.Type != "":
				last = ev.Type
			}
		}
		err = sc.Err()
		resp.Body.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err.Error()
		}
		if last == "result completed" || last == "RUN_FINISHED" || last == "finish" {
			return last
		}
	}
	return "no end after 20 connections: " + last
}
