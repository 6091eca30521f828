package relay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

func TestMain(m *testing.M) {
	runRelayChild() // in a child of TestRelayFloodRSS: serves the relay, then exits
	goleak.VerifyTestMain(testdep.Reporting(m))
}

// gatedScript is a trajectory of n envelopes (with reordering, duplicates
// and plain-text updates) that waits for gate before its first update, so
// a reader connected before Release sees every op live.
func gatedScript(name string, n int, gate string) agenttest.Script {
	sc := agenttest.Trajectory(n, agenttest.Reorder(2), agenttest.Duplicate(2), agenttest.PlainText(2), agenttest.Named(name))
	sc.Steps = append([]agenttest.Step{{Gate: gate}}, sc.Steps...)
	return sc
}

// setup starts an agent playing sc, a relay over it, and dispatches a turn.
type setup struct {
	agent  *agenttest.Agent
	follow *countingFollower
	h      *relay.Handler
	srv    *httptest.Server
	task   string
	url    string
}

func newSetup(t *testing.T, sc agenttest.Script, opts ...relay.Option) *setup {
	t.Helper()
	agent := startAgent(t)
	agent.Register(sc)
	c := newClient(t, agent)
	f := &countingFollower{c: c}
	h := relay.New(testCtx(t), f, append([]relay.Option{relay.WithAuthorizer(relay.AllowAll)}, opts...)...)
	srv := relayServer(t, h)
	task := dispatch(t, c, sc.Name)
	return &setup{agent: agent, follow: f, h: h, srv: srv, task: task, url: eventsURL(srv.URL, task, nil)}
}

// live reads a whole turn that starts after the reader connected: every
// event carries a cursor.
func (s *setup) live(t *testing.T, gate string) []event {
	t.Helper()
	ctx := testCtx(t)
	c, err := open(ctx, s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	s.agent.Release(gate)
	evs, err := c.rest()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if len(evs) < 10 || evs[len(evs)-1].Op.Type != schema.OpResult {
		t.Fatalf("live read ended after %d ops without the settling op last", len(evs))
	}
	for i, ev := range evs {
		if ev.ID == "" {
			t.Fatalf("live op %d has no id", i)
		}
	}
	return evs
}

// shown is what a page shows of a view: comparable across receivers, whose
// counters of duplicates they saw differ by design.
type shown struct {
	Blocks    []schema.Block
	ToolCalls []schema.ToolCall
	Sealed    bool
}

// show drops the blocks' at: informational, it is the time a follow saw
// the block (a replica that backfills from history sees another).
func show(v schema.View) shown {
	blocks := slices.Clone(v.Blocks)
	for i := range blocks {
		blocks[i].At = time.Time{}
	}
	return shown{blocks, v.ToolCalls, v.Sealed}
}

func diffView(t *testing.T, want, got schema.View) {
	t.Helper()
	w, _ := json.Marshal(show(want))
	g, _ := json.Marshal(show(got))
	if d := cmp.Diff(string(w), string(g)); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
}

// Resuming after the k-th op, for every k, gives exactly the ops after it.
func TestResumeAtEveryOpBoundary(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("resume", 30, "go"), relay.WithTTL(time.Hour))
	all := s.live(t, "go")
	ctx := testCtx(t)
	for k := 1; k <= len(all); k++ {
		for _, via := range []string{"header", "query"} {
			var got []event
			var err error
			if via == "header" {
				got, err = readAll(ctx, s.url, all[k-1].ID)
			} else {
				got, err = readAll(ctx, eventsURL(s.srv.URL, s.task, url.Values{"after": {all[k-1].ID}}), "")
			}
			if err != nil {
				t.Fatalf("k=%d %s: %v", k, via, err)
			}
			want := all[k:]
			if k == len(all) {
				// A reader that has it all gets the settling op again, so
				// that it learns the turn is over.
				want = all[k-1:]
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("resume after op %d via %s (-want +got):\n%s", k, via, d)
			}
		}
	}
	if n := s.follow.n.Load(); n != 1 {
		t.Errorf("upstream follows = %d, want 1", n)
	}
}

// A reader that drops its connection after every event while the turn runs
// and resumes with its cursor ends with the uncut op sequence, each op once.
func TestResumeWhileLive(t *testing.T) {
	t.Parallel()
	sc := gatedScript("resume-live", 40, "go").WithPause(2 * time.Millisecond)
	s := newSetup(t, sc, relay.WithTTL(time.Hour))
	ctx := testCtx(t)
	uncut, err := open(ctx, s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer uncut.close()
	// The first resuming reader connects before the turn starts, so that
	// its first event is a live one with a cursor (a reader without one
	// that comes later gets a snapshot, whose ops carry none).
	first, err := open(ctx, s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	s.agent.Release("go")
	var got []event
	last := ""
	for done := false; !done; {
		c := first
		if last != "" || c == nil {
			if c, err = open(ctx, s.url, last); err != nil {
				t.Fatal(err)
			}
		}
		first = nil
		ev, err := c.next()
		c.close()
		switch {
		case errors.Is(err, io.EOF):
			done = true
		case err != nil:
			t.Fatal(err)
		default:
			if ev.Op.Type == schema.OpResult && len(got) > 0 && got[len(got)-1].Op.Type == schema.OpResult {
				done = true // the settling op again: it had it all
				break
			}
			if ev.ID == "" {
				t.Fatalf("event %d has no cursor to resume from: %+v", len(got), ev)
			}
			got = append(got, ev)
			last = ev.ID
		}
	}
	want, err := uncut.rest()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("resumed sequence (-uncut +resumed):\n%s", d)
	}
}

// A cursor the relay cannot resume from gives the view as a snapshot.
func TestUnknownCursorSnapshots(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("snap", 20, "go"), relay.WithTTL(time.Hour))
	all := s.live(t, "go")
	want := viewOf(s.task, ops(all))
	real := all[3].ID
	parts := strings.Split(real, ".")
	ctx := testCtx(t)
	for name, cur := range map[string]string{
		"garbage":    "not a cursor",
		"foreign":    "0123456789abcdef." + parts[1] + "." + parts[2],
		"other log":  parts[0] + ".999." + parts[2],
		"beyond end": parts[0] + "." + parts[1] + ".100000",
		"too long":   strings.Repeat("a", 200),
		"negative":   parts[0] + "." + parts[1] + ".-1",
		"non-ascii":  "é." + parts[1] + "." + parts[2],
	} {
		t.Run(name, func(t *testing.T) {
			got, err := readAll(ctx, s.url, cur)
			if err != nil {
				t.Fatal(err)
			}
			diffView(t, want, viewOf(s.task, ops(got)))
			for id, n := range blockIDs(ops(got)) {
				if n != 1 {
					t.Errorf("block %s sent %d times in one snapshot", id, n)
				}
			}
			// Only the snapshot's last op moves the cursor: a cut inside a
			// snapshot gives a snapshot again.
			for i, ev := range got[:len(got)-1] {
				if ev.ID != "" {
					t.Fatalf("snapshot op %d has id %q", i, ev.ID)
				}
			}
			if got[len(got)-1].ID != all[len(all)-1].ID {
				t.Errorf("snapshot's last id = %q, want %q", got[len(got)-1].ID, all[len(all)-1].ID)
			}
		})
	}
}

// A foreign cursor mid-turn: snapshot, then live, ending with the uncut view.
func TestUnknownCursorMidTurn(t *testing.T) {
	t.Parallel()
	sc := gatedScript("snap-mid", 20, "go")
	sc.Steps[10].Gate = "half"
	s := newSetup(t, sc, relay.WithTTL(time.Hour))
	ctx := testCtx(t)
	first, err := open(ctx, s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer first.close()
	s.agent.Release("go")
	for { // until the first reader saw something of the turn
		ev, err := first.next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Op.Type == schema.OpBlock {
			break
		}
	}
	c, err := open(ctx, s.url, "0123456789abcdef.1.1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	s.agent.Release("half")
	got, err := c.rest()
	if err != nil {
		t.Fatal(err)
	}
	all, err := readAll(ctx, s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	diffView(t, viewOf(s.task, ops(all)), viewOf(s.task, ops(got)))
	if v := viewOf(s.task, ops(got)); !v.Sealed || len(v.ToolCalls) == 0 {
		t.Errorf("view sealed=%v with %d tool calls, want a sealed turn with tool calls", v.Sealed, len(v.ToolCalls))
	}
}

// A reconnect after the turn settled gets the final view and the end.
func TestReconnectAfterSettle(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("settled", 15, "go"), relay.WithTTL(time.Hour))
	all := s.live(t, "go")
	got, err := readAll(testCtx(t), s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	diffView(t, viewOf(s.task, ops(all)), viewOf(s.task, ops(got)))
	if got[len(got)-1].Op.Type != schema.OpResult {
		t.Errorf("last op %q, want the settling op", got[len(got)-1].Op.Type)
	}
}

// 100 readers of one task share one upstream and get the same ops.
func TestFanOutOneUpstream(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("fan", 30, "go"))
	ctx := testCtx(t)
	const n = 100
	conns := make([]*conn, n)
	for i := range conns {
		c, err := open(ctx, s.url, "")
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		conns[i] = c
	}
	s.agent.Release("go")
	got := make([][]event, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			got[i], errs[i] = c.rest()
		})
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatalf("reader %d: %v", i, errs[i])
		}
		if d := cmp.Diff(got[0], got[i]); d != "" {
			t.Fatalf("reader %d differs from reader 0:\n%s", i, d)
		}
	}
	if v := viewOf(s.task, ops(got[0])); !v.Sealed {
		t.Errorf("view not sealed")
	}
	if f := s.follow.n.Load(); f != 1 {
		t.Errorf("upstream follows = %d, want 1", f)
	}
}

// bigScript sends n tool output chunks of size bytes each.
func bigScript(name string, n, size int, gate string) agenttest.Script {
	steps := []agenttest.Step{{Gate: gate}, {Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "c1", Seq: 1,
		Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "dump"}}}}
	chunk := strings.Repeat("x", size-1) + "\n"
	for i := range n {
		steps = append(steps, agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "c1",
			Seq: int64(i + 2), Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "dump", Chunk: chunk}}})
	}
	return agenttest.Script{Name: name, Steps: steps, Final: a2a.TaskStateCompleted, FinalText: "done"}
}

// smallBuffers makes every accepted connection's send buffer small, so that
// a reader that stops reading blocks the server's writes after a few KiB.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// A reader that stops reading is dropped; the others and the upstream go on.
func TestStalledSubscriberDoesNotStallOthers(t *testing.T) {
	t.Parallel()
	agent := startAgent(t)
	agent.Register(bigScript("stall", 100, 4<<10, "go"))
	c := newClient(t, agent)
	h := relay.New(testCtx(t), c, relay.WithAuthorizer(relay.AllowAll), relay.WithWriteTimeout(time.Second))
	mux := http.NewServeMux()
	mux.Handle("/relay/", http.StripPrefix("/relay", h))
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(func() { _ = h.Close(); srv.Close() })
	task := dispatch(t, c, "stall")
	u := eventsURL(srv.URL, task, nil)
	ctx := testCtx(t)
	// The stalled reader: a raw connection that sends its request and
	// never reads, with a small receive buffer.
	d := net.Dialer{}
	raw, err := d.DialContext(ctx, "tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	if _, err := fmt.Fprintf(raw, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", strings.TrimPrefix(u, srv.URL)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stalled reader to subscribe", func() bool { return h.Stats().Subscribers == 1 })
	cn, err := open(ctx, u, "")
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	agent.Release("go")
	got, err := cn.rest()
	if err != nil {
		t.Fatal(err)
	}
	v := viewOf(task, ops(got))
	if !v.Sealed || len(v.ToolCalls) != 1 || v.ToolCalls[0].Chunks != 100 {
		t.Fatalf("healthy reader: sealed=%v calls=%d, want sealed with one call of 100 chunks", v.Sealed, len(v.ToolCalls))
	}
	waitFor(t, "the stalled reader to be dropped", func() bool { return h.Stats().Subscribers == 0 })
}

// waitFor polls cond: for states that have no signal to wait on (a
// subscriber counted, a task evicted).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testdep.Budget(30 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A settled task nobody watches is evicted after the TTL; a reconnect with
// its old cursor then gets a snapshot from a new follow.
func TestEviction(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("evict", 10, "go"), relay.WithTTL(50*time.Millisecond))
	all := s.live(t, "go")
	waitFor(t, "eviction", func() bool { return s.h.Stats().Tasks == 0 })
	got, err := readAll(testCtx(t), s.url, all[len(all)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	diffView(t, viewOf(s.task, ops(all)), viewOf(s.task, ops(got)))
	if f := s.follow.n.Load(); f != 2 {
		t.Errorf("follows = %d, want 2 (one before, one after eviction)", f)
	}
}

// Refusals are JSON, with the right status, and never a stream.
func TestAccess(t *testing.T) {
	t.Parallel()
	agent := startAgent(t)
	agent.Register(gatedScript("acc", 3, "never"))
	c := newClient(t, agent)
	task := dispatch(t, c, "acc")
	deny := func(r *http.Request, id string) error {
		if r.Header.Get("Authorization") == "Bearer ok" {
			return nil
		}
		if id == "hidden" {
			return fmt.Errorf("no such task: %w", relay.ErrNotFound)
		}
		return errors.New("relay test: not yours")
	}
	cases := []struct {
		name   string
		opts   []relay.Option
		task   string
		query  string
		hdr    map[string]string
		status int
		body   string
		acao   string
	}{
		{name: "no policy", task: task, status: 403, body: "relay: no access policy configured"},
		{name: "denied", opts: []relay.Option{relay.WithAuthorizer(deny)}, task: task, status: 403, body: "relay test: not yours"},
		{name: "hidden", opts: []relay.Option{relay.WithAuthorizer(deny)}, task: "hidden", status: 404, body: "no such task: relay: task not found"},
		{name: "unknown task", opts: []relay.Option{relay.WithAuthorizer(relay.AllowAll)}, task: "no-such-task", status: 404, body: "relay: task not found"},
		{name: "bad id", opts: []relay.Option{relay.WithAuthorizer(relay.AllowAll)}, task: "a%20b", status: 400, body: "relay: task id has a byte 0x20 at 1 that is not allowed"},
		{name: "unknown format", opts: []relay.Option{relay.WithAuthorizer(relay.AllowAll)}, task: task, query: "format=xml", status: 400, body: `relay: unknown format "xml"`},
		{name: "allowed", opts: []relay.Option{relay.WithAuthorizer(deny)}, task: task, hdr: map[string]string{"Authorization": "Bearer ok", "Origin": "http://evil.example"}, status: 200},
		{name: "cors", opts: []relay.Option{relay.WithAuthorizer(relay.AllowAll), relay.WithCORS("http://app.example")}, task: task, hdr: map[string]string{"Origin": "http://app.example"}, status: 200, acao: "http://app.example"},
		{name: "cors other origin", opts: []relay.Option{relay.WithAuthorizer(relay.AllowAll), relay.WithCORS("http://app.example")}, task: task, hdr: map[string]string{"Origin": "http://evil.example"}, status: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := relay.New(testCtx(t), c, tc.opts...)
			srv := relayServer(t, h)
			u := srv.URL + "/relay/tasks/" + tc.task + "/events"
			if tc.query != "" {
				u += "?" + tc.query
			}
			req, _ := http.NewRequestWithContext(testCtx(t), http.MethodGet, u, nil)
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.status)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tc.acao {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tc.acao)
			}
			if tc.status == 200 {
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			var body struct{ Error string }
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.body, body.Error); d != "" {
				t.Errorf("error body (-want +got):\n%s", d)
			}
		})
	}
}

// roundRobin forwards each request to the next backend in turn.
func roundRobin(t *testing.T, backends ...*httptest.Server) *httptest.Server {
	t.Helper()
	var next atomic.Int64
	proxies := make([]http.Handler, len(backends))
	for i, b := range backends {
		u, _ := url.Parse(b.URL)
		proxies[i] = testdep.Proxy(httputil.NewSingleHostReverseProxy(u))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[int(next.Add(1)-1)%len(proxies)].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Two replicas share nothing: a reader whose reconnects alternate between
// them still ends with the uncut view, each block once.
func TestReplicasRoundRobin(t *testing.T) {
	t.Parallel()
	agent := startAgent(t)
	sc := gatedScript("replicas", 40, "go").WithPause(2 * time.Millisecond)
	agent.Register(sc)
	c := newClient(t, agent)
	fa, fb := &countingFollower{c: c}, &countingFollower{c: c}
	a := relayServer(t, relay.New(testCtx(t), fa, relay.WithAuthorizer(relay.AllowAll)))
	b := relayServer(t, relay.New(testCtx(t), fb, relay.WithAuthorizer(relay.AllowAll)))
	lb := roundRobin(t, a, b)
	task := dispatch(t, c, "replicas")
	ctx := testCtx(t)
	direct, err := open(ctx, eventsURL(a.URL, task, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	defer direct.close()
	agent.Release("go")

	u := eventsURL(lb.URL, task, nil)
	r := merge.NewReceiver(task, merge.Caps{})
	last := ""
	reconnects := 0
	moved := true // the last connection gave a cursor
	for {
		cn, err := open(ctx, u, last)
		if err != nil {
			t.Fatal(err)
		}
		var evs []event
		ended := false
		// A cut every three events, except that a connection after one
		// that gave no cursor reads on to its first: a snapshot carries its
		// cursor on its last event only, so a reader whose every cut lands
		// inside a snapshot (a load that lets the task run ahead of the
		// first connection) would start the same snapshot forever.
		for n := 0; n < 3 || (!moved && lastID("", evs) == ""); n++ {
			ev, err := cn.next()
			if errors.Is(err, io.EOF) {
				ended = true
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		cn.close()
		for _, ev := range evs {
			r.Apply(ev.Op)
		}
		moved = lastID("", evs) != ""
		last = lastID(last, evs)
		if ended {
			break
		}
		reconnects++
	}
	all, err := direct.rest()
	if err != nil {
		t.Fatal(err)
	}
	got := r.View()
	diffView(t, viewOf(task, ops(all)), got)
	if !got.Sealed || reconnects < 4 {
		t.Errorf("sealed=%v after %d reconnects, want sealed after several", got.Sealed, reconnects)
	}
	if fa.n.Load() != 1 || fb.n.Load() != 1 {
		t.Errorf("follows a=%d b=%d, want one each", fa.n.Load(), fb.n.Load())
	}
}

// Close ends open streams and the upstream follows, and leaves nothing
// running (goleak in TestMain).
func TestCloseEndsStreams(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("close", 5, "never"))
	c, err := open(testCtx(t), s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if st := s.h.Stats(); st.Follows != 1 || st.Subscribers != 1 {
		t.Fatalf("stats %+v, want one follow and one subscriber", st)
	}
	if err := s.h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.rest(); err != nil {
		t.Fatal(err)
	}
	if st := s.h.Stats(); st != (relay.Stats{}) {
		t.Errorf("stats after Close %+v, want zero", st)
	}
	resp, err := http.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("status after Close = %d, want 503", resp.StatusCode)
	}
}
