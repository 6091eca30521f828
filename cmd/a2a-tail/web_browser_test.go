package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
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

// cutOnce cuts the first event stream it serves server-side, abruptly,
// after `after` events; later streams pass untouched.
type cutOnce struct {
	next  http.Handler
	after int
	used  atomic.Bool
	cut   atomic.Bool
}

func (c *cutOnce) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/events") && c.used.CompareAndSwap(false, true) {
		w = &cuttingWriter{ResponseWriter: w, left: c.after, cut: &c.cut}
	}
	c.next.ServeHTTP(w, r)
}

type cuttingWriter struct {
	http.ResponseWriter
	left int
	cut  *atomic.Bool
}

func (w *cuttingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	if bytes.Contains(b, []byte("\ndata: ")) || bytes.HasPrefix(b, []byte("data: ")) {
		w.left--
		if w.left <= 0 {
			w.ResponseWriter.(http.Flusher).Flush()
			w.cut.Store(true)
			panic(http.ErrAbortHandler) // net/http closes the connection mid-body
		}
	}
	return n, err
}

func (w *cuttingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// pageState is what the test reads from the page once the turn ended.
type pageState struct {
	DOM        string `json:"dom"`
	Tools      int    `json:"tools"`
	Items      int    `json:"items"`
	Keys       int    `json:"keys"`
	Verdict    string `json:"verdict"`
	Reconnects string `json:"reconnects"`
	Elements   int    `json:"elements"`
	Text       string `json:"text"`
	// Tree is the turn's items as shown, nested items indented (see
	// pageTree); Dups counts items whose key is shown more than once at
	// any depth.
	Tree []string `json:"tree"`
	Dups int      `json:"dups"`
}

// The page in a real browser: it sends a message, shows the tool calls and
// the verdict; a run whose event stream is cut mid-turn server-side ends
// with the same DOM as an uncut run, each block once.
func TestWebPageInBrowser(t *testing.T) {
	t.Parallel()
	testdep.ChromiumPath(t, "the web page's check in a real browser") // skips, or fails where required, before any setup
	agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	agent.Register(agenttest.Realistic().WithPause(150 * time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(3*time.Minute))
	defer cancel()
	c, err := client.New(ctx, agent.CardURL(agenttest.V1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	bctx := browser.Tab(t, ctx, "the web page's check in a real browser")

	run := func(t *testing.T, cutAfter int) (pageState, bool) {
		return runPage(t, ctx, bctx, c, agenttest.RealisticName, cutAfter)
	}
	uncut, _ := run(t, 0)
	if uncut.Tools != 2 {
		t.Errorf("page shows %d tool calls, want 2", uncut.Tools)
	}
	if uncut.Keys != uncut.Items {
		t.Errorf("%d items for %d distinct blocks: a block shown twice", uncut.Items, uncut.Keys)
	}
	if want := "Completed" + agenttest.RealisticReply; !strings.HasPrefix(uncut.Verdict, want) {
		t.Errorf("verdict banner %q, want it to start with %q", uncut.Verdict, want)
	}
	cut, wasCut := run(t, 4)
	if !wasCut {
		t.Fatal("the event stream was not cut")
	}
	if cut.Reconnects == "0" {
		t.Errorf("connection indicator shows no reconnect after a cut")
	}
	if d := cmp.Diff(uncut.DOM, cut.DOM); d != "" {
		t.Errorf("DOM after a cut differs from the uncut run (-uncut +cut):\n%s", d)
	}
	if cut.Keys != cut.Items {
		t.Errorf("%d items for %d distinct blocks after a cut", cut.Items, cut.Keys)
	}

	// Agent text is text: markup in it is shown, never parsed.
	agent.Register(agenttest.Script{Name: "markup", Steps: []agenttest.Step{
		{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: markup}}},
		{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "c1", Seq: 2, Status: envelope.StatusRunning,
			Payload: envelope.ToolCall{Tool: markup}}},
		{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "c1", Seq: 3, Status: envelope.StatusRunning,
			Payload: envelope.ToolOutputAppend{Tool: markup, Chunk: markup + "\n"}}},
	}, Final: a2a.TaskStateFailed, FinalText: markup})
	hostile, _ := runPage(t, ctx, bctx, c, "markup", 0)
	if hostile.Elements != 0 {
		t.Errorf("agent text made %d elements on the page", hostile.Elements)
	}
	if strings.Count(hostile.Text, markup) < 4 {
		t.Errorf("page text %q does not show the markup as text 4 times (text, tool name, output, verdict)", hostile.Text)
	}
}

// markup is agent text that would run script if a page parsed it as HTML.
const markup = `<img src=x onerror="document.body.dataset.pwned=1"><b>bold</b>`

// runPage sends text from the page served over c and returns the page's
// state once the turn ended; cutAfter > 0 cuts the first event stream
// server-side after that many events.
func runPage(t *testing.T, ctx, bctx context.Context, c *client.Client, text string, cutAfter int) (pageState, bool) {
	t.Helper()
	ws := newWebServer(ctx, client.LazyOf(c), webPolicy{auth: relay.AllowLoopback, tasks: relay.NewTaskSet(0)}, relay.WithReconnectDelay(100*time.Millisecond))
	cut := &cutOnce{next: ws, after: cutAfter}
	var h http.Handler = ws
	if cutAfter > 0 {
		h = cut
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer ws.Close()
	tctx, tcancel := chromedp.NewContext(bctx)
	defer tcancel()
	err := chromedp.Do(tctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible("#text"),
		chromedp.SendKeys("#text", text),
		chromedp.Click("#send button"),
		chromedp.WaitVisible(`#conn[data-state="ended"]`),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	st, err := chromedp.Run(tctx, chromedp.Evaluate[pageState](`(() => {
				const entry = document.querySelector("#conversation > li:last-child");
				const w = entry.cloneNode(true);
				w.querySelectorAll(".elapsed, .turn-elapsed").forEach((e) => e.textContent = "");
				w.querySelectorAll("[data-key]").forEach((e) => e.removeAttribute("data-key"));
				w.querySelector(".task-id").textContent = "";
				const keys = new Set([...entry.querySelectorAll(".turn > li")].map((li) => li.dataset.key));
				return {
					dom: w.innerHTML,
					tools: entry.querySelectorAll(".turn > li.tool").length,
					items: entry.querySelectorAll(".turn > li").length,
					keys: keys.size,
					verdict: entry.querySelector(".verdict").textContent,
					reconnects: document.getElementById("conn").dataset.reconnects,
					elements: document.querySelectorAll("#conversation img, #conversation b").length + (document.body.dataset.pwned ? 1 : 0),
					text: entry.textContent,
					tree: `+pageTree+`(entry.querySelector(".turn"), ""),
					dups: (() => { const all = [...entry.querySelectorAll(".turn li")].map((li) => li.dataset.key);
						return all.length - new Set(all).size; })(),
				};
			})()`))
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return st, cut.cut.Load()
}

// `a2a-tail demo --web --listen …`: a page opened after the demo turn ended
// shows how long each tool call took (the relay published the turn as it
// ran, so each op carries its own time; a late Follow only had history,
// whose blocks share one time), and its send box sends a message that the
// demo agent plays at the demo's pace.
func TestDemoWebInBrowser(t *testing.T) {
	ctx, tab := pageTest(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	reusesPort(t)
	ln.Close() // a free port for --listen
	dctx, stop := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(dctx, []string{"demo", "--web", "--pace", "100ms", "--listen", listen}, nil, pw, stderr)
		pw.Close()
	}()
	defer func() {
		stop()
		<-done
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("demo --web printed no URL: %v; stderr: %s", err, stderr)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	page := strings.TrimSpace(line)
	u, err := url.Parse(page)
	if err != nil || u.Host != listen || u.Query().Get("task") == "" || !u.Query().Has("send") {
		t.Fatalf("demo --web printed %q, want a page on %s with ?task=…&send", page, listen)
	}
	// The turn ends before any page is opened: follow it at the demo agent.
	agentURL := regexp.MustCompile(`demo agent on (\S+) `).FindStringSubmatch(stderr.String())
	if agentURL == nil {
		t.Fatalf("stderr names no demo agent: %s", stderr)
	}
	c, err := client.New(ctx, agentURL[1])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Follow(ctx, a2a.TaskID(u.Query().Get("task")))
	if err != nil {
		t.Fatal(err)
	}
	for range st.Updates() {
	}
	if out, err := st.Outcome(); err != nil || out.State != a2a.TaskStateCompleted {
		t.Fatalf("the demo turn: %+v %v", out, err)
	}
	do(t, tab,
		chromedp.Navigate(page),
		chromedp.WaitVisible(`#conversation > li:last-child .verdict[data-verdict="completed"]`),
		chromedp.WaitVisible(`#send`),
	)
	shoot(t, tab, "demo-late-page")
	elapsed := func(entry int) []string {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(
			`[...document.querySelectorAll("#conversation > li:nth-child(%d) .tool .elapsed")].map((e) => e.textContent)`, entry)))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// The Realistic turn's two tool calls each span several paced steps.
	atLeast := func(what string, shown []string, n int, floor time.Duration) {
		t.Helper()
		if len(shown) != n {
			t.Fatalf("%s: %d elapsed times %q, want %d", what, len(shown), shown, n)
		}
		for _, s := range shown {
			d, err := time.ParseDuration(strings.ReplaceAll(strings.ReplaceAll(s, " ms", "ms"), " s", "s"))
			if err != nil || d < floor {
				t.Errorf("%s: elapsed %q, want at least %v (%v)", what, s, floor, err)
			}
		}
	}
	atLeast("the demo turn, on a page opened after it", elapsed(1), 2, 100*time.Millisecond)

	do(t, tab,
		chromedp.SendKeys("#text", "and again"),
		chromedp.Click("#send button"),
		chromedp.WaitVisible(`#conversation > li:nth-child(2) .verdict[data-verdict="completed"]`),
	)
	shoot(t, tab, "demo-sent")
	atLeast("a message sent from the demo's page", elapsed(2), 2, 100*time.Millisecond)
}
