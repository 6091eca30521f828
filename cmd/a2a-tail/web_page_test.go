package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
)

// The page as people use it, in a real Chromium against a real agent
// (agenttest over HTTP) through the real web server. Each test waits on
// what the page shows (chromedp polls the DOM), never on time.
//
// With A2A_PROGRESS_SHOTS=<dir>, every state is also saved as a screenshot
// at 390 and 1280 px wide: <dir>/<state>-<width>.png.

// pageTest is the set-up of a page test, which runs in parallel with the
// others: a context that bounds it (a guard, not a synchronisation) and a
// tab of the shared Chromium.
func pageTest(t *testing.T) (ctx, tab context.Context) {
	t.Helper()
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute))
	t.Cleanup(cancel)
	return ctx, browser.Tab(t, ctx, "the web page's check in a real browser")
}

// servePage serves the web page over c with auth, wrapped by wrap (nil:
// none), on a loopback test server.
func servePage(t *testing.T, ctx context.Context, c *client.Client, auth relay.Authorizer, wrap func(http.Handler) http.Handler) *countingServer {
	t.Helper()
	return serveCounted(t, newWebServer(ctx, client.LazyOf(c), webPolicy{auth: auth}, relay.WithReconnectDelay(100*time.Millisecond)), wrap)
}

// pageAgent starts an agent with scripts and a client of it.
func pageAgent(t *testing.T, ctx context.Context, scripts ...agenttest.Script) (*agenttest.Agent, *client.Client) {
	t.Helper()
	agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)), agenttest.WithScripts(scripts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	c, err := client.New(ctx, agent.CardURL(agenttest.V1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return agent, c
}

// countingServer serves h (the web server, maybe wrapped) and counts the
// event-stream requests per task.
type countingServer struct {
	*httptest.Server
	mu     sync.Mutex
	events map[string]int
}

func serveCounted(t *testing.T, ws *webServer, wrap func(http.Handler) http.Handler) *countingServer {
	t.Helper()
	cs := &countingServer{events: map[string]int{}}
	var h http.Handler = ws
	if wrap != nil {
		h = wrap(ws)
	}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if task, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/tasks/"), "/events"); ok && r.Method == http.MethodGet {
			cs.mu.Lock()
			cs.events[task]++
			cs.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(cs.Close)
	t.Cleanup(func() { ws.Close() })
	return cs
}

func (cs *countingServer) eventRequests(task string) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.events[task]
}

// entryState is one turn of the conversation as the page shows it.
type entryState struct {
	Task    string   `json:"task"`
	Asked   string   `json:"asked"`
	Verdict string   `json:"verdict"`
	Blocks  []string `json:"blocks"`
}

// conversation is the page's state.
type conversation struct {
	Entries    []entryState `json:"entries"`
	FormShown  bool         `json:"formShown"`
	Button     string       `json:"button"`
	Problem    string       `json:"problem"`
	ProblemSet string       `json:"problemKind"`
	Search     string       `json:"search"`
	Conn       string       `json:"conn"`
}

const readConversation = `(() => {
	const shown = (e) => !!e && getComputedStyle(e).display !== "none" && !e.closest("[hidden]");
	const p = document.getElementById("problem");
	return {
		entries: [...document.querySelectorAll("#conversation > li")].map((li) => ({
			task: li.querySelector(".task-id").textContent,
			asked: li.querySelector(".asked") ? li.querySelector(".asked").textContent : "",
			verdict: li.querySelector(".verdict").hidden ? "" : li.querySelector(".verdict").textContent,
			blocks: [...li.querySelectorAll(".turn > li")].map((b) => b.textContent),
		})),
		formShown: shown(document.getElementById("send")),
		button: document.querySelector("#send button").textContent,
		problem: p.hidden ? "" : p.textContent,
		problemKind: p.hidden ? "" : p.dataset.kind,
		search: location.search,
		conn: document.getElementById("conn").dataset.state,
	};
})()`

func readPage(t *testing.T, tab context.Context) conversation {
	t.Helper()
	c, err := chromedp.Run(tab, chromedp.Evaluate[conversation](readConversation))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	return c
}

// do runs actions in tab; a wait that is not met within a minute fails the
// test with what the page shows (a guard, not a synchronisation).
func do(t *testing.T, tab context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	wctx, cancel := context.WithTimeout(tab, testdep.Budget(time.Minute))
	defer cancel()
	if err := chromedp.Do(wctx, actions...); err != nil {
		t.Fatalf("browser: %v; the page: %+v", err, readPage(t, tab))
	}
}

// shoot saves the page at 390 and 1280 px when A2A_PROGRESS_SHOTS names a
// directory (outside the repository): screenshots are for eyes, not asserts.
func shoot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	dir := os.Getenv("A2A_PROGRESS_SHOTS")
	if dir == "" {
		return
	}
	for _, w := range []int64{390, 1280} {
		do(t, tab, chromedp.EmulateViewport(w, 800))
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, w)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(t, tab, chromedp.EmulateViewport(1280, 800))
}

func textStep(seq int64, text string) agenttest.Step {
	return agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: seq, Status: envelope.StatusRunning,
		Payload: envelope.Text{Text: text}}}
}

// A watch page (?task=) of a task that cannot be answered has no form, and
// submitting the hidden form anyway neither sends nor navigates (style.css
// once showed it: form{display:grid} beat the hidden attribute, and Send
// went to /?text=…).
func TestWebPageWatchOnly(t *testing.T) {
	ctx, tab := pageTest(t)
	_, c := pageAgent(t, ctx, agenttest.Realistic())
	var posts atomic.Int32
	srv := servePage(t, ctx, c, relay.AllowLoopback, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				posts.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	id, err := c.Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(agenttest.RealisticName)))
	if err != nil {
		t.Fatal(err)
	}
	search := "?task=" + url.QueryEscape(string(id))
	do(t, tab,
		chromedp.Navigate(srv.URL+"/"+search),
		chromedp.WaitVisible(`#conn[data-state="ended"]`),
	)
	shoot(t, tab, "watch-completed")
	do(t, tab, chromedp.Evaluate[chromedp.Void](`(() => {
		document.getElementById("text").value = "sneaky";
		document.getElementById("send").requestSubmit();
	})()`))
	got := readPage(t, tab)
	if got.FormShown {
		t.Error("the send form is visible on a watch page of a completed task")
	}
	if diff := cmp.Diff(search, got.Search); diff != "" {
		t.Errorf("the page navigated (-want +got location.search):\n%s", diff)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("%d POSTs from a watch page, want none", n)
	}
	if len(got.Entries) != 1 || !strings.HasPrefix(got.Entries[0].Verdict, "Completed") {
		t.Errorf("entries %+v, want one completed turn", got.Entries)
	}
}

// Two sends in a row: the second closes the first's stream (no reconnect to
// the old task after it), and the second turn shows only its own blocks —
// although both tasks number their blocks alike.
func TestWebPageTwoSends(t *testing.T) {
	ctx, tab := pageTest(t)
	slow := agenttest.Script{Name: "first", Steps: []agenttest.Step{textStep(1, "first one"), textStep(2, "first two"),
		{Gate: "first-go", Envelope: textStep(3, "first three").Envelope}}, Final: a2a.TaskStateCompleted, FinalText: "first done"}
	fast := agenttest.Script{Name: "second", Steps: []agenttest.Step{textStep(1, "second one"), textStep(2, "second two")},
		Final: a2a.TaskStateCompleted, FinalText: "second done"}
	agent, c := pageAgent(t, ctx, slow, fast)
	srv := servePage(t, ctx, c, relay.AllowLoopback, nil)
	do(t, tab,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible("#text"),
		chromedp.SendKeys("#text", "first"),
		chromedp.Click("#send button"),
		chromedp.WaitVisible(`#conversation > li:nth-child(1) .turn > li:nth-child(2)`),
	)
	shoot(t, tab, "send-running")
	do(t, tab,
		chromedp.SendKeys("#text", "second"),
		chromedp.Click("#send button"),
		chromedp.WaitVisible(`#conversation > li:nth-child(2) .verdict[data-verdict="completed"]`),
		chromedp.WaitVisible(`#conn[data-state="ended"]`),
	)
	got := readPage(t, tab)
	shoot(t, tab, "two-sends")
	agent.Release("first-go") // the first task ends now; the page must not care
	if len(got.Entries) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(got.Entries), got.Entries)
	}
	first, second := got.Entries[0], got.Entries[1]
	if first.Task == second.Task {
		t.Fatalf("both entries show task %q", first.Task)
	}
	want := entryState{Task: second.Task, Asked: "second", Verdict: "Completedsecond done", Blocks: []string{"second one", "second two"}}
	if diff := cmp.Diff(want, second); diff != "" {
		t.Errorf("second turn (-want +got):\n%s", diff)
	}
	wantFirst := entryState{Task: first.Task, Asked: "first", Blocks: []string{"first one", "first two"},
		Verdict: "Not followed furtherA new message was sent; this task may still be running. Watch it"}
	if diff := cmp.Diff(wantFirst, first); diff != "" {
		t.Errorf("first turn (-want +got):\n%s", diff)
	}
	if !got.FormShown || got.Button != "Send" {
		t.Errorf("form shown %v with button %q, want the Send form for the next message", got.FormShown, got.Button)
	}
	if n := srv.eventRequests(first.Task); n != 1 {
		t.Errorf("%d event-stream requests for the first task, want 1: its EventSource must be closed by the second send", n)
	}
}

// An input-required turn is answered in place: the answer goes to the same
// task as its next turn, which is followed to its completed verdict.
func TestWebPageRespondInterrupt(t *testing.T) {
	ctx, tab := pageTest(t)
	ask := agenttest.Script{Name: "book a table", Steps: []agenttest.Step{textStep(1, "looking at tables")},
		Final: a2a.TaskStateInputRequired, FinalText: "Inside or on the terrace?"}
	answer := agenttest.Script{Name: "terrace", Steps: []agenttest.Step{textStep(1, "booking the terrace")},
		Final: a2a.TaskStateCompleted, FinalText: "Booked: terrace, 8 pm"}
	_, c := pageAgent(t, ctx, ask, answer)
	srv := servePage(t, ctx, c, relay.AllowLoopback, nil)
	do(t, tab,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible("#text"),
		chromedp.SendKeys("#text", "book a table"),
		chromedp.Click("#send button"),
		chromedp.WaitVisible(`#conversation > li:nth-child(1) .verdict[data-verdict="input-required"]`),
		chromedp.WaitVisible(`#send[data-answer] button`),
	)
	asked := readPage(t, tab)
	shoot(t, tab, "input-required")
	if asked.Button != "Answer" || !asked.FormShown {
		t.Fatalf("form shown %v with button %q, want the Answer form", asked.FormShown, asked.Button)
	}
	do(t, tab,
		chromedp.SendKeys("#text", "terrace"),
		chromedp.Click("#send button"),
		chromedp.WaitVisible(`#conversation > li:nth-child(2) .verdict[data-verdict="completed"]`),
	)
	got := readPage(t, tab)
	shoot(t, tab, "answered")
	task := asked.Entries[0].Task
	want := []entryState{
		{Task: task, Asked: "book a table", Verdict: "Input requiredInside or on the terrace?", Blocks: []string{"looking at tables"}},
		{Task: task, Asked: "terrace", Verdict: "CompletedBooked: terrace, 8 pm", Blocks: []string{"booking the terrace"}},
	}
	if diff := cmp.Diff(want, got.Entries); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if strings.Contains(got.Search, "text=") {
		t.Errorf("the answer landed in the URL: %q", got.Search)
	}

	// The task's own page (a reload) shows both turns, in order, from the
	// relay's snapshot; the user's messages are not in the ops.
	do(t, tab,
		chromedp.Navigate(srv.URL+"/?task="+url.QueryEscape(task)),
		chromedp.WaitVisible(`#conn[data-state="ended"]`),
	)
	reloaded := readPage(t, tab)
	shoot(t, tab, "answered-reloaded")
	for i := range want {
		want[i].Asked = ""
	}
	if diff := cmp.Diff(want, reloaded.Entries); diff != "" {
		t.Errorf("the task's page (-want +got):\n%s", diff)
	}
	if reloaded.FormShown {
		t.Error("a form on the page of a completed task")
	}
}

// A task the agent does not know: the page says so and offers a new
// conversation, and does not retry.
func TestWebPageUnknownTask(t *testing.T) {
	ctx, tab := pageTest(t)
	_, c := pageAgent(t, ctx)
	srv := servePage(t, ctx, c, relay.AllowLoopback, nil)
	do(t, tab,
		chromedp.Navigate(srv.URL+"/?task=no-such-task"),
		chromedp.WaitVisible(`#problem[data-kind="unknown-task"]`),
	)
	got := readPage(t, tab)
	shoot(t, tab, "unknown-task")
	want := "Unknown task: the agent does not know task no-such-task (a wrong id, or a task it has dropped)." +
		"Start a new conversation" + "Details" + "relay: task not found"
	if diff := cmp.Diff(want, got.Problem); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
	if len(got.Entries) != 0 {
		t.Errorf("entries %+v, want none for an unknown task", got.Entries)
	}
	if got.FormShown {
		t.Error("a form on the page of an unknown task")
	}
}

// A relay that answers 503 (busy) with Retry-After: the page counts down,
// retries, and the turn completes once the relay takes it.
func TestWebPageRelayBusy(t *testing.T) {
	ctx, tab := pageTest(t)
	_, c := pageAgent(t, ctx, agenttest.Realistic())
	var busy atomic.Bool
	busy.Store(true)
	srv := servePage(t, ctx, c, relay.AllowLoopback, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if busy.Load() && strings.HasSuffix(r.URL.Path, "/events") {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintln(w, `{"error":"relay: too many subscribers"}`)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	do(t, tab,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible("#text"),
		chromedp.SendKeys("#text", agenttest.RealisticName),
		chromedp.Click("#send button"),
		chromedp.WaitVisible(`#problem[data-kind="busy"]`),
	)
	got := readPage(t, tab)
	shoot(t, tab, "relay-busy")
	if want := "The relay is busy (it holds as much as it may). Retrying in 1 s.Retry nowDetailsrelay: too many subscribers"; got.Problem != want {
		t.Errorf("problem %q, want %q: the busy notice with its countdown", got.Problem, want)
	}
	busy.Store(false)
	do(t, tab,
		chromedp.WaitVisible(`#conversation > li:last-child .verdict[data-verdict="completed"]`),
		chromedp.WaitNotVisible(`#problem`),
	)
	got = readPage(t, tab)
	if n := len(got.Entries); n != 1 || !strings.HasPrefix(got.Entries[0].Verdict, "Completed"+agenttest.RealisticReply) {
		t.Errorf("after the relay recovered: %+v", got.Entries)
	}
}

// flakyAgent is a loopback proxy to the agent that can go down (its port
// refuses connections, as a stopped agent's does) and come back up on the
// same address.
type flakyAgent struct {
	addr  string
	proxy http.Handler
	mu    sync.Mutex
	srv   *http.Server
	done  chan struct{}
}

func newFlakyAgent(t *testing.T, target string) *flakyAgent {
	t.Helper()
	reusesPort(t) // up binds the address again
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	f := &flakyAgent{proxy: testdep.Proxy(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host}))}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	f.serve(ln)
	t.Cleanup(f.down)
	return f
}

func (f *flakyAgent) serve(ln net.Listener) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.srv = &http.Server{Handler: f.proxy}
	f.done = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) {
		defer close(done)
		_ = srv.Serve(ln)
	}(f.srv, f.done)
}

func (f *flakyAgent) down() {
	f.mu.Lock()
	srv, done := f.srv, f.done
	f.srv = nil
	f.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
		<-done
	}
}

func (f *flakyAgent) up(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		t.Fatalf("agent up again on %s: %v", f.addr, err)
	}
	f.serve(ln)
}

// The agent goes away while a page watches its task: the page says the
// agent cannot be reached and retries; when the agent is back, the turn is
// followed to its verdict.
func TestWebPageAgentDownThenUp(t *testing.T) {
	ctx, tab := pageTest(t)
	script := agenttest.Script{Name: "deploy", Steps: []agenttest.Step{textStep(1, "building"),
		{Gate: "deploy-go", Envelope: textStep(2, "shipping").Envelope}}, Final: a2a.TaskStateCompleted, FinalText: "deployed"}
	agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)), agenttest.WithScripts(script))
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	endpoint := agent.Endpoint(a2a.TransportProtocolJSONRPC, agenttest.V1).URL
	flaky := newFlakyAgent(t, endpoint)
	eu, _ := url.Parse(endpoint)
	eu.Host = flaky.addr
	c, err := client.New(ctx, eu.String(), client.WithTransport(a2a.TransportProtocolJSONRPC),
		client.WithRetry(1, 10*time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("deploy")))
	if err != nil {
		t.Fatal(err)
	}
	srv := servePage(t, ctx, c, relay.AllowLoopback, nil)
	flaky.down()
	do(t, tab,
		chromedp.Navigate(srv.URL+"/?task="+url.QueryEscape(string(id))),
		chromedp.WaitVisible(`#problem[data-kind="agent"]`),
	)
	got := readPage(t, tab)
	shoot(t, tab, "agent-down")
	if !strings.HasPrefix(got.Problem, "The agent does not answer right now; the task goes on there, and the page follows it again when the agent answers. Retrying in ") ||
		!strings.Contains(got.Problem, "Retry nowDetailsrelay: agent: ") || !strings.Contains(got.Problem, "connection refused") {
		t.Errorf("problem %q, want the agent-down notice with its countdown", got.Problem)
	}
	flaky.up(t)
	agent.Release("deploy-go")
	// "Retry now" skips the countdown (the page may already be retrying).
	do(t, tab,
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#problem .retry-now")?.click()`),
		chromedp.WaitVisible(`#conversation > li:last-child .verdict[data-verdict="completed"]`),
	)
	got = readPage(t, tab)
	shoot(t, tab, "agent-back")
	want := []entryState{{Task: string(id), Verdict: "Completeddeployed", Blocks: []string{"building", "shipping"}}}
	if diff := cmp.Diff(want, got.Entries); diff != "" {
		t.Errorf("after the agent came back (-want +got):\n%s", diff)
	}
	if got.Problem != "" {
		t.Errorf("problem still shown: %q", got.Problem)
	}
}

// A server that refuses the page (its access check): sending says so in
// the form, watching says so above the conversation, with no retry.
func TestWebPageAccessRefused(t *testing.T) {
	ctx, tab := pageTest(t)
	_, c := pageAgent(t, ctx)
	refuse := func(*http.Request, string) error { return errors.New("not from this machine") }
	srv := servePage(t, ctx, c, refuse, nil)
	do(t, tab,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible("#text"),
		chromedp.SendKeys("#text", "hello"),
		chromedp.Click("#send button"),
		chromedp.WaitVisible("#send-error"),
	)
	sendErr, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("send-error").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	shoot(t, tab, "send-refused")
	if want := "Not sent: access refused. Open the page from the address a2a-tail printed, on the same machine.Detailsnot from this machine"; sendErr != want {
		t.Errorf("send error %q, want %q", sendErr, want)
	}
	do(t, tab,
		chromedp.Navigate(srv.URL+"/?task=some-task"),
		chromedp.WaitVisible(`#problem[data-kind="access"]`),
	)
	got := readPage(t, tab)
	shoot(t, tab, "watch-refused")
	if want := "Access refused (403). Open the page from the address a2a-tail printed, on the same machine.Detailsnot from this machine"; got.Problem != want {
		t.Errorf("problem %q, want %q", got.Problem, want)
	}
	// The EventSource's request, and the one that asks why it failed.
	if n := srv.eventRequests("some-task"); n != 2 {
		t.Errorf("%d event-stream requests, want 2", n)
	}
}

// The page's states in words a person can act on, in one Chromium: an agent
// that is down when the server starts (said before any send, counted down
// to the server's next attempt; a message sent meanwhile goes once the
// agent is up), a malformed task id (said, not retried) and a task with as
// many readers as the relay allows (the relay's 503 through the server's
// real connection cap, counted down). The Redis outage has its own test
// (TestWebPageRedisDownThenUp).
func TestWebPageStatesInBrowser(t *testing.T) {
	ctx, tab := pageTest(t)

	t.Run("agent down then up", func(t *testing.T) {
		agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		defer agent.Close()
		card, _ := url.Parse(agent.CardURL(agenttest.V1))
		// The agent's address: nothing listens there until flaky.up.
		flaky := newFlakyAgent(t, card.Scheme+"://"+card.Host)
		flaky.down()
		agentURL := "http://" + flaky.addr + card.Path
		la := client.NewLazy(ctx, agentURL, time.Second)
		defer la.Close()
		srv := serveCounted(t, newWebServer(ctx, la, webPolicy{auth: relay.AllowLoopback, tasks: relay.NewTaskSet(0)}), nil)
		do(t, tab,
			chromedp.Navigate(srv.URL+"/"),
			chromedp.WaitVisible(`#problem[data-kind="agent-down"]`),
			chromedp.WaitVisible(`#problem .problem-detail`),
		)
		got := readPage(t, tab)
		shoot(t, tab, "state-agent-down")
		want := regexp.MustCompile(`^The agent at ` + regexp.QuoteMeta(agentURL) +
			` is not reachable: nothing listens there \(connection refused\)\. Retrying in \d s\.Details.*connection refused$`)
		if !want.MatchString(got.Problem) {
			t.Errorf("problem %q, want it to match %s", got.Problem, want)
		}
		do(t, tab,
			chromedp.SendKeys("#text", agenttest.RealisticName),
			chromedp.Click("#send button"),
			chromedp.WaitVisible("#send-error"),
		)
		sendErr, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector("#send-error > span").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		shoot(t, tab, "state-agent-down-sent")
		if want := "Not sent yet: the agent is not reachable. The page sends it as soon as the agent is up."; sendErr != want {
			t.Errorf("send error %q, want %q", sendErr, want)
		}
		flaky.up(t)
		// No click: the page notices the agent and sends the message.
		do(t, tab,
			chromedp.WaitVisible(`#conversation > li:last-child .verdict[data-verdict="completed"]`),
			chromedp.WaitNotVisible(`#problem`),
			chromedp.WaitNotVisible(`#send-error`),
		)
		shoot(t, tab, "state-agent-up")
		got = readPage(t, tab)
		if len(got.Entries) != 1 || got.Entries[0].Asked != agenttest.RealisticName {
			t.Errorf("entries %+v, want the one message sent once the agent was up", got.Entries)
		}
	})

	t.Run("malformed id", func(t *testing.T) {
		_, c := pageAgent(t, ctx)
		srv := servePage(t, ctx, c, relay.AllowLoopback, nil)
		do(t, tab,
			chromedp.Navigate(srv.URL+"/?task=bad%20id%2F%3F"),
			chromedp.WaitVisible(`#problem[data-kind="bad-id"]`),
		)
		got := readPage(t, tab)
		shoot(t, tab, "state-bad-id")
		want := "This address does not name a valid task: “bad id/?” is not a task id. Check the link, or start a new conversation." +
			"Start a new conversation" + "Details" + "relay: task id has a byte 0x20 at 3 that is not allowed"
		if d := cmp.Diff(want, got.Problem); d != "" {
			t.Errorf("problem (-want +got):\n%s", d)
		}
		if got.Conn != "closed" || len(got.Entries) != 0 {
			t.Errorf("connection %q, entries %+v: want closed, none", got.Conn, got.Entries)
		}
		// The EventSource's request and the one that asked why: no retry.
		if n := srv.eventRequests("bad id/?"); n != 2 {
			t.Errorf("%d event-stream requests, want 2", n)
		}
	})

	t.Run("busy task", func(t *testing.T) {
		held := agenttest.Script{Name: "held", Steps: []agenttest.Step{textStep(1, "working"),
			{Gate: "held-go", Envelope: textStep(2, "done").Envelope}}, Final: a2a.TaskStateCompleted, FinalText: "ok"}
		agent, c := pageAgent(t, ctx, held)
		defer agent.Release("held-go")
		id, err := c.Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("held")))
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p, err := newWebPolicy(webFlags{listen: "127.0.0.1:0", anyTask: true}, ln.Addr().String(), true)
		if err != nil {
			t.Fatal(err)
		}
		ws := newWebServer(ctx, client.LazyOf(c), p)
		hs := newWebHTTPServer(ws, newConnCap(webMaxConns))
		go func() { _ = hs.Serve(ln) }()
		defer hs.Close()
		defer ws.Close()
		holdConns(t, ln.Addr().String(), 1024, "/tasks/"+string(id)+"/events", ln.Addr().String())
		do(t, tab,
			chromedp.Navigate("http://"+ln.Addr().String()+"/?task="+url.QueryEscape(string(id))),
			chromedp.WaitVisible(`#problem[data-kind="busy"]`),
		)
		got := readPage(t, tab)
		shoot(t, tab, "state-busy")
		want := regexp.MustCompile(`^The relay is busy: this task has as many readers as it allows\. Retrying in [12] s\.Retry now` +
			`Detailsrelay: too many subscribers for this task$`)
		if !want.MatchString(got.Problem) {
			t.Errorf("problem %q, want it to match %s", got.Problem, want)
		}
		// Navigate away: the page's countdown must not outlive the case.
		do(t, tab, chromedp.Navigate("about:blank"))
	})
}
