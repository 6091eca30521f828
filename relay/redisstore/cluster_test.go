package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// cluster is what the acceptance tests run: relay replicas, each with its
// own Store client and HTTP server, behind a round-robin proxy, plus a
// worker Handler that only publishes (no HTTP server), all on one Redis.
// (startWorker runs a worker as a process of its own instead.)
type cluster struct {
	worker   *relay.Handler
	replicas []*relay.Handler
	proxy    *httptest.Server
	urls     []string       // each replica's own base URL
	hits     []atomic.Int64 // requests per replica
}

// replicaConfig gives replica i its Follower (nil: it serves only what is
// published) and its Agent for /api/chat (nil: none mounted).
type replicaConfig func(i int) (relay.Follower, relay.Agent)

// newCluster starts n replicas.
func newCluster(t *testing.T, r *redisServer, n int, rc replicaConfig, opts ...relay.Option) *cluster {
	t.Helper()
	ctx := testCtx(t)
	cl := &cluster{hits: make([]atomic.Int64, n)}
	cl.worker = relay.New(ctx, nil, append([]relay.Option{relay.WithStore(newStore(t, r))}, opts...)...)
	t.Cleanup(func() { _ = cl.worker.Close() })
	var targets []*url.URL
	for i := range n {
		var f relay.Follower
		var agent relay.Agent
		if rc != nil {
			f, agent = rc(i)
		}
		h := relay.New(ctx, f, append([]relay.Option{relay.WithStore(newStore(t, r)), relay.WithAuthorizer(relay.AllowAll),
			relay.WithReconnectDelay(10 * time.Millisecond)}, opts...)...)
		mux := http.NewServeMux()
		mux.Handle("/relay/", http.StripPrefix("/relay", h))
		if agent != nil {
			chat := h.Chat(agent)
			mux.Handle("/api/chat", chat)
			mux.Handle("/api/chat/", chat)
		}
		srv := httptest.NewServer(mux)
		t.Cleanup(func() {
			_ = h.Close() // ends the streams, so that srv.Close does not wait on them
			srv.Close()
		})
		u, _ := url.Parse(srv.URL)
		targets = append(targets, u)
		cl.urls = append(cl.urls, srv.URL)
		cl.replicas = append(cl.replicas, h)
	}
	var next atomic.Uint64
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := int(next.Add(1) % uint64(n))
			cl.hits[i].Add(1)
			pr.SetURL(targets[i])
		},
	}
	cl.proxy = httptest.NewServer(testdep.Proxy(rp))
	t.Cleanup(cl.proxy.Close)
	return cl
}

func (cl *cluster) eventsURL(task string) string {
	return cl.proxy.URL + "/relay/tasks/" + task + "/events"
}

// attach runs a turn of the agent's script name in the worker and returns
// its task id (from the first op) and a channel that yields the stream once
// the turn is over.
func (cl *cluster) attach(t *testing.T, c *client.Client, name string) (string, <-chan *client.Stream) {
	t.Helper()
	s, err := c.SendText(testCtx(t), name)
	if err != nil {
		t.Fatal(err)
	}
	return cl.attachStream(t, s)
}

// attachStream is attach for a stream the test started.
func (cl *cluster) attachStream(t *testing.T, s *client.Stream) (string, <-chan *client.Stream) {
	t.Helper()
	task := make(chan string, 1)
	done := make(chan *client.Stream, 1)
	go func() {
		for u := range cl.worker.Attach(s) {
			if op, ok := u.Op(); ok && op.Task != "" {
				select {
				case task <- op.Task:
				default:
				}
			}
		}
		done <- s
	}()
	select {
	case id := <-task:
		return id, done
	case s := <-done:
		_, err := s.Outcome()
		t.Fatalf("the turn ended before any op: %v", err)
	}
	return "", nil
}

func startAgent(t *testing.T, scripts ...agenttest.Script) *agenttest.Agent {
	t.Helper()
	a, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)), agenttest.WithScripts(scripts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func newClient(t *testing.T, a *agenttest.Agent) *client.Client {
	t.Helper()
	c, err := client.New(testCtx(t), a.CardURL(agenttest.V1), client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// browser is a page's EventSource: it reads a task's events, and drops the
// connection after a random number of events that carry an id (the only
// ones that move its cursor), reconnecting with Last-Event-ID, until a
// response ends after the settling op. A 503 (the relay's store is down) is
// retried, as a page's own retry would.
type browser struct {
	ops      []schema.Op
	conns    int
	refusals int
	last     string // the cursor
}

func (b *browser) run(ctx context.Context, u string, rng *rand.Rand, maxPerConn int) error {
	last := &b.last
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("after %d connections and %d ops: %w", b.conns, len(b.ops), err)
		}
		resp, err := get(ctx, u, *last)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" {
			resp.Body.Close()
			b.refusals++
			// A page waits Retry-After; the test waits less, to finish sooner.
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		b.conns++
		cut := 1 + rng.IntN(maxPerConn)
		ended, err := b.read(resp.Body, last, cut)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if ended {
			return nil
		}
	}
}

// read reads one response until cut events with an id, or its end; ended
// reports an end after the settling op.
func (b *browser) read(body io.Reader, last *string, cut int) (ended bool, err error) {
	r := ssewire.NewStrictReader(bufio.NewReader(body), ssewire.DefaultMaxEventBytes)
	settled := false
	for {
		ev, err := r.NextEvent()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return settled, nil
		}
		if err != nil {
			return false, nil // the relay ended the response abruptly (its store failed): reconnect
		}
		if !ev.HasData {
			continue
		}
		var op schema.Op
		if err := json.Unmarshal(ev.Data, &op); err != nil {
			return false, fmt.Errorf("op %q: %w", ev.Data, err)
		}
		b.ops = append(b.ops, op)
		settled = op.Type == schema.OpResult && op.Result.Verdict != schema.VerdictIncomplete
		if ev.ID != "" {
			*last = ev.ID
			if cut--; cut == 0 && !settled {
				return false, nil
			}
		}
	}
}

func get(ctx context.Context, u, lastID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	return http.DefaultClient.Do(req)
}

// shown is what a page shows of a view: comparable across receivers.
type shown struct {
	Blocks    []schema.Block
	ToolCalls []schema.ToolCall
	Sealed    bool
}

func show(v schema.View) shown {
	blocks := slices.Clone(v.Blocks)
	for i := range blocks {
		blocks[i].At = time.Time{} // when a follow saw it: informational
	}
	return shown{blocks, v.ToolCalls, v.Sealed}
}

func viewOf(task string, ops []schema.Op) schema.View {
	r := merge.NewReceiver(task, merge.Caps{})
	for _, op := range ops {
		r.Apply(op)
	}
	return r.View()
}

// repeated lists the block ops a reader got more than once.
func repeated(ops []schema.Op) []string {
	m := map[string]int{}
	var out []string
	for _, op := range ops {
		if op.Type == schema.OpBlock {
			k := fmt.Sprintf("%s/%s/%d/%s", op.Turn, op.Block.Key.StreamKey, op.Block.Key.Seq, op.Block.Key.ID)
			if m[k]++; m[k] == 2 {
				out = append(out, k)
			}
		}
	}
	return out
}

type verdict struct {
	Verdict schema.Verdict
	Reply   string
}

func lastResult(ops []schema.Op) verdict {
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Type == schema.OpResult {
			return verdict{ops[i].Result.Verdict, ops[i].Result.Reply}
		}
	}
	return verdict{}
}

// browse runs n browsers on u at once and returns them.
func browse(t *testing.T, ctx context.Context, u string, n, maxPerConn int) []*browser {
	t.Helper()
	bs := make([]*browser, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		bs[i] = &browser{}
		wg.Go(func() { errs[i] = bs[i].run(ctx, u, rand.New(rand.NewPCG(uint64(i), 7)), maxPerConn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("browser %d: %v", i, err)
		}
	}
	return bs
}

// checkBrowsers asserts what every browser got: each block once, the
// worker's whole view, and its result.
func checkBrowsers(t *testing.T, task string, bs []*browser, want schema.View, wantResult verdict) {
	t.Helper()
	for i, b := range bs {
		if rep := repeated(b.ops); len(rep) > 0 {
			t.Errorf("browser %d (%d connections): blocks sent more than once: %v", i, b.conns, rep)
		}
		if d := cmp.Diff(show(want), show(viewOf(task, b.ops))); d != "" {
			t.Errorf("browser %d (%d connections): view (-worker +browser):\n%s", i, b.conns, d)
		}
		if d := cmp.Diff(wantResult, lastResult(b.ops)); d != "" {
			t.Errorf("browser %d: result (-want +got):\n%s", i, d)
		}
	}
}

// A worker process Attaches its own turn (a relay Handler without an HTTP
// server, in this test binary run again as a child process); three
// replicas in the test's process, behind a round-robin proxy, serve
// browsers that reconnect after random events with Last-Event-ID, so
// nearly every reconnect lands on another replica: each gets every block
// once, the worker's uncut view and the right result.
func TestReplicasServeAnAttachedTurn(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	agent := startAgent(t, agenttest.Trajectory(60, agenttest.Named("long"), agenttest.Reorder(3), agenttest.Duplicate(4),
		agenttest.PauseEvery(5*time.Millisecond)))
	cl := newCluster(t, r, 3, nil)
	task, done := startWorker(t, r, agent, "long")
	bs := browse(t, testCtx(t), cl.eventsURL(task), 6, 5)
	w := <-done
	if w.Err != "" {
		t.Fatal(w.Err)
	}
	if len(w.View.Blocks) < 10 || !w.View.Sealed {
		t.Fatalf("the worker's view: %d blocks, sealed %v; want the script's turn", len(w.View.Blocks), w.View.Sealed)
	}
	if st := w.Stats; st.StoreErrors != 0 || st.StoreDown {
		t.Errorf("the worker's Stats after its turn: %+v, want no store error", st)
	}
	checkBrowsers(t, task, bs, w.View, verdict{schema.VerdictCompleted, w.Reply})
	conns := 0
	for _, b := range bs {
		conns += b.conns
	}
	for i := range cl.hits {
		if cl.hits[i].Load() == 0 {
			t.Errorf("replica %d served nothing", i)
		}
	}
	if conns < 2*len(bs) {
		t.Errorf("%d connections for %d browsers: the test did not reconnect", conns, len(bs))
	}
	t.Logf("%d browsers, %d connections over 3 replicas", len(bs), conns)
	// A task nothing published is a 404 on every replica, and holds no
	// mirror afterwards.
	for i := range cl.replicas {
		resp, err := get(testCtx(t), cl.eventsURL("no-such-task"), "")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("request %d for an unknown task: %d, want 404", i, resp.StatusCode)
		}
	}
	waitFor(t, func() bool {
		for _, h := range cl.replicas {
			if h.Stats().Tasks != 1 { // the turn's task: each replica served it
				return false
			}
		}
		return true
	}, "replicas holding only the served task")
	// After the turn: a reload (no cursor) on any replica gets the whole
	// view and the result from the store.
	for range 3 {
		b := &browser{}
		if err := b.run(testCtx(t), cl.eventsURL(task), rand.New(rand.NewPCG(1, 1)), 1<<30); err != nil {
			t.Fatal(err)
		}
		checkBrowsers(t, task, []*browser{b}, w.View, verdict{schema.VerdictCompleted, w.Reply})
	}
}
