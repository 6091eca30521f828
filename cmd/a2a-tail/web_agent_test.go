package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// agentDown is `a2a-tail web` started while nothing answers at its agent's
// address: a front that closes every connection until up is set, then
// passes them to the reference callee.
type agentDown struct {
	ctx     context.Context
	la      *client.Lazy
	up      *atomic.Bool
	refused *atomic.Int64
	base    string // the web server's URL
	cardURL string // the agent's, as the web server was given it
}

func startAgentDown(t *testing.T) *agentDown {
	t.Helper()
	agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	card, err := url.Parse(agent.CardURL(agenttest.V1))
	if err != nil {
		t.Fatal(err)
	}
	d := &agentDown{up: new(atomic.Bool), refused: new(atomic.Int64)}
	proxy := testdep.Proxy(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: card.Scheme, Host: card.Host}))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !d.up.Load() {
			d.refused.Add(1)
			panic(http.ErrAbortHandler) // the connection closes: no agent there
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	t.Cleanup(cancel)
	d.ctx = ctx
	d.cardURL = front.URL + card.Path
	d.la = client.NewLazy(ctx, d.cardURL, 20*time.Millisecond)
	t.Cleanup(func() { d.la.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newWebPolicy(webFlags{listen: "127.0.0.1:0"}, ln.Addr().String(), true)
	if err != nil {
		t.Fatal(err)
	}
	ws := newWebServer(ctx, d.la, p)
	srv := newWebHTTPServer(ws, newConnCap(webMaxConns))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = ws.Close()
		_ = srv.Close()
	})
	d.base = "http://" + ln.Addr().String()
	return d
}

// `a2a-tail web` starts before its agent: it serves the page at once,
// reports the agent's state (GET /agent, and in the 503 of a send), reads
// the card with backoff, and works once the agent is up.
func TestWebAgentDownAtStart(t *testing.T) {
	d := startAgentDown(t)
	la, up, refused, base := d.la, d.up, d.refused, d.base
	ctx := d.ctx

	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := get("/"); st != 200 || !strings.Contains(body, "<html") {
		t.Fatalf("GET / with the agent down: %d %.80q", st, body)
	}
	select {
	case <-la.Tried(): // the first attempt failed
	case <-ctx.Done():
		t.Fatal("no card request ended")
	}
	if refused.Load() == 0 {
		t.Fatal("no card request reached the agent's address")
	}
	st, body := get("/agent")
	var state client.AgentState
	if err := json.Unmarshal([]byte(body), &state); err != nil || st != 200 {
		t.Fatalf("GET /agent: %d %q %v", st, body, err)
	}
	if state.State != "unreachable" || state.Error == "" || state.Retry == nil || state.Attempts < 1 || state.Wait < 1 {
		t.Errorf("agent state while down: %+v", state)
	}
	// The page's words: the agent's address and a reason in a few words
	// (the front closes the connection: a card that cannot be read).
	if d := cmp.Diff(d.cardURL+" its agent card cannot be read", state.URL+" "+state.Reason); d != "" {
		t.Errorf("agent state's URL and reason (-want +got):\n%s", d)
	}
	resp, err := http.Post(base+"/tasks", "application/json", strings.NewReader(`{"text":"realistic"}`))
	if err != nil {
		t.Fatal(err)
	}
	var refusal struct {
		Error string
		Agent client.AgentState
	}
	_ = json.NewDecoder(resp.Body).Decode(&refusal)
	resp.Body.Close()
	if d := cmp.Diff("503 2 unreachable", strings.Join([]string{resp.Status[:3], resp.Header.Get("Retry-After"), refusal.Agent.State}, " ")); d != "" ||
		!strings.HasPrefix(refusal.Error, "client: the agent is not reachable yet (unreachable after ") {
		t.Errorf("send while down (-want +got):\n%s\nerror %q", d, refusal.Error)
	}

	up.Store(true)
	select {
	case <-la.Ready():
	case <-ctx.Done():
		t.Fatal("the card was not read once the agent was up")
	}
	st, body = get("/agent")
	if st != 200 || !strings.Contains(body, `"state":"up"`) {
		t.Errorf("GET /agent once up: %d %s", st, body)
	}
	resp, err = http.Post(base+"/tasks", "application/json", strings.NewReader(`{"text":"realistic"}`))
	if err != nil {
		t.Fatal(err)
	}
	var sent struct{ Task string }
	_ = json.NewDecoder(resp.Body).Decode(&sent)
	resp.Body.Close()
	if resp.StatusCode != 200 || sent.Task == "" {
		t.Fatalf("send once up: %d %+v", resp.StatusCode, sent)
	}
	if st, body := get("/tasks/" + sent.Task + "/events"); st != 200 || !strings.HasPrefix(body, "retry:") {
		t.Errorf("events once up: %d %.100q", st, body)
	}
}

// The page, served while the agent is down, says so when a send fails —
// in a sentence, the server's reason folded — and sends the message by
// itself once the agent is up.
func TestWebAgentDownInBrowser(t *testing.T) {
	t.Parallel()
	testdep.ChromiumPath(t, "the web page's check in a real browser") // skips, or fails where required, before any setup
	d := startAgentDown(t)
	select {
	case <-d.la.Tried():
	case <-d.ctx.Done():
		t.Fatal("no card request ended")
	}
	bctx := browser.Tab(t, d.ctx, "the web page's check in a real browser")
	err := chromedp.Do(bctx,
		chromedp.Navigate(d.base+"/"),
		chromedp.WaitVisible("#text"),
		chromedp.SendKeys("#text", agenttest.RealisticName),
		chromedp.Click("#send button"),
		chromedp.WaitVisible("#send-error"),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	shown, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById("send-error").textContent`))
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	// A sentence; the server's reason folded under Details.
	if want := "Not sent yet: the agent is not reachable. The page sends it as soon as the agent is up.Detailsclient: the agent is not reachable yet (unreachable after "; !strings.HasPrefix(shown, want) {
		t.Errorf("the page says %q, want it to start %q", shown, want)
	}
	d.up.Store(true)
	<-d.la.Ready()
	// The page sends it by itself once GET /agent says the agent is up.
	err = chromedp.Do(bctx, chromedp.WaitVisible(`#conn[data-state="ended"]`))
	if err != nil {
		t.Fatalf("browser, agent up: %v", err)
	}
}
