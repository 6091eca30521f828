package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// Runs that outlive the browser: the AG-UI client's connection is cut
// (by nested.mjs's fetch, as a network error) inside the remote call, the
// remote agent goes on meanwhile, and the client reconnects with the
// cursor of the last event it got — cut again in the reconnect's prelude
// and after it. Every event of the run reaches it exactly once, @ag-ui/client's
// verifier accepts every connection, and its messages are those of a run
// that was never cut.

type cutsOut struct {
	Connections []struct {
		Raw []struct {
			ID   *string `json:"id"`
			Data string  `json:"data"`
		} `json:"raw"`
		Types []string `json:"types"`
		Error *string  `json:"error"`
		Cut   bool     `json:"cut"`
	} `json:"connections"`
	Messages []map[string]any `json:"messages"`
}

// canonical is the messages' JSON with every id replaced by its order of
// first appearance (two runs make different random ids), and text by want.
func canonical(t *testing.T, msgs []map[string]any, text, want string) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), text, want)
	ids := map[string]string{}
	re := regexp.MustCompile(`(msg-|call-|a2a-sub-|txt-|a2a-)[0-9a-f]{8,}`)
	return re.ReplaceAllStringFunc(s, func(id string) string {
		if ids[id] == "" {
			ids[id] = fmt.Sprint("id", len(ids))
		}
		return ids[id]
	})
}

// runLog is the whole log of an ended AG-UI run, as a reader without a
// cursor gets it.
func runLog(t *testing.T, url, thread, run string) []string {
	t.Helper()
	resp, err := http.Get(url + "/ag-ui/threads/" + thread + "/runs/" + run + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the run's log: status %d: %s", resp.StatusCode, body)
	}
	var data []string
	for _, block := range strings.Split(string(body), "\n\n") {
		for _, line := range strings.Split(block, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
	}
	return data
}

func TestAGUIReconnectAfterCuts(t *testing.T) {
	t.Parallel()
	steps := slices.Clone(agenttest.Realistic().Steps)
	steps[5].Gate = "cut" // the remote agent waits there until the browser was cut
	sc := agenttest.Realistic()
	sc.Name, sc.Steps = "slow order", steps
	f := start(t, sc)
	ref := runAGUI(t, f, "where is order 42?")

	var out cutsOut
	runNode(t, map[string]any{"mode": "agui-cuts", "url": f.url + "/ag-ui", "runUrl": f.url + "/ag-ui/threads/{thread}/runs/{run}",
		"id": "thread-cut", "text": "slow order", "cuts": []int{10, 5, 9}, "release": releaseURL(t, f.agent, "cut")}, &out)
	if len(out.Connections) != 4 {
		t.Fatalf("connections = %d, want 4 (three cuts)", len(out.Connections))
	}
	var got []string
	for i, c := range out.Connections {
		if c.Error != nil || c.Cut != (i < 3) {
			t.Errorf("connection %d: error %v, cut %v; want no error, cut %v", i, c.Error, c.Cut, i < 3)
		}
		prelude := i > 0
		for j, ev := range c.Raw {
			if ev.ID == nil {
				if !prelude {
					t.Errorf("connection %d: event %d without id after the prelude: %s", i, j, ev.Data)
				}
				continue
			}
			prelude = false
			got = append(got, ev.Data)
		}
	}
	want := runLog(t, f.url, "thread-cut", "run-1")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the events the client got across the cuts, preludes left out (-the run's log +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical(t, ref.Messages, "", ""), canonical(t, out.Messages, "slow order", "where is order 42?")); diff != "" {
		t.Errorf("the client's messages after the cuts (-a run never cut +after cuts):\n%s", diff)
	}
	if got := f.sent.cancelled(); len(got) > 0 {
		t.Errorf("the cuts cancelled the remote tasks %q: only an explicit abort may", got)
	}
}

// cancelled returns the tasks the orchestrator cancelled.
func (s *sentLog) cancelled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cancels)
}

// taskState is the agent's state of task id.
func taskState(t *testing.T, agentURL, id string) a2a.TaskState {
	t.Helper()
	c, err := client.New(context.Background(), agentURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	task, err := c.A2A().GetTask(context.Background(), &a2a.GetTaskRequest{ID: a2a.TaskID(id)})
	if err != nil {
		t.Fatal(err)
	}
	return task.Status.State
}

// The user's explicit abort (abortRun(), which DELETEs the run) cancels the
// remote task, and the run ends with outcome cancelled — where a cut
// connection (above) leaves the remote call running.
func TestAGUIAbortCancelsRemoteTask(t *testing.T) {
	t.Parallel()
	steps := slices.Clone(agenttest.Realistic().Steps)
	steps[5].Gate = "never" // the remote agent is still at work when the user aborts
	sc := agenttest.Realistic()
	sc.Name, sc.Steps = "slow order", steps
	f := start(t, sc)
	var out cutsOut
	runNode(t, map[string]any{"mode": "agui-cuts", "url": f.url + "/ag-ui", "runUrl": f.url + "/ag-ui/threads/{thread}/runs/{run}",
		"id": "thread-abort", "text": "slow order", "abortAfter": 12}, &out)
	log := runLog(t, f.url, "thread-abort", "run-1") // the run has ended
	cancels := f.sent.cancelled()
	if len(cancels) != 1 {
		t.Fatalf("tasks cancelled: %q, want the remote call's", cancels)
	}
	if st := taskState(t, f.agent.URL, cancels[0]); st != a2a.TaskStateCanceled {
		t.Errorf("the remote task is %s after the abort, want canceled", st)
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(log[len(log)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if outcome, _ := last["outcome"].(map[string]any); last["type"] != "RUN_FINISHED" || outcome["type"] != "cancelled" {
		t.Errorf("the run's last event: %v, want RUN_FINISHED outcome cancelled", last)
	}
}

// useChat's stop() only drops the connection (the turn goes on); the
// page's explicit stop, DELETE /api/chat/{id}/stream, cancels the remote
// task.
func TestChatAbortCancelsRemoteTask(t *testing.T) {
	t.Parallel()
	steps := slices.Clone(agenttest.Realistic().Steps)
	steps[5].Gate = "never"
	sc := agenttest.Realistic()
	sc.Name, sc.Steps = "slow order", steps
	f := start(t, sc)
	body := `{"id":"chat-abort","messages":[{"role":"user","parts":[{"type":"text","text":"slow order"}]}]}`
	resp, err := http.Post(f.url+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	// Read until the tool part shows the remote agent's work, then go
	// away: the turn must go on.
	buf := make([]byte, 64<<10)
	var seen strings.Builder
	for !strings.Contains(seen.String(), `"preliminary":true`) {
		n, err := resp.Body.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("the turn ended before the remote agent's first output: %v\n%s", err, seen.String())
		}
	}
	resp.Body.Close()
	if got := f.sent.cancelled(); len(got) != 0 {
		t.Fatalf("a dropped connection cancelled %q", got)
	}
	req, _ := http.NewRequest(http.MethodDelete, f.url+"/api/chat/chat-abort/stream", nil)
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d, want 204", del.StatusCode)
	}
	// The resume of the ended turn: the call failed, the turn finished.
	res, err := http.Get(f.url + "/api/chat/chat-abort/stream")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(all), `"type":"tool-output-error"`) || !strings.HasSuffix(strings.TrimSpace(string(all)), "data: [DONE]") {
		t.Errorf("the aborted turn's message: %s", all)
	}
	cancels := f.sent.cancelled()
	if len(cancels) != 1 {
		t.Fatalf("tasks cancelled: %q, want the remote call's", cancels)
	}
	if st := taskState(t, f.agent.URL, cancels[0]); st != a2a.TaskStateCanceled {
		t.Errorf("the remote task is %s after the abort, want canceled", st)
	}
}

// In front of the JS A2A peer too: an AG-UI run cut twice at the browser
// gets every event once and the messages of a run never cut; a useChat
// page back after the end gets the final message the watching page had.
func TestJSPeerReconnect(t *testing.T) {
	t.Parallel()
	agentURL := startJSAgent(t)
	url := serveFor(t, agentURL)
	for _, scenario := range []string{"inorder", "shuffled", "duplicated"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			var ref aguiOut
			runNode(t, map[string]any{"mode": "agui", "url": url + "/ag-ui", "id": "ref-" + scenario, "text": scenario}, &ref)
			if ref.Error != nil {
				t.Fatalf("the uncut run: %s", *ref.Error)
			}
			var out cutsOut
			thread := "cut-" + scenario
			runNode(t, map[string]any{"mode": "agui-cuts", "url": url + "/ag-ui", "runUrl": url + "/ag-ui/threads/{thread}/runs/{run}",
				"id": thread, "text": scenario, "cuts": []int{9, 6}}, &out)
			var got []string
			for i, c := range out.Connections {
				if c.Error != nil {
					t.Fatalf("connection %d: %s", i, *c.Error)
				}
				for _, ev := range c.Raw {
					if ev.ID != nil {
						got = append(got, ev.Data)
					}
				}
			}
			if len(out.Connections) != 3 {
				t.Errorf("connections = %d, want 3 (two cuts)", len(out.Connections))
			}
			if diff := cmp.Diff(runLog(t, url, thread, "run-1"), got); diff != "" {
				t.Errorf("the events across the cuts, preludes left out (-the run's log +got):\n%s", diff)
			}
			if diff := cmp.Diff(canonical(t, ref.Messages, "", ""), canonical(t, out.Messages, "", "")); diff != "" {
				t.Errorf("the messages after the cuts (-a run never cut +after cuts):\n%s", diff)
			}
			var chat struct {
				Errors   []string         `json:"errors"`
				First    []map[string]any `json:"first"`
				Messages []map[string]any `json:"messages"`
			}
			runNode(t, map[string]any{"mode": "after", "api": url + "/api/chat", "id": "chat-" + scenario, "text": scenario}, &chat)
			if len(chat.Errors) > 0 || len(chat.First) != 2 {
				t.Fatalf("chat errors %q, %d messages", chat.Errors, len(chat.First))
			}
			if diff := cmp.Diff(chat.First, chat.Messages); diff != "" {
				t.Errorf("the page back after the end (-the page that watched +back after the end):\n%s", diff)
			}
		})
	}
}

// The orchestrator starts before its agent (client.Lazy): a run while the
// agent is down says so in its call's result; once the agent is up, runs
// reach it.
func TestStartsBeforeItsAgent(t *testing.T) {
	t.Parallel()
	agent, err := agenttest.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	// The agent's address answers only once it is "up": before, its card
	// is 503.
	var up atomic.Bool
	target, _ := neturl.Parse(agent.URL)
	proxy := testdep.Proxy(httputil.NewSingleHostReverseProxy(target))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	ctx, cancel := context.WithCancel(context.Background())
	lz := client.NewLazy(ctx, front.URL, 50*time.Millisecond)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := newOrchestrator(ctx, lazyColleague{lz}, ln.Addr().String())
	srv := &http.Server{Handler: o}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
		o.wait()
		_ = lz.Close()
	})
	url := "http://" + ln.Addr().String()
	result := func(thread string) string {
		var out aguiOut
		runNode(t, map[string]any{"mode": "agui", "url": url + "/ag-ui", "id": thread, "text": "where is order 42?"}, &out)
		if out.Error != nil {
			t.Fatalf("the AG-UI client refused the run: %s", *out.Error)
		}
		for _, m := range out.Messages {
			if m["role"] == "tool" && m["subagentRunId"] == nil {
				return m["content"].(string)
			}
		}
		return ""
	}
	if got := result("thread-down"); !strings.HasPrefix(got, "the colleague could not be asked: ") || !strings.Contains(got, "not reachable yet") {
		t.Errorf("the call's result while the agent is down: %q", got)
	}
	up.Store(true)
	<-lz.Ready()
	_, reply := expected(agenttest.Realistic())
	if got := result("thread-up"); got != reply {
		t.Errorf("the call's result once the agent is up: %q, want %q", got, reply)
	}
}
