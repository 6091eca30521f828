package relay_test

import (
	"bufio"
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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/internal/flood"
	"github.com/tfrs/a2a-progress/merge"
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

// relayRSSFactor is the bound of the child's peak RSS over its idle
// baseline, in multiples of what one task may cost as counted: the task's
// budget (relay.DefaultMaxTaskBytes) and the Follower's turn budget
// (merge.DefaultMaxTurnBytes, client.WithTurnBudget's default). The Go
// heap grows to twice its live part before a collection (GOGC=100), and
// what is decoded or rendered for a moment (a peer's 1 MiB event, a
// front-end snapshot of a whole view) comes on top.
const relayRSSFactor = 3

// childReport is what the relay child writes when its stdin closes.
type childReport struct {
	HWMKiB int64
	Stats  relay.Stats
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
	c, err := client.New(ctx, peer, client.WithTransport(a2a.TransportProtocolJSONRPC))
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
	fmt.Printf("http://%s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	rep := childReport{Stats: h.Stats()}
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

func TestRelayFloodRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("a child process against a flooding peer")
	}
	if raceEnabled {
		t.Skip("a memory bound of hundreds of MiB: run without -race")
	}
	if os.Getenv(floodEnv) == "" {
		t.Skip("the peer sends 1.3 GiB: set " + floodEnv + "=1 (.ci/run does)")
	}
	peer := httptest.NewServer(flood.Handler(&flood.Peer{Events: flood.FillEveryCap}, "jsonrpc"))
	defer peer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()

	// The baseline: a relay child that follows nothing.
	idle := startRelayChild(ctx, t, peer.URL)
	baseline := float64(idle.report(t).HWMKiB) / 1024

	child := startRelayChild(ctx, t, peer.URL)
	base := child.url + "/tasks/t1/events"
	start := time.Now()
	// Six front-end readers: each would keep a merged view of the turn
	// (32 MiB) of its own; the task's budget holds them all.
	formats := []string{relay.FormatOps, relay.FormatOps, frontend.FormatAGUI, frontend.FormatAGUI, frontend.FormatAGUI,
		frontend.FormatAISDK, frontend.FormatAISDK, frontend.FormatAISDK}
	ends := make([]string, len(formats))
	var wg sync.WaitGroup
	for i, f := range formats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ends[i] = readToEnd(ctx, base+"?format="+f, f)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	rep := child.report(t)
	mib := float64(rep.HWMKiB) / 1024
	bound := baseline + relayRSSFactor*float64(relay.DefaultMaxTaskBytes+merge.DefaultMaxTurnBytes)/(1<<20)
	t.Logf("peak RSS %.0f MiB (baseline %.0f MiB, bound %.0f MiB), %v; stats %+v", mib, baseline, bound, took.Round(time.Millisecond), rep.Stats)

	want := []string{"result completed", "result completed", "RUN_FINISHED", "RUN_FINISHED", "RUN_FINISHED", "finish", "finish", "finish"}
	if d := cmp.Diff(want, ends); d != "" {
		t.Errorf("how each subscriber's stream ended (-want +got):\n%s", d)
	}
	if got := rep.Stats.Bytes + rep.Stats.ViewBytes; got > relay.DefaultMaxTaskBytes {
		t.Errorf("the task costs %d bytes as counted, over its budget of %d", got, relay.DefaultMaxTaskBytes)
	}
	if mib > bound {
		t.Errorf("peak RSS %.0f MiB, want at most %.0f MiB", mib, bound)
	}
}

// relayChild is a relay child process.
type relayChild struct {
	url   string
	stdin io.Closer
	lines *bufio.Scanner
}

// startRelayChild starts a relay child following the peer at peerURL; the
// test's cleanup kills it.
func startRelayChild(ctx context.Context, t *testing.T, peerURL string) *relayChild {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), relayChildEnv+"="+peerURL)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<20)
	if !lines.Scan() {
		t.Fatalf("the relay child printed no address: %v", lines.Err())
	}
	return &relayChild{url: lines.Text(), stdin: stdin, lines: lines}
}

// report closes the child's stdin and returns its report.
func (c *relayChild) report(t *testing.T) childReport {
	t.Helper()
	_ = c.stdin.Close()
	if !c.lines.Scan() {
		t.Fatalf("the relay child printed no report: %v", c.lines.Err())
	}
	var rep childReport
	if err := json.Unmarshal(c.lines.Bytes(), &rep); err != nil {
		t.Fatalf("the child's report %q: %v", c.lines.Text(), err)
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
