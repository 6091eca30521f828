// Package copilotkit_test checks ../copilotkit.js in a real browser: a
// CopilotKit page (CopilotChat of @copilotkit/react-core 1.74's v2 API,
// bundled with esbuild from this directory's lockfile) talks AG-UI to
// examples/orchestrator, which asks a remote A2A agent — the independent
// JS peer (client/internal/interop/jsagent), the Go reference agent
// (client/agenttest) or a chain (client/chaintest) — in its
// ask_colleague tool calls.
//
// The page reaches the orchestrator the way a page without CopilotKit's
// runtime does: an HttpAgent of @ag-ui/client given to the provider
// (agents__unsafe_dev_only), POSTing to /ag-ui on the page's own origin,
// which this test forwards to the orchestrator.
//
// With A2A_PROGRESS_SHOTS=<dir>, every state is also saved as a screenshot
// at 390 and 1280 px wide: <dir>/copilotkit-<state>-<width>.png.
package copilotkit_test

import (
	"context"
	"fmt"
	"io"
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
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/chaintest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/internal/testdep/chromium"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(testdep.Reporting(m)) }

var (
	moduleRoot = filepath.Join("..", "..", "..", "..")
	jsAgentDir = filepath.Join(moduleRoot, "client", "internal", "interop", "jsagent")
)

// bundle builds the page with esbuild into a temporary directory.
func bundle(t *testing.T) string {
	t.Helper()
	node := testdep.NPM(t, ".", "the CopilotKit page")
	dir := t.TempDir()
	cmd := exec.Command(node, "build.mjs", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	return dir
}

// orchestratorBinary builds examples/orchestrator.
func orchestratorBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "orchestrator")
	args := []string{"build", "-o", bin}
	if testdep.Race {
		args = append(args, "-race") // see testdep.Race
	}
	cmd := exec.Command("go", append(args, "./examples/orchestrator")...)
	cmd.Dir = moduleRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/orchestrator: %v\n%s", err, out)
	}
	return bin
}

var serving = regexp.MustCompile(`orchestrator: serving (http://127\.0\.0\.1:\d+) `)

// orchestrator runs bin in front of the agent at agentURL and returns its
// URL; it stops (SIGINT) when the test ends.
func orchestrator(t *testing.T, bin, agentURL string) *url.URL {
	t.Helper()
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", agentURL)
	m := testdep.Start(t, "the orchestrator", cmd, testdep.Stderr).Until(serving.FindStringSubmatch)
	u, err := url.Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// startJSAgent starts the JS A2A peer on a free port; it stops when the
// test ends (its stdin closes).
func startJSAgent(t *testing.T) string {
	t.Helper()
	return testdep.JSAgent(t, jsAgentDir, "the JS A2A peer")
}

// hostile is what a peer may send: HTML, an event handler, markdown that
// would be a link or bold — each must reach the page as the text it is.
const hostile = `<img src=x onerror="window.__pwned=1"><b data-pwn="1">bold</b> **md** [x](javascript:window.__pwned=2)`

// Scripts of the Go reference agent.
func scripts() []agenttest.Script {
	slow := agenttest.Realistic()
	slow.Name = "order 42?"
	slow.Steps[4].Gate = "go" // after search_orders' output: the call runs
	step := func(seq int64, p envelope.Payload, key string, st envelope.Status) agenttest.Step {
		return agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: p.Kind(), StreamKey: key, Seq: seq, Status: st, Payload: p}}
	}
	return []agenttest.Script{
		slow,
		{Name: "ship it?", Steps: agenttest.Realistic().Steps[:3], Final: a2a.TaskStateInputRequired, FinalText: "Ship the partial order?"},
		{Name: "yes, ship it", Steps: []agenttest.Step{step(1, envelope.Text{Text: "Shipping the 3 items."}, "", envelope.StatusRunning)},
			Final: a2a.TaskStateCompleted, FinalText: "Shipped."},
		{Name: "markup", Steps: []agenttest.Step{
			step(1, envelope.Thinking{Text: hostile}, "", envelope.StatusRunning),
			step(2, envelope.ToolCall{Tool: hostile, ToolCallID: "x1"}, "x1", envelope.StatusRunning),
			step(3, envelope.ToolOutputAppend{Tool: hostile, ToolCallID: "x1", Chunk: hostile + "\n"}, "x1", envelope.StatusRunning),
			step(4, envelope.ToolCall{Tool: hostile, ToolCallID: "x1"}, "x1", envelope.StatusDone),
			step(5, envelope.Text{Text: hostile}, "", envelope.StatusRunning),
			step(6, envelope.ErrorPayload{Message: hostile}, "", envelope.StatusRunning),
		}, Final: a2a.TaskStateFailed, FinalText: hostile},
	}
}

// page is what the page shows, read from its DOM.
type page struct {
	// Transcript is the text of each message of the main transcript
	// (user and assistant), outside the nested calls' boxes.
	Transcript []string `json:"transcript"`
	// ListText is the whole message list's text outside the boxes.
	ListText string `json:"listText"`
	Calls    []call `json:"calls"`
	// Boxes counts every nested call box on the page, at any depth.
	Boxes  int      `json:"boxes"`
	Markup []string `json:"markup"` // elements a peer's text would have made
	Pwned  any      `json:"pwned"`
	Errors []string `json:"errors"`
}

type call struct {
	Title   string `json:"title"`
	Phase   string `json:"phase"`
	Verdict string `json:"verdict"`
	Items   []item `json:"items"`
	Reply   string `json:"reply"`
	Reason  string `json:"reason"`
	Asks    string `json:"asks"`
	Answer  bool   `json:"answer"` // the answer box is shown
}

type item struct {
	Kind   string `json:"kind"` // tool, text, thinking, error
	Depth  string `json:"depth"`
	Text   string `json:"text"` // a tool's name, else the item's text
	Status string `json:"status,omitempty"`
	Output string `json:"output,omitempty"`
}

// readPage is the page's state as JSON (see page).
const readPage = `(() => {
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const outside = (el) => {
    const c = el.cloneNode(true);
    c.querySelectorAll(".a2a-call, [data-testid=copilot-assistant-toolbar], button").forEach((n) => n.remove());
    return norm(c.textContent);
  };
  const transcript = [...document.querySelectorAll("[data-testid=copilot-message-list] [data-testid=copilot-assistant-message], [data-testid=copilot-message-list] [data-testid=copilot-user-message]")]
    .map(outside).filter((s) => s !== "");
  const top = [...document.querySelectorAll(".a2a-call")].filter((el) => !el.parentElement.closest(".a2a-call"));
  const own = (el, sel) => { const n = el.querySelector(sel); return n ? norm(n.textContent) : ""; };
  const calls = top.map((el) => ({
    title: own(el, ".a2a-title"),
    phase: el.dataset.phase || "",
    verdict: el.dataset.verdict || "",
    reply: own(el, ".a2a-verdict .a2a-reply"),
    reason: own(el, ".a2a-verdict .a2a-reason"),
    asks: own(el, ".a2a-verdict .a2a-question"),
    answer: !!el.querySelector("form.a2a-answer"),
    items: [...el.querySelectorAll("li.a2a-tool, li.a2a-text, li.a2a-thinking, li.a2a-error")].map((li) => {
      const kind = li.className.replace(/^a2a-/, "").split(" ")[0];
      if (kind === "tool") {
        const head = li.querySelector(".a2a-name");
        const out = li.querySelector(".a2a-tail");
        return { kind, depth: li.dataset.depth || "", text: head ? head.textContent : "", status: li.dataset.status || "", output: out ? out.textContent : "" };
      }
      const pre = li.querySelector("pre");
      return { kind, depth: li.dataset.depth || "", text: (pre || li).textContent };
    }),
  }));
  const markup = [...document.querySelectorAll("[data-pwn], img[src=x], a[href^=javascript]")].map((n) => n.outerHTML);
  const list = document.querySelector("[data-testid=copilot-message-list]");
  const listText = list ? outside(list) : "";
  return { transcript, listText, calls, boxes: document.querySelectorAll(".a2a-call").length, markup, pwned: window.__pwned ?? null, errors: window.__errors || [] };
})()`

// pageServer serves the bundle and forwards /ag-ui/<backend> to each
// backend's orchestrator.
func pageServer(t *testing.T, dir string, backends map[string]*url.URL) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8">`+
			`<meta name="viewport" content="width=device-width, initial-scale=1">`+
			`<title>CopilotKit nesting</title><link rel="stylesheet" href="/page.css"></head>`+
			`<body style="margin:0"><div id="root"></div><script type="module" src="/page.js"></script></body></html>`)
	})
	mux.Handle("GET /page.js", http.FileServer(http.Dir(dir)))
	mux.Handle("GET /page.css", http.FileServer(http.Dir(dir)))
	mux.Handle("GET /chunks/", http.FileServer(http.Dir(dir)))
	for name, target := range backends {
		rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.URL.Path = "/ag-ui"
		}}
		mux.Handle("POST /ag-ui/"+name, testdep.Proxy(rp))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// noNetwork keeps the browser on this machine: CopilotKit's page asks
// hosts on the internet for things it can do without (its licence check,
// telemetry), and a request that hangs in name resolution holds the page's
// load open. Every name but the loopback fails at once.
var noNetwork = chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")

type fixture struct {
	base  string
	tab   context.Context
	agent *agenttest.Agent
	shots string
}

func TestCopilotKitNesting(t *testing.T) {
	testdep.ChromiumPath(t, "the CopilotKit page in a real browser")
	dir := bundle(t)
	bin := orchestratorBinary(t)

	agent, err := agenttest.New(agenttest.WithScripts(scripts()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	ch, err := chaintest.Start(client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	base := pageServer(t, dir, map[string]*url.URL{
		"js":    orchestrator(t, bin, startJSAgent(t)),
		"go":    orchestrator(t, bin, agent.URL),
		"chain": orchestrator(t, bin, ch.B.URL),
	})

	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(5*time.Minute))
	t.Cleanup(cancel)
	browser := chromium.Start(t, ctx, "the CopilotKit page in a real browser", noNetwork)
	f := &fixture{base: base, agent: agent, shots: os.Getenv("A2A_PROGRESS_SHOTS")}
	// The page's console errors and uncaught exceptions go to the log of
	// the subtest that saw them: what a failure needs to be read. (Every
	// subtest uses the browser's first tab: a second tab of this chromedp
	// stopped answering Runtime.evaluate once its page had loaded.)
	var mu sync.Mutex
	var logs []string
	if err := chromedp.Listen(browser, func(ev any) {
		var line string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			line = "page exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				line += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeWarning {
				return
			}
			line = "page console " + string(ev.Type) + ":"
			for _, a := range ev.Args {
				line += " " + string(a.Value) + a.Description
			}
		default:
			return
		}
		mu.Lock()
		logs = append(logs, line)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	run := func(name string, test func(t *testing.T, f *fixture)) {
		t.Run(name, func(t *testing.T) {
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for _, l := range logs {
					t.Log(l)
				}
				logs = nil
			}()
			g := *f
			g.tab = browser
			test(t, &g)
		})
	}
	run("running-then-completed", testRunning)
	run("without-the-package", testPlain)
	run("two-concurrent-js-peer", testConcurrent)
	run("question-answered-in-the-box", testQuestion)
	run("chain", testChain)
	run("markup", testMarkup)
}

// do runs actions in the tab; a wait that is not met in time fails the
// test with what the page shows (a guard, not a synchronisation).
func (f *fixture) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	wctx, cancel := context.WithTimeout(f.tab, testdep.Budget(time.Minute))
	defer cancel()
	if err := chromedp.Do(wctx, actions...); err != nil {
		t.Errorf("browser: %v", err)
		t.Fatalf("the page: %+v", f.read(t))
	}
}

func (f *fixture) read(t *testing.T) page {
	t.Helper()
	rctx, cancel := context.WithTimeout(f.tab, testdep.Budget(20*time.Second))
	defer cancel()
	p, err := chromedp.Run(rctx, chromedp.Evaluate[page](readPage))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return p
}

// until waits for a JS condition on the page.
func (f *fixture) until(t *testing.T, cond string) {
	t.Helper()
	f.do(t, chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(0), chromedp.WithPollingInterval(50*time.Millisecond))(ctx, tg)
		return chromedp.Void{}, err
	}))
}

// open loads the page for backend (query: more of the query string).
func (f *fixture) open(t *testing.T, backend, query string) {
	t.Helper()
	f.do(t, chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(f.base+"/?backend="+backend+query),
		chromedp.WaitVisible(`[data-testid=copilot-chat-textarea]`))
}

// say types the user's message, one line per question (Shift+Enter
// between lines), and sends it with Enter.
func (f *fixture) say(t *testing.T, lines ...string) {
	t.Helper()
	sel := `[data-testid=copilot-chat-textarea]`
	acts := []chromedp.Action[chromedp.Void]{chromedp.Click(sel)}
	for i, l := range lines {
		if i > 0 {
			acts = append(acts, chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierShift)))
		}
		acts = append(acts, chromedp.SendKeys(sel, l))
	}
	f.do(t, append(acts, chromedp.KeyEvent("\r"))...)
}

// shoot saves the page at 390 and 1280 px when A2A_PROGRESS_SHOTS names a
// directory: screenshots are for eyes, not asserts.
func (f *fixture) shoot(t *testing.T, name string) {
	t.Helper()
	if f.shots == "" {
		return
	}
	for _, w := range []int64{390, 1280} {
		f.do(t, chromedp.EmulateViewport(w, 900))
		png, err := chromedp.Run(f.tab, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(f.shots, fmt.Sprintf("copilotkit-%s-%d.png", name, w)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.do(t, chromedp.EmulateViewport(1280, 900))
}

// clean checks what every state must show: no markup made of a peer's
// text, no page error.
func clean(t *testing.T, p page) {
	t.Helper()
	if len(p.Markup) > 0 || p.Pwned != nil {
		t.Errorf("a peer's text became markup: %q (pwned %v)", p.Markup, p.Pwned)
	}
	if len(p.Errors) > 0 {
		t.Errorf("page errors: %q", p.Errors)
	}
}

func tools(c call) []string {
	var out []string
	for _, it := range c.Items {
		if it.Kind == "tool" {
			out = append(out, it.Text+"/"+it.Status)
		}
	}
	return out
}

func texts(c call) []string {
	var out []string
	for _, it := range c.Items {
		if it.Kind != "tool" {
			out = append(out, it.Kind+": "+it.Text)
		}
	}
	return out
}

const (
	oneCall   = `document.querySelectorAll(".a2a-call").length === 1`
	askFirst  = "Let me ask a colleague."
	realistic = "My colleague says: " + agenttest.RealisticReply
)

// The nested call renders while it runs — the colleague's tool and output
// inside the orchestrator's tool call, nothing of it in the transcript —
// and after it completed, with its reply.
func testRunning(t *testing.T, f *fixture) {
	f.open(t, "go", "")
	f.say(t, "order 42?")
	// (CopilotKit may draw the box before the text of the message that
	// holds the call: wait for both.)
	f.until(t, oneCall+` && [...document.querySelectorAll(".a2a-call li.a2a-tool")].some((li) => li.textContent.includes("search_orders") && li.textContent.includes("status: shipped"))`+
		` && document.querySelector("[data-testid=copilot-message-list]").textContent.includes("`+askFirst+`")`)
	p := f.read(t)
	f.shoot(t, "running")
	clean(t, p)
	// While it streams, CopilotKit's assistant message has no test id yet:
	// the list's whole text outside the box.
	// (Its elements join their texts without a space: compare without any.)
	if squash := func(s string) string { return strings.Join(strings.Fields(s), "") }; squash(p.ListText) != squash("order 42? "+askFirst) {
		t.Errorf("transcript while the call runs: %q, want only %q", p.ListText, "order 42? "+askFirst)
	}
	if len(p.Calls) != 1 || p.Calls[0].Phase != "running" || p.Calls[0].Title != "order 42?" {
		t.Fatalf("the running call: %+v", p.Calls)
	}
	if diff := cmp.Diff([]string{"search_orders/running"}, tools(p.Calls[0])); diff != "" {
		t.Errorf("tools while running (-want +got):\n%s", diff)
	}
	f.agent.Release("go")
	f.until(t, `!!document.querySelector(".a2a-call[data-verdict=completed]") && document.body.textContent.includes("My colleague says")`)
	p = f.read(t)
	f.shoot(t, "completed")
	clean(t, p)
	if diff := cmp.Diff([]string{"order 42?", askFirst, realistic}, p.Transcript); diff != "" {
		t.Errorf("transcript after the call (-want +got):\n%s", diff)
	}
	c := p.Calls[0]
	if diff := cmp.Diff([]string{"search_orders/done", "check_stock/done"}, tools(c)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	want := []string{
		"thinking: The user asks about order 42: look it up, then check stock.",
		"text: Order found. Checking stock.",
		"error: Error: warehouse API timed out; retrying",
		"text: Writing the reply.",
	}
	if diff := cmp.Diff(want, texts(c)); diff != "" {
		t.Errorf("the colleague's texts in the box (-want +got):\n%s", diff)
	}
	if c.Reply != agenttest.RealisticReply || c.Phase != "ended" {
		t.Errorf("the call's end: %+v", c)
	}
}

// Without the package, CopilotKit shows the colleague's texts as the
// orchestrator's own words: what the other tests check cannot happen.
func testPlain(t *testing.T, f *fixture) {
	f.open(t, "go", "&plain=1")
	f.say(t, "order 42?")
	f.agent.Release("go")
	f.until(t, `document.body.textContent.includes("My colleague says")`)
	p := f.read(t)
	f.shoot(t, "plain")
	got := strings.Join(p.Transcript, "\n")
	if !strings.Contains(got, "Order found. Checking stock.") || p.Boxes != 0 {
		t.Errorf("plain CopilotKit: transcript %q, %d boxes; want the colleague's text in it and no box", p.Transcript, p.Boxes)
	}
}

// Two questions in one message: two concurrent calls of the independent
// JS peer, one completes and one fails, each in its own box.
func testConcurrent(t *testing.T, f *fixture) {
	f.open(t, "js", "")
	f.say(t, "inorder", "failed")
	f.until(t, `document.querySelectorAll(".a2a-call[data-phase=ended], .a2a-call[data-phase=failed]").length === 2 && document.body.textContent.includes("could not answer")`)
	p := f.read(t)
	f.shoot(t, "concurrent")
	clean(t, p)
	want := []string{"inorder failed", askFirst,
		"My colleague says: Order 42 has shipped. My colleague could not answer (failed): deploy failed: permission denied"}
	if diff := cmp.Diff(want, p.Transcript); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if len(p.Calls) != 2 {
		t.Fatalf("calls: %+v", p.Calls)
	}
	byTitle := map[string]call{}
	for _, c := range p.Calls {
		byTitle[c.Title] = c
	}
	ok, bad := byTitle["inorder"], byTitle["failed"]
	if ok.Verdict != "completed" || ok.Reply != "Order 42 has shipped." {
		t.Errorf("the completed call: %+v", ok)
	}
	if diff := cmp.Diff([]string{"lookup_order/done", "check_stock/aborted"}, tools(ok)); diff != "" {
		t.Errorf("the completed call's tools (-want +got):\n%s", diff)
	}
	if bad.Verdict != "failed" || bad.Phase != "failed" || bad.Reason != "deploy failed: permission denied" {
		t.Errorf("the failed call: %+v", bad)
	}
	if diff := cmp.Diff([]string{"deploy/aborted"}, tools(bad)); diff != "" {
		t.Errorf("the failed call's tools (-want +got):\n%s", diff)
	}
}

// The colleague asks a question; it is answered from the box, and the
// answer's turn continues in the same box.
func testQuestion(t *testing.T, f *fixture) {
	f.open(t, "go", "")
	f.say(t, "ship it?")
	f.until(t, `!!document.querySelector(".a2a-call form.a2a-answer textarea") && document.body.textContent.includes("My colleague asks")`)
	p := f.read(t)
	f.shoot(t, "question")
	clean(t, p)
	if diff := cmp.Diff([]string{"ship it?", askFirst, "My colleague asks: Ship the partial order?"}, p.Transcript); diff != "" {
		t.Errorf("transcript with the question (-want +got):\n%s", diff)
	}
	if len(p.Calls) != 1 || p.Calls[0].Verdict != "input-required" || p.Calls[0].Asks != "Ship the partial order?" {
		t.Fatalf("the asking call: %+v", p.Calls)
	}
	f.do(t, chromedp.SendKeys(`.a2a-call form.a2a-answer textarea`, "yes, ship it"),
		chromedp.Click(`.a2a-call form.a2a-answer button[type=submit]`))
	f.until(t, `!!document.querySelector(".a2a-call[data-verdict=completed]") && document.body.textContent.includes("My colleague says")`)
	p = f.read(t)
	f.shoot(t, "answered")
	clean(t, p)
	want := []string{"ship it?", askFirst, "My colleague asks: Ship the partial order?", "Let me pass that on.", "My colleague says: Shipped."}
	if diff := cmp.Diff(want, p.Transcript); diff != "" {
		t.Errorf("transcript after the answer (-want +got):\n%s", diff)
	}
	if len(p.Calls) != 1 {
		t.Fatalf("calls after the answer: %+v", p.Calls)
	}
	c := p.Calls[0]
	if c.Reply != "Shipped." || c.Answer {
		t.Errorf("the answered call: %+v", c)
	}
	if diff := cmp.Diff([]string{"text: Asked: Ship the partial order?", "text: Shipping the 3 items."}, texts(c)[1:]); diff != "" {
		t.Errorf("the answered call's texts (-want +got):\n%s", diff)
	}
}

// A chain: the colleague (B) asks its own colleague (C) in a tool call of
// the same name as the orchestrator's; C's items show inside B's call,
// inside the orchestrator's box — one box, three levels.
func testChain(t *testing.T, f *fixture) {
	f.open(t, "chain", "")
	f.say(t, "where is order 42?")
	f.until(t, `!!document.querySelector(".a2a-call[data-verdict=completed]") && document.body.textContent.includes("My colleague says")`)
	p := f.read(t)
	f.shoot(t, "chain")
	clean(t, p)
	if diff := cmp.Diff([]string{"where is order 42?", askFirst, "My colleague says: B: " + chaintest.Reply}, p.Transcript); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if len(p.Calls) != 1 || p.Boxes != 1 {
		t.Fatalf("want one box (the callee's ask_colleague inside it, not a box of its own): %d boxes, calls %+v", p.Boxes, p.Calls)
	}
	var got []string
	for _, it := range p.Calls[0].Items {
		if it.Kind == "tool" {
			got = append(got, it.Depth+":"+it.Text)
		}
	}
	if diff := cmp.Diff([]string{"0:" + chaintest.AskTool, "1:search", "2:lookup"}, got); diff != "" {
		t.Errorf("the chain's tools, depth:name (-want +got):\n%s", diff)
	}
}

// A peer's text, tool name, output, error and reply made of markup: all of
// it is shown as text.
func testMarkup(t *testing.T, f *fixture) {
	f.open(t, "go", "")
	f.say(t, "markup")
	f.until(t, `!!document.querySelector(".a2a-call[data-phase=failed]") && document.body.textContent.includes("could not answer")`)
	p := f.read(t)
	f.shoot(t, "markup")
	clean(t, p)
	if len(p.Calls) != 1 {
		t.Fatalf("calls: %+v", p.Calls)
	}
	c := p.Calls[0]
	if diff := cmp.Diff([]string{hostile + "/done"}, tools(c)); diff != "" {
		t.Errorf("the tool's name as text (-want +got):\n%s", diff)
	}
	want := []string{"thinking: " + hostile, "text: " + hostile, "error: Error: " + hostile}
	if diff := cmp.Diff(want, texts(c)); diff != "" {
		t.Errorf("the texts as text (-want +got):\n%s", diff)
	}
	if c.Items[1].Output != hostile+"\n" || c.Reason != hostile {
		t.Errorf("output %q, reason %q: want the text as sent", c.Items[1].Output, c.Reason)
	}
}
