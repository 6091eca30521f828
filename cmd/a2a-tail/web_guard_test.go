package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/relay"
)

// guarded is `a2a-tail web` as serveWeb starts it — its policy from its
// flags, its http.Server — on a real loopback socket.
type guarded struct {
	ctx  context.Context
	c    *client.Client
	p    webPolicy
	ws   *webServer
	cc   *connCap
	addr string // host:port it listens on
	port string
}

func startGuarded(t *testing.T, f webFlags, loopback bool) *guarded {
	t.Helper()
	ctx, c := startWebAgent(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newWebPolicy(f, ln.Addr().String(), loopback)
	if err != nil {
		t.Fatal(err)
	}
	ws := newWebServer(ctx, client.LazyOf(c), p)
	cc := newConnCap(webMaxConns)
	srv := newWebHTTPServer(ws, cc)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = ws.Close()
		_ = srv.Close()
	})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return &guarded{ctx: ctx, c: c, p: p, ws: ws, cc: cc, addr: ln.Addr().String(), port: port}
}

// call sends method path to g with the given Host and headers (name, value
// pairs) and returns the status and body.
func (g *guarded) call(t *testing.T, method, path, host, body string, hdr ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(g.ctx, method, "http://"+g.addr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A request that names another host (a DNS-rebinding page sends its own
// name) or comes from another origin is refused on every endpoint, whatever
// it asks; the same requests by a loopback name from the page's own origin
// pass.
func TestWebRebinding(t *testing.T) {
	t.Parallel()
	g := startGuarded(t, webFlags{listen: "127.0.0.1:0"}, true)
	task := g.dispatch(t)
	g.p.tasks.Add(task) // named on the command line: readable when asked rightly
	foreign := "attacker.test:" + g.port
	send := `{"text":"realistic"}`
	agui := `{"threadId":"th-1","runId":"r1","messages":[{"id":"m1","role":"user","content":"realistic"}]}`
	chat := `{"id":"chat-1","messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"realistic"}]}]}`
	type try struct{ method, path, body string }
	tries := []try{
		{"GET", "/", ""},
		{"GET", "/app.js", ""},
		{"POST", "/tasks", send},
		{"GET", "/tasks/" + task + "/events", ""},
		{"POST", "/tasks/" + task + "/events?format=ag-ui", agui},
		{"POST", "/ag-ui", agui},
		{"POST", "/api/chat", chat},
		{"GET", "/api/chat/chat-1/stream", ""},
	}
	got := map[string]int{}
	want := map[string]int{}
	for _, tr := range tries {
		for _, c := range []struct {
			name string
			host string
			hdr  []string
		}{
			{"foreign host", foreign, nil},
			{"foreign host, its own origin", foreign, []string{"Origin", "http://" + foreign}},
			{"loopback host, foreign origin", "127.0.0.1:" + g.port, []string{"Origin", "http://" + foreign}},
			{"loopback host, null origin", "localhost:" + g.port, []string{"Origin", "null"}},
			{"loopback name, other port", "localhost:1", nil},
		} {
			key := tr.method + " " + tr.path + " / " + c.name
			st, body := g.call(t, tr.method, tr.path, c.host, tr.body, append(c.hdr, "Content-Type", "application/json")...)
			got[key] = st
			want[key] = http.StatusForbidden
			if st == http.StatusForbidden && !strings.Contains(body, "relay: ") {
				t.Errorf("%s: body %q does not say why", key, body)
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("refusals (-want +got):\n%s", d)
	}
	if n := g.p.tasks.Len(); n != 1 {
		t.Errorf("%d tasks known after the refused requests, want the 1 named", n)
	}

	// The page's own requests pass, by each loopback name.
	for _, host := range []string{"127.0.0.1:" + g.port, "localhost:" + g.port, "LOCALHOST:" + g.port, "[::1]:" + g.port} {
		origin := []string{"Origin", "http://" + strings.ToLower(host), "Content-Type", "application/json"}
		st, body := g.call(t, "POST", "/tasks", host, send, origin...)
		if st != 200 || !strings.Contains(body, `"task"`) {
			t.Errorf("POST /tasks by %s: %d %s", host, st, body)
		}
		if st, _ := g.call(t, "GET", "/", host, ""); st != 200 {
			t.Errorf("GET / by %s: %d", host, st)
		}
		if st, body := g.call(t, "GET", "/tasks/"+task+"/events", host, ""); st != 200 || !strings.Contains(body, `"type":"result"`) {
			t.Errorf("GET events by %s: %d %.200s", host, st, body)
		}
	}
}

// dispatch sends a turn to g's agent without g — as `send --async` in
// another terminal does — and returns its task.
func (g *guarded) dispatch(t *testing.T) string {
	t.Helper()
	id, err := g.c.Dispatch(g.ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(agenttest.RealisticName)))
	if err != nil {
		t.Fatal(err)
	}
	return string(id)
}

// A browser reads only the tasks sent through the server or named to it:
// a task created elsewhere is 404 on every route that reads one, until
// --any-task.
func TestWebTaskVisibility(t *testing.T) {
	t.Parallel()
	g := startGuarded(t, webFlags{listen: "127.0.0.1:0"}, true)
	host := "127.0.0.1:" + g.port
	elsewhere := g.dispatch(t)
	st, body := g.call(t, "GET", "/tasks/"+elsewhere+"/events", host, "")
	if d := cmp.Diff("404 "+`{"error":"relay: task not found: not one started through this relay"}`+"\n", strconv.Itoa(st)+" "+body); d != "" {
		t.Errorf("a task created elsewhere (-want +got):\n%s", d)
	}
	agui := `{"threadId":"th-1","runId":"r1","messages":[]}`
	if st, _ := g.call(t, "POST", "/tasks/"+elsewhere+"/events?format=ag-ui", host, agui, "Content-Type", "application/json"); st != 404 {
		t.Errorf("AG-UI reconnect to a task created elsewhere: %d, want 404", st)
	}
	if st, _ := g.call(t, "GET", "/tasks/"+elsewhere+"/events?format=ai-sdk", host, ""); st != 404 {
		t.Errorf("AI SDK stream of a task created elsewhere: %d, want 404", st)
	}
	if s := g.ws.relay.Stats(); s.Follows != 0 || s.Tasks != 0 {
		t.Errorf("refused reads started something: %+v", s)
	}

	// Sent through the server: readable.
	st, body = g.call(t, "POST", "/tasks", host, `{"text":"realistic"}`, "Content-Type", "application/json")
	if st != 200 {
		t.Fatalf("POST /tasks: %d %s", st, body)
	}
	var sentBody struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal([]byte(body), &sentBody); err != nil || sentBody.Task == "" {
		t.Fatalf("POST /tasks answered %s (%v), want {\"task\": …}", body, err)
	}
	mine := sentBody.Task
	if st, body := g.call(t, "GET", "/tasks/"+mine+"/events", host, ""); st != 200 || !strings.Contains(body, `"type":"result"`) {
		t.Errorf("a task sent through the server: %d %.200s", st, body)
	}

	// Named on the command line, or with --any-task: readable.
	named := startGuarded(t, webFlags{listen: "127.0.0.1:0", tasks: []string{"placeholder"}}, true)
	id := named.dispatch(t)
	named.p.tasks.Add(id) // what --task <id> does at start
	if st, _ := named.call(t, "GET", "/tasks/"+id+"/events", "127.0.0.1:"+named.port, ""); st != 200 {
		t.Errorf("--task: %d, want 200", st)
	}
	anyTask := startGuarded(t, webFlags{listen: "127.0.0.1:0", anyTask: true}, true)
	id = anyTask.dispatch(t)
	if st, _ := anyTask.call(t, "GET", "/tasks/"+id+"/events", "127.0.0.1:"+anyTask.port, ""); st != 200 {
		t.Errorf("--any-task: %d, want 200", st)
	}
}

// Beyond loopback, every request needs the token: without it 401, with it
// (query, which sets the cookie for the page; the cookie; a bearer header)
// the request passes. A host reached by its IP is accepted, a name is not
// unless allowed.
func TestWebToken(t *testing.T) {
	g := startGuarded(t, webFlags{listen: "0.0.0.0:0", allowRemote: true, token: "s3cret-token", allowHosts: []string{"relay.example"}}, false)
	ip := "10.1.2.3:" + g.port
	cases := []struct {
		name, path, host string
		hdr              []string
		want             int
	}{
		{"no token", "/", ip, nil, 401},
		{"wrong token", "/?token=nope", ip, nil, 401},
		{"wrong bearer", "/", ip, []string{"Authorization", "Bearer nope"}, 401},
		{"query token", "/?token=s3cret-token", ip, nil, 200},
		{"cookie", "/", ip, []string{"Cookie", relay.TokenCookie + "=s3cret-token"}, 200},
		{"bearer", "/", ip, []string{"Authorization", "Bearer s3cret-token"}, 200},
		{"bearer, lower case", "/", ip, []string{"Authorization", "bearer s3cret-token"}, 200},
		{"bearer, upper case", "/", ip, []string{"Authorization", "BEARER s3cret-token"}, 200},
		{"basic scheme", "/", ip, []string{"Authorization", "Basic s3cret-token"}, 401},
		{"allowed name", "/", "relay.example:" + g.port, []string{"Authorization", "Bearer s3cret-token"}, 200},
		{"other name, with the token", "/", "attacker.test:" + g.port, []string{"Authorization", "Bearer s3cret-token"}, 403},
		{"events without token", "/tasks/x/events", ip, nil, 401},
		{"send without token", "/tasks", ip, nil, 401},
	}
	got, want := map[string]int{}, map[string]int{}
	for _, c := range cases {
		method := "GET"
		if c.path == "/tasks" {
			method = "POST"
		}
		st, _ := g.call(t, method, c.path, c.host, "", c.hdr...)
		got[c.name], want[c.name] = st, c.want
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The query token sets an HttpOnly, SameSite=Strict cookie for the page.
	req, _ := http.NewRequestWithContext(g.ctx, "GET", "http://"+g.addr+"/?token=s3cret-token", nil)
	req.Host = ip
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := cmp.Diff(relay.TokenCookie+"=s3cret-token; Path=/; HttpOnly; SameSite=Strict", resp.Header.Get("Set-Cookie")); d != "" {
		t.Errorf("cookie (-want +got):\n%s", d)
	}
	// A generated token is long and random.
	p1, _ := newWebPolicy(webFlags{listen: "0.0.0.0:0", allowRemote: true}, "0.0.0.0:1", false)
	p2, _ := newWebPolicy(webFlags{listen: "0.0.0.0:0", allowRemote: true}, "0.0.0.0:1", false)
	if len(p1.token) != 48 || p1.token == p2.token {
		t.Errorf("generated tokens %q, %q: want 48 random hex digits each", p1.token, p2.token)
	}
}
