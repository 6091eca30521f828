package react_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/chaintest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/internal/testdep/chromium"
	"github.com/tfrs/a2a-progress/relay"
	web "github.com/tfrs/a2a-progress/relay/web"
)

// The useChat page of these tests (test/page.jsx) shows the ask_colleague
// tool parts of examples/orchestrator — built and run as its own process —
// with NestedCallPart, in a headless Chromium. The agents behind it are
// independent A2A servers: client/agenttest's reference agent, the A2A JS
// SDK peer of client/internal/interop/jsagent, and client/chaintest's chain.

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(testdep.Then(testdep.Reporting(chrome.Closing(m)), removeBuild))
}

// chrome is the Chromium the page tests share, each in a browser context
// of its own.
var chrome chromium.Shared

// removeBuild removes the orchestrator binary the tests built.
func removeBuild() {
	if orchestratorBin.dir != "" {
		_ = os.RemoveAll(orchestratorBin.dir)
	}
}

const (
	testDir    = "test"
	jsAgentDir = "../../../client/internal/interop/jsagent"
	what       = "the useChat page of relay/web/react"
)

//go:embed test/describe.js
var describeJS string

// hostile is peer text that would run script if a page put it in as
// markup: every test checks that window.__pwned stays unset.
const (
	hostileText  = `<img src=x onerror="window.__pwned=1"> <b>bold?</b>`
	hostileChunk = "<script>window.__pwned=2</script>\n"
)

// slowScript is the reference agent's realistic turn with two pieces of
// hostile text, held at the gate "go" while search_orders runs with
// output, so that the page can be looked at (and reloaded) mid-call.
func slowScript() agenttest.Script {
	r := agenttest.Realistic()
	env := func(kind envelope.Kind, key string, seq int64, p envelope.Payload) agenttest.Step {
		return agenttest.Step{Envelope: &envelope.Envelope{V: envelope.Version, Kind: kind, StreamKey: key, Seq: seq,
			Status: envelope.StatusRunning, Payload: p}}
	}
	steps := append([]agenttest.Step(nil), r.Steps[:4]...) // thinking, search_orders with two lines (seqs 100–103)
	steps = append(steps,
		env(envelope.KindToolOutputAppend, "call-1", 104, envelope.ToolOutputAppend{Tool: "search_orders", ToolCallID: "call-1", Chunk: hostileChunk}),
		env(envelope.KindText, "", 105, envelope.Text{Text: hostileText}),
		agenttest.Step{Gate: "go"})
	for _, st := range r.Steps[4:] { // the rest, after them
		e := *st.Envelope
		e.Seq += 2
		st.Envelope = &e
		steps = append(steps, st)
	}
	r.Name, r.Steps = "slow", steps
	return r
}

// longScript sends more text than a view holds (64 KiB): the oldest items
// give way, and the view counts them in omitted.
func longScript() agenttest.Script {
	sc := agenttest.Script{Name: "long", Final: a2a.TaskStateCompleted, FinalText: "done"}
	for i := range 100 {
		sc.Steps = append(sc.Steps, agenttest.Step{Envelope: &envelope.Envelope{V: envelope.Version, Kind: envelope.KindText,
			Seq: int64(i + 1), Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: fmt.Sprintf("line %d ", i+1) + strings.Repeat("x", 1000)}}})
	}
	return sc
}

// story is a question and, for the answer "yes, ship it", the reply.
func story() (ask, reply agenttest.Script) {
	ask = agenttest.Script{Name: "ship it?", Steps: agenttest.Realistic().Steps[:3],
		Final: a2a.TaskStateInputRequired, FinalText: "Ship the partial order?"}
	reply = agenttest.Realistic()
	reply.Name, reply.FinalText = "yes, ship it", "Shipped: 3 of 4 items."
	return ask, reply
}

// bundle builds the page with esbuild (test/build.mjs) into a new
// directory and returns it.
func bundle(t *testing.T) string {
	t.Helper()
	node := testdep.NPM(t, testDir, what)
	out := t.TempDir()
	cmd := exec.Command(node, "build.mjs", out)
	cmd.Dir = testDir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, b)
	}
	return out
}

// orchestratorBin builds examples/orchestrator once per test binary.
var orchestratorBin = struct {
	once sync.Once
	path string
	err  error
	dir  string
}{}

func buildOrchestrator(t *testing.T) string {
	t.Helper()
	o := &orchestratorBin
	o.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			o.err = err
			return
		}
		o.dir, o.err = os.MkdirTemp("", "orchestrator-")
		if o.err != nil {
			return
		}
		o.path = filepath.Join(o.dir, "orchestrator")
		args := []string{"build", "-o", o.path}
		if testdep.Race {
			args = append(args, "-race") // see testdep.Race
		}
		b, err := exec.Command(goBin, append(args, "github.com/tfrs/a2a-progress/examples/orchestrator")...).CombinedOutput()
		if err != nil {
			o.err = fmt.Errorf("go build examples/orchestrator: %v\n%s", err, b)
		}
	})
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.path
}

// startOrchestrator runs examples/orchestrator in front of agentURL and
// returns its URL; it is interrupted (and waited for) when the test ends,
// and its log shown if the test failed.
func startOrchestrator(t *testing.T, agentURL string) string {
	t.Helper()
	cmd := exec.Command(buildOrchestrator(t), "--listen", "127.0.0.1:0", agentURL)
	return testdep.Start(t, "the orchestrator", cmd, testdep.Stderr).Until(serving.FindStringSubmatch)[1]
}

var serving = regexp.MustCompile(`orchestrator: serving (http://127\.0\.0\.1:\d+) `)

// startJSAgent starts the A2A JS SDK peer and returns its URL; it stops
// when the test ends (its stdin closes).
func startJSAgent(t *testing.T) string {
	t.Helper()
	return testdep.JSAgent(t, jsAgentDir, "the JS A2A peer behind the orchestrator")
}

// site is what the browser loads, from one origin: the page (/), the
// orchestrators' chat endpoints under /o<n>/, and the project's own page
// over a relay of each agent under /web<n>/.
type site struct {
	t    *testing.T
	mux  *http.ServeMux
	srv  *httptest.Server
	n    int
	ctx  context.Context
	stop context.CancelFunc
}

func newSite(t *testing.T) *site {
	t.Helper()
	dir := bundle(t)
	s := &site{t: t, mux: http.NewServeMux()}
	s.ctx, s.stop = context.WithCancel(context.Background())
	file := func(path, name, ctype string) {
		s.mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			b, err := os.ReadFile(name)
			if err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", ctype)
			w.Write(b)
		})
	}
	file("/{$}", filepath.Join(testDir, "page.html"), "text/html; charset=utf-8")
	file("/page.js", filepath.Join(dir, "page.js"), "text/javascript; charset=utf-8")
	file("/styles.css", "styles.css", "text/css; charset=utf-8")
	s.srv = httptest.NewServer(s.mux)
	t.Cleanup(func() {
		s.stop()
		s.srv.Close()
	})
	return s
}

// agent puts an orchestrator in front of agentURL at /o<n>/ and the
// project's page, over a relay of the same agent, at /web<n>/; it returns
// n.
func (s *site) agent(agentURL string) int {
	t := s.t
	t.Helper()
	s.n++
	orch, err := url.Parse(startOrchestrator(t, agentURL))
	if err != nil {
		t.Fatal(err)
	}
	// The orchestrator serves loopback names only: the proxy names it by
	// its own address (SetURL sets the Host).
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(orch) }}
	prefix := fmt.Sprintf("/o%d", s.n)
	s.mux.Handle(prefix+"/", http.StripPrefix(prefix, testdep.Proxy(proxy)))

	c, err := client.New(s.ctx, agentURL)
	if err != nil {
		t.Fatal(err)
	}
	rl := relay.New(s.ctx, c, relay.WithAuthorizer(relay.AllowAll))
	t.Cleanup(func() {
		_ = rl.Close()
		_ = c.Close()
	})
	wp := fmt.Sprintf("/web%d", s.n)
	s.mux.HandleFunc("GET "+wp+"/tasks/{taskId}/events", func(w http.ResponseWriter, r *http.Request) {
		rl.ServeEvents(w, r, r.PathValue("taskId"))
	})
	s.mux.Handle(wp+"/", http.StripPrefix(wp, http.FileServerFS(web.FS)))
	return s.n
}

// chatURL is the useChat page on orchestrator n with chat id chat.
func (s *site) chatURL(n int, chat string) string {
	return fmt.Sprintf("%s/?api=/o%d/api/chat&chat=%s", s.srv.URL, n, url.QueryEscape(chat))
}

// browser is a test's tab of the shared Chromium, in a browser context of
// its own.
type browser struct {
	t   *testing.T
	ctx context.Context
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	return &browser{t: t, ctx: chrome.Tab(t, context.Background(), what)}
}

func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, testdep.Budget(60*time.Second))
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("chromium: %v", err)
	}
}

// open loads u.
func (b *browser) open(u string) {
	b.t.Helper()
	b.run(chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS("body")))
}

// until waits for the JS expression cond to be truthy.
func (b *browser) until(cond string) {
	b.t.Helper()
	budget := testdep.Budget(60 * time.Second) // a guard against a hang, not a synchronisation
	ctx, cancel := context.WithTimeout(b.ctx, budget)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(budget))); err != nil {
		dump, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText + "\n" + JSON.stringify(window.__chat && {status: window.__chat.status, error: window.__chat.error})`))
		b.t.Fatalf("waiting for %s: %v\nthe page shows:\n%s", cond, err, dump)
	}
}

// eval evaluates the JS expression expr in b's page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, testdep.Budget(60*time.Second))
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluating %.80q: %v", expr, err)
	}
	return v
}

// send types text into the chat's box and sends it, as a user does.
func (b *browser) send(text string) {
	b.t.Helper()
	b.run(chromedp.WaitEnabled(chromedp.CSS(`form.send button`)), chromedp.SendKeys(chromedp.CSS(`#msg`), text),
		chromedp.Click(chromedp.CSS(`form.send button`)))
}

// describeCall is what the React component shows for the nested call
// matched by sel (describe.js).
func (b *browser) describeCall(sel string) shown {
	b.t.Helper()
	return eval[shown](b, describeJS+`; window.__describeReact(document.querySelector(`+jsString(sel)+`))`)
}

// pwned reports what hostile peer text managed to run (0: nothing).
func (b *browser) pwned() int {
	b.t.Helper()
	return eval[int](b, `window.__pwned || 0`)
}

// screenshot saves the whole page at each width (px) as
// <name>-<width>.png in the test's artifact directory (go test -artifacts).
func (b *browser) screenshot(name string, widths ...int64) {
	b.t.Helper()
	for _, w := range widths {
		var opts []chromedp.EmulateViewportOption
		if w < 600 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		b.run(chromedp.EmulateViewport(w, 800, opts...))
		ctx, cancel := context.WithTimeout(b.ctx, testdep.Budget(60*time.Second))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			b.t.Fatalf("screenshot: %v", err)
		}
		p := filepath.Join(b.t.ArtifactDir(), fmt.Sprintf("%s-%d.png", name, w))
		if err := os.WriteFile(p, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.run(chromedp.ResetViewport())
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shown is a nested call as a page shows it (describe.js).
type shown struct {
	Items   []shownItem `json:"items"`
	Verdict *struct {
		Label    string `json:"label"`
		Reply    string `json:"reply"`
		Reason   string `json:"reason"`
		Question string `json:"question"`
	} `json:"verdict"`
	Gaps string `json:"gaps"`
}

type shownItem struct {
	Kind     string      `json:"kind"`
	Name     string      `json:"name,omitempty"`
	Status   string      `json:"status,omitempty"`
	Text     string      `json:"text,omitempty"`
	Tail     string      `json:"tail,omitempty"`
	Children []shownItem `json:"children,omitempty"`
}

// toolParts returns the nested call tool parts useChat holds, per
// assistant message: toolCallId, state and the view's task.
type toolPart struct {
	Message    int    `json:"message"`
	ToolCallID string `json:"toolCallId"`
	State      string `json:"state"`
	Task       string `json:"task"`
}

func (b *browser) toolParts() []toolPart {
	b.t.Helper()
	return eval[[]toolPart](b, `(() => {
		const out = [];
		(window.__chat ? window.__chat.messages : []).forEach((m, i) => {
			if (m.role !== "assistant") return;
			for (const p of m.parts) {
				if (p.type !== "tool-ask_colleague") continue;
				const v = p.output || (p.toolMetadata && p.toolMetadata.a2a) || {};
				out.push({message: i, toolCallId: p.toolCallId, state: p.state, task: v.task || ""});
			}
		});
		return out;
	})()`)
}

// projectView opens the project's own page (/web<n>/?task=task) on the
// same tab, waits for its verdict and returns what it shows for the task's
// latest turn.
func (b *browser) projectView(s *site, n int, task string) shown {
	b.t.Helper()
	b.open(fmt.Sprintf("%s/web%d/?task=%s", s.srv.URL, n, url.QueryEscape(task)))
	b.until(`(() => { const v = document.querySelector("li.entry:last-child .verdict"); return !!v && !v.hidden && v.dataset.verdict !== "sealed"; })()`)
	return eval[shown](b, describeJS+`; window.__describePage(document.querySelector("li.entry:last-child"))`)
}

// TestUseChatNestedCall: a nested call renders while it runs (tool status
// and live output tail), a reload in the middle restores it once, it
// renders again after it completes, hostile peer text stays text, and the
// project's own page shows the same turn the same way.
func TestUseChatNestedCall(t *testing.T) {
	t.Parallel()
	agent, err := agenttest.New(agenttest.WithScripts(slowScript(), longScript()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	s := newSite(t)
	n := s.agent(agent.URL)
	b := newBrowser(t)

	b.open(s.chatURL(n, "chat-run"))
	b.send("slow")
	running := `.msg.assistant .a2a-call[data-phase="running"]`
	b.until(`!!document.querySelector('` + running + ` .a2a-text') && document.querySelector('` + running + ` .a2a-tail').textContent.includes("<script>")`)
	got := b.describeCall(running)
	wantRunning := []shownItem{
		{Kind: "thinking", Text: "The user asks about order 42: look it up, then check stock."},
		{Kind: "tool", Name: "search_orders", Status: "running", Tail: "order 42: 3 items\nstatus: shipped 2026-11-28\n" + hostileChunk},
		{Kind: "text", Text: hostileText},
	}
	if d := cmp.Diff(wantRunning, got.Items, cmpopts.EquateEmpty()); d != "" || got.Verdict != nil {
		t.Errorf("while running, verdict %+v; items (-want +got):\n%s", got.Verdict, d)
	}
	busy := eval[string](b, `document.querySelector('`+running+`').getAttribute("aria-busy")`)
	if busy != "true" {
		t.Errorf("a running call is aria-busy=%q, want true", busy)
	}
	b.screenshot("running", 390, 1280)

	// A reload in the middle: useChat resumes the chat's turn, and the
	// call is on the page once, with what it had.
	b.run(chromedp.Reload())
	b.until(`!!document.querySelector('` + running + ` .a2a-text')`)
	calls := eval[int](b, `document.querySelectorAll(".a2a-call").length`)
	if calls != 1 {
		t.Errorf("after a reload, %d nested calls on the page, want 1", calls)
	}
	if d := cmp.Diff(wantRunning, b.describeCall(running).Items, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("after a reload, items (-want +got):\n%s", d)
	}

	agent.Release("go")
	done := `.msg.assistant .a2a-call[data-phase="ended"]`
	b.until(`!!document.querySelector('` + done + `') && document.querySelectorAll(".msg.assistant .msg-text").length === 2`)
	got = b.describeCall(done)
	calls = eval[int](b, `document.querySelectorAll(".a2a-call").length`)
	parts := b.toolParts()
	if calls != 1 || len(parts) != 1 || parts[0].State != "output-available" {
		t.Fatalf("after the turn: %d nested calls on the page, tool parts %+v; want one, output-available", calls, parts)
	}
	if got.Verdict == nil || got.Verdict.Label != "Completed" || got.Verdict.Reply != agenttest.RealisticReply {
		t.Errorf("verdict %+v, want Completed with the reply", got.Verdict)
	}
	var tools []string
	for _, it := range got.Items {
		if it.Kind == "tool" {
			tools = append(tools, it.Name+" "+it.Status)
		}
	}
	if d := cmp.Diff([]string{"search_orders done", "check_stock done"}, tools); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	// search_orders was seen running (since the reload): it has an elapsed
	// time. check_stock may have run between two outputs: seen only done,
	// its time is unknown, and then not shown as a made-up one.
	elapsed := eval[string](b, `(document.querySelector('`+done+` .a2a-tool .a2a-elapsed') || {}).textContent || ""`)
	if !strings.HasPrefix(elapsed, " · ") || !strings.HasSuffix(elapsed, "s") {
		t.Errorf("search_orders shows elapsed %q, want a time", elapsed)
	}
	b.screenshot("completed", 390, 1280)
	if p := b.pwned(); p != 0 {
		t.Errorf("peer text ran as markup (window.__pwned = %d)", p)
	}

	// The project's own page, over a relay of the same agent, for the same
	// turn (the task in the view): the same items, verdict and reply.
	page := b.projectView(s, n, parts[0].Task)
	if d := cmp.Diff(page, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the useChat page and the project's page differ for task %s (-page +useChat):\n%s", parts[0].Task, d)
	}
	if p := b.pwned(); p != 0 {
		t.Errorf("peer text ran as markup on the project's page (window.__pwned = %d)", p)
	}

	// A turn longer than a view holds: the items that gave way are said.
	b.open(s.chatURL(n, "chat-long"))
	b.send("long")
	long := `.a2a-call[data-verdict="completed"]`
	b.until(`!!document.querySelector('` + long + `')`)
	omitted := eval[string](b, `(document.querySelector('`+long+` .a2a-omitted') || {}).textContent || ""`)
	first := eval[string](b, `document.querySelector('`+long+` .a2a-text').textContent.split(" ")[1]`)
	if want := fmt.Sprintf("%s earlier items not shown (the view keeps the latest)", prevOf(first)); omitted != want {
		t.Errorf("a long turn says %q, want %q", omitted, want)
	}
}

// prevOf is n-1 for the decimal n ("?" if n is not one): the first text
// shown is line n, so n-1 lines gave way.
func prevOf(n string) string {
	var i int
	if _, err := fmt.Sscanf(n, "%d", &i); err != nil {
		return "?"
	}
	return fmt.Sprint(i - 1)
}

// TestUseChatQuestion: the colleague asks a question; the answer typed in
// the call's answer box is the chat's next message, and the same remote
// task's next turn shows in a tool part of the same toolCallId.
func TestUseChatQuestion(t *testing.T) {
	t.Parallel()
	ask, reply := story()
	agent, err := agenttest.New(agenttest.WithScripts(ask, reply))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	s := newSite(t)
	n := s.agent(agent.URL)
	b := newBrowser(t)

	b.open(s.chatURL(n, "chat-ask"))
	b.send("ship it?")
	asking := `.a2a-call[data-verdict="input-required"]`
	b.until(`!!document.querySelector('` + asking + ` form.a2a-answer textarea')`)
	got := b.describeCall(asking)
	if got.Verdict == nil || got.Verdict.Label != "Input required" || got.Verdict.Question != "Ship the partial order?" {
		t.Errorf("verdict %+v, want Input required with the question", got.Verdict)
	}
	label := eval[string](b, `document.querySelector('`+asking+` form.a2a-answer').getAttribute("aria-label")`)
	if label != "Answer the question: Ship the partial order?" {
		t.Errorf("the answer box is labelled %q", label)
	}
	b.screenshot("question", 390, 1280)

	// Answered from the box, with the keyboard: type, then Enter once the
	// message that asked has ended (until then the box does not send:
	// useChat cannot send while it streams).
	b.run(chromedp.SendKeys(chromedp.CSS(asking+` form.a2a-answer textarea`), "yes, ship it"))
	b.until(`!document.querySelector('` + asking + ` form.a2a-answer button').disabled`)
	b.run(chromedp.KeyEvent("\r"))
	b.until(`!!document.querySelector('.a2a-call[data-verdict="completed"]') && document.querySelectorAll(".msg.assistant .msg-text").length === 4`)
	parts := b.toolParts()
	if len(parts) != 2 || parts[0].ToolCallID != parts[1].ToolCallID || parts[0].Task != parts[1].Task || parts[0].Message == parts[1].Message {
		t.Fatalf("tool parts %+v: want the answer in the next message's part of the same toolCallId and task", parts)
	}
	got = b.describeCall(`.a2a-call[data-verdict="completed"]`)
	if got.Verdict == nil || got.Verdict.Reply != "Shipped: 3 of 4 items." {
		t.Errorf("the answer's turn: verdict %+v, want the reply", got.Verdict)
	}
	boxes := eval[int](b, `document.querySelectorAll("form.a2a-answer").length`)
	if boxes != 0 {
		t.Errorf("%d answer boxes left after the answer, want 0", boxes)
	}
	title := eval[string](b, `document.querySelector('.a2a-call[data-verdict="completed"] .a2a-title').textContent`)
	if title != "Answer: yes, ship it" {
		t.Errorf("the answer's call is titled %q", title)
	}
	b.screenshot("answered", 390, 1280)
}

// TestUseChatFailed: a failed call (the A2A JS SDK peer's "failed" turn)
// keeps its view — in useChat's toolMetadata, as the AI SDK drops a
// failed part's output — with the reason, also after a reload; the
// project's page shows the same. Then a turn with a numbering gap.
func TestUseChatFailed(t *testing.T) {
	t.Parallel()
	agentURL := startJSAgent(t)
	s := newSite(t)
	n := s.agent(agentURL)
	b := newBrowser(t)

	b.open(s.chatURL(n, "chat-fail"))
	b.send("failed")
	failed := `.a2a-call[data-phase="failed"]`
	b.until(`!!document.querySelector('` + failed + `') && document.querySelectorAll(".msg.assistant .msg-text").length === 2`)
	want := shown{Items: []shownItem{
		{Kind: "tool", Name: "deploy", Status: "aborted", Tail: "step 1/3 ok\n"},
		{Kind: "error", Text: "Error: permission denied"},
	}}
	got := b.describeCall(failed)
	if d := cmp.Diff(want.Items, got.Items, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the failed call's kept view (-want +got):\n%s", d)
	}
	if got.Verdict == nil || got.Verdict.Label != "Failed" || got.Verdict.Reason != "deploy failed: permission denied" {
		t.Errorf("verdict %+v, want Failed with the reason", got.Verdict)
	}
	b.screenshot("failed", 390, 1280)

	// Themable: a colour set on an ancestor (here :root) reaches the call.
	color := eval[string](b, `document.documentElement.style.setProperty("--a2a-bad", "rgb(1, 2, 3)"),
		getComputedStyle(document.querySelector('`+failed+` .a2a-error')).color`)
	if color != "rgb(1, 2, 3)" {
		t.Errorf("with --a2a-bad set on :root, an error item's colour is %q", color)
	}

	b.run(chromedp.Reload())
	b.until(`!!document.querySelector('` + failed + `')`)
	if d := cmp.Diff(got, b.describeCall(failed)); d != "" {
		t.Errorf("after a reload the failed call shows (-before +after):\n%s", d)
	}
	parts := b.toolParts()
	if len(parts) != 1 || parts[0].State != "output-error" || parts[0].Task == "" {
		t.Fatalf("tool parts after the reload: %+v", parts)
	}
	page := b.projectView(s, n, parts[0].Task)
	if d := cmp.Diff(page, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the useChat page and the project's page differ (-page +useChat):\n%s", d)
	}

	// The chat goes on: the peer's "shuffled" turn arrives out of order
	// and never sends seq 4 — a numbering gap, said plainly, in the same
	// words as the project's page.
	b.open(s.chatURL(n, "chat-fail"))
	b.until(`!!document.querySelector('` + failed + `')`) // the resumed message first
	b.send("shuffled")
	done := `.a2a-call[data-verdict="completed"]`
	b.until(`!!document.querySelector('` + done + `') && document.querySelectorAll(".msg.assistant .msg-text").length === 4`)
	got = b.describeCall(done)
	if want := "1 seq not received (numbering gaps; output may be incomplete)"; got.Gaps != want {
		t.Errorf("gaps %q, want %q", got.Gaps, want)
	}
	parts = b.toolParts()
	if len(parts) != 2 || parts[1].State != "output-available" {
		t.Fatalf("tool parts: %+v", parts)
	}
	page = b.projectView(s, n, parts[1].Task)
	if d := cmp.Diff(page, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the useChat page and the project's page differ for the shuffled turn (-page +useChat):\n%s", d)
	}
}

// TestUseChatChain: a chain (the orchestrator asks B, B asks C, C's
// search has a lookup under it) renders as a tree, as on the project's
// page.
func TestUseChatChain(t *testing.T) {
	t.Parallel()
	ch, err := chaintest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	s := newSite(t)
	n := s.agent(ch.B.URL)
	b := newBrowser(t)

	b.open(s.chatURL(n, "chat-chain"))
	b.send("where is order 42?")
	done := `.a2a-call[data-verdict="completed"]`
	b.until(`!!document.querySelector('` + done + `')`)
	got := b.describeCall(done)
	want := []shownItem{
		{Kind: "text", Text: "B: asking a colleague"},
		{Kind: "tool", Name: "ask_colleague", Status: "done", Children: []shownItem{
			{Kind: "thinking", Text: "C: which order?"},
			{Kind: "tool", Name: "search", Status: "done", Tail: "order 42\nstatus: shipped\n", Children: []shownItem{
				{Kind: "tool", Name: "lookup", Status: "done", Tail: "shipped\n"},
			}},
			{Kind: "text", Text: "C: found it"},
		}},
	}
	if d := cmp.Diff(want, got.Items, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the chain's tree (-want +got):\n%s", d)
	}
	b.screenshot("chain", 390, 1280)
	parts := b.toolParts()
	if len(parts) != 1 {
		t.Fatalf("tool parts %+v", parts)
	}
	page := b.projectView(s, n, parts[0].Task)
	if d := cmp.Diff(page, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the useChat page and the project's page differ (-page +useChat):\n%s", d)
	}
}
