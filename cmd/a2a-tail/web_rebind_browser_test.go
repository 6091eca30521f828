package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// DNS rebinding in a real browser: Chromium resolves attacker.test to
// 127.0.0.1 (--host-resolver-rules), as a rebinding attacker's DNS would.
// A page of http://attacker.test on another port cannot send to the
// server or read from it (cross-origin: the server refuses its Origin and
// sends no CORS headers); a page of http://attacker.test on the server's
// own port — same-origin with it for the browser — is refused by Host on
// every request. The server's own page, by a loopback name, can do both.
func TestWebRebindingInBrowser(t *testing.T) {
	t.Parallel()
	testdep.ChromiumPath(t, "the web page's check in a real browser") // skips, or fails where required, before any setup
	g := startGuarded(t, webFlags{listen: "127.0.0.1:0"}, true)
	task := g.dispatch(t)
	g.p.tasks.Add(task)

	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>evil</title>"))
	}))
	defer evil.Close()
	_, evilPort, _ := net.SplitHostPort(evil.Listener.Addr().String())

	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute))
	defer cancel()
	bctx := browser.Tab(t, ctx, "the web page's check in a real browser") // resolves attacker.test to 127.0.0.1

	// probe runs in a page of origin: it POSTs a message (JSON, and a
	// no-cors text/plain one that needs no preflight) and reads the task's
	// events, and says what it could see of each.
	probe := func(origin, base string) map[string]string {
		t.Helper()
		tctx, tcancel := chromedp.NewContext(bctx)
		defer tcancel()
		js := `(async () => {
			const base = ` + jsString(base) + `;
			const out = {};
			const see = async (name, p) => {
				try { const r = await p; out[name] = r.type === "opaque" ? "opaque" : r.status + " " + (await r.text()).slice(0, 30); }
				catch (e) { out[name] = "blocked"; }
			};
			await see("send json", fetch(base + "/tasks", {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"text":"realistic"}'}));
			await see("send no-cors", fetch(base + "/tasks", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: '{"text":"realistic"}'}));
			await see("read events", fetch(base + "/tasks/` + task + `/events"));
			await see("read page", fetch(base + "/"));
			return out;
		})()`
		if err := chromedp.Do(tctx, chromedp.Navigate(origin+"/")); err != nil {
			t.Fatalf("browser at %s: %v", origin, err)
		}
		got, err := chromedp.Run(tctx, chromedp.Evaluate[map[string]string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("browser at %s: %v", origin, err)
		}
		return got
	}

	own := "http://127.0.0.1:" + g.port
	refused := `403 {"error":"relay: Host \"attack`
	want := map[string]map[string]string{
		"cross-origin": {"send json": "blocked", "send no-cors": "opaque", "read events": "blocked", "read page": "blocked"},
		"rebound":      {"send json": refused, "send no-cors": refused, "read events": refused, "read page": refused},
	}
	got := map[string]map[string]string{
		"cross-origin": probe("http://attacker.test:"+evilPort, own),
		"rebound":      probe("http://attacker.test:"+g.port, ""),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("what a foreign page could do (-want +got):\n%s", d)
	}
	if n := g.p.tasks.Len(); n != 1 {
		t.Errorf("%d tasks after the foreign pages' sends, want the 1 named (nothing sent)", n)
	}
	if s := g.ws.relay.Stats(); s.Tasks != 0 || s.Follows != 0 {
		t.Errorf("the foreign pages' reads reached the relay: %+v", s)
	}

	// The server's own page sends and reads.
	mine := probe(own, "")
	if mine["send json"][:4] != "200 " || mine["read events"][:4] != "200 " || mine["read page"][:4] != "200 " {
		t.Errorf("the server's own page: %v", mine)
	}
}

// jsString quotes s for a JavaScript source.
func jsString(s string) string {
	b := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}
