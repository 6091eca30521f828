package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/v1query"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// countingFollower counts the upstream Follows of one replica.
type countingFollower struct {
	c *client.Client
	n *atomic.Int64
}

func (f countingFollower) Follow(ctx context.Context, id a2a.TaskID) (*client.Stream, error) {
	f.n.Add(1)
	return f.c.Follow(ctx, id)
}

// A task nobody attaches is followed upstream by one replica, however many
// serve its readers: the lease in Redis decides which.
func TestOneFollowPerTaskAcrossReplicas(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	agent := startAgent(t, agenttest.Trajectory(40, agenttest.Named("followed"), agenttest.PauseEvery(10*time.Millisecond)))
	var follows atomic.Int64
	cl := newCluster(t, r, 3, func(int) (relay.Follower, relay.Agent) {
		return countingFollower{newClient(t, agent), &follows}, nil
	})
	c := newClient(t, agent)
	id, err := c.Dispatch(testCtx(t), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("followed")))
	if err != nil {
		t.Fatal(err)
	}
	task := string(id)
	bs := browse(t, testCtx(t), cl.eventsURL(task), 6, 4)
	if got := follows.Load(); got != 1 {
		t.Errorf("%d upstream follows across 3 replicas, want 1", got)
	}
	// The reference: the task followed to its end by the test itself.
	s, err := c.Follow(testCtx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	for range s.Updates() {
	}
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	checkBrowsers(t, task, bs, s.View(), verdict{schema.VerdictCompleted, out.Reply})
	for i, h := range cl.replicas {
		if st := h.Stats(); st.Follows != 0 || st.StoreErrors != 0 {
			t.Errorf("replica %d after the turn: %+v, want no follow running and no store error", i, st)
		}
	}
}

// Redis is killed mid-turn and started again, empty: the worker's appends
// fail meanwhile (said in Stats), readers get 503 with Retry-After, and once
// Redis is back the worker puts its whole view into a new log, so every
// reader ends with the uncut view and the right result — the ops it already
// had come again only inside a snapshot.
func TestRedisRestartMidTurn(t *testing.T) {
	// Not parallel: Redis restarts on its port, which a parallel test's
	// connection could take meanwhile; serial tests run before the
	// parallel ones.
	r := startRedis(t)
	// Paced, so that the turn goes on while Redis is away: the test kills
	// Redis once a reader has a few ops and starts it again once the worker
	// saw an append fail.
	sc := agenttest.Trajectory(40, agenttest.Named("outage"), agenttest.PauseEvery(20*time.Millisecond))
	agent := startAgent(t, sc)
	cl := newCluster(t, r, 3, nil)
	task, done := cl.attach(t, newClient(t, agent), "outage")

	ctx := testCtx(t)
	bs := make([]*browser, 4)
	errs := make(chan error, len(bs))
	for i := range bs {
		bs[i] = &browser{}
		go func() { errs <- bs[i].run(ctx, cl.eventsURL(task), rand.New(rand.NewPCG(uint64(i), 9)), 3) }()
	}
	// Some ops are in Redis once a reader has them; then Redis goes, and
	// the turn goes on without it.
	first := &browser{}
	if err := first.runUntil(ctx, cl.eventsURL(task), 5); err != nil {
		t.Fatal(err)
	}
	r.Kill()
	waitFor(t, func() bool { return cl.worker.Stats().StoreDown }, "the worker to see Redis down")
	// Meanwhile a new reader gets 503 with Retry-After from every replica.
	for i, base := range cl.urls {
		resp, err := get(ctx, base+"/relay/tasks/another-task/events", "")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := []string{strconv.Itoa(resp.StatusCode), resp.Header.Get("Retry-After")}; !slices.Equal(got, []string{"503", "2"}) {
			t.Errorf("replica %d with Redis down: status, Retry-After = %v, want [503 2]", i, got)
		}
	}
	r.Restart()
	for range bs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s := <-done
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bs {
		if d := cmp.Diff(show(s.View()), show(viewOf(task, b.ops))); d != "" {
			t.Errorf("browser %d: view (-worker +browser):\n%s", i, d)
		}
		if d := cmp.Diff(verdict{schema.VerdictCompleted, out.Reply}, lastResult(b.ops)); d != "" {
			t.Errorf("browser %d: result (-want +got):\n%s", i, d)
		}
	}
	refusals := 0
	for _, b := range bs {
		refusals += b.refusals
	}
	if st := cl.worker.Stats(); st.StoreErrors == 0 || st.StoreDown {
		t.Errorf("worker stats after the outage: %+v, want errors counted and the store up", st)
	}
	t.Logf("503s: %d; worker: %+v", refusals, cl.worker.Stats())
}

// runUntil reads until n ops arrived (any connection), without cutting.
func (b *browser) runUntil(ctx context.Context, u string, n int) error {
	resp, err := get(ctx, u, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	last := ""
	_, err = b.read(io.LimitReader(resp.Body, 1<<20), &last, n)
	if err == nil && len(b.ops) < n {
		err = fmt.Errorf("%d ops, want %d", len(b.ops), n)
	}
	return err
}

// waitFor waits for cond, which a goroutine of the code under test makes
// true; the Handler offers no signal for it, so the test polls.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(testdep.Budget(30 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A /v1/query stream (a runtime that speaks plain REST SSE, PROTOCOL.md
// §5.3) published by a worker is served by every replica.
func TestQueryStreamAcrossReplicas(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	const calls = 12
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i := 1; i <= calls; i++ {
			for j, phase := range []string{"RUNNING", "COMPLETED"} {
				fmt.Fprintf(w, `data: {"content":%q,"projection":{"kind":"remote_agent_invocation","batchId":"b","toolCallId":"c%d","sequence":%d,"target":"reviewer-%d","phase":%q,"latencyMs":%d}}`+"\n\n",
					phase, i, j+1, i, phase, 10*j)
				fl.Flush()
				time.Sleep(3 * time.Millisecond) // the runtime's pace, not a synchronisation
			}
		}
		fmt.Fprint(w, "data: {\"content\":\"All reviews passed.\"}\n\n")
	}))
	defer srv.Close()
	cl := newCluster(t, r, 3, nil)
	s, err := v1query.Send(testCtx(t), srv.URL, "review", v1query.WithConversationID("conv-q1"))
	if err != nil {
		t.Fatal(err)
	}
	task, done := cl.attachStream(t, s)
	if task != "conv-q1" {
		t.Fatalf("task %q, want the conversation id", task)
	}
	bs := browse(t, testCtx(t), cl.eventsURL(task), 4, 3)
	<-done
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	if v := s.View(); len(v.ToolCalls) != calls {
		t.Fatalf("the worker saw %d tool calls, want %d", len(v.ToolCalls), calls)
	}
	checkBrowsers(t, "conv-q1", bs, s.View(), verdict{schema.VerdictCompleted, out.Reply})
}

// useChat's resume lands on a replica that never saw the chat's POST and
// whose agent lists no task of that chat: the chat → task map in Redis
// finds the turn. The AI SDK's own Chat class (package ai, pinned in
// relay/testdata/frontends) drives both requests.
func TestAISDKResumeOnAnotherReplica(t *testing.T) {
	t.Parallel()
	node, dir := aiSDK(t)
	r := startRedis(t)
	agent := startAgent(t)
	empty := startAgent(t) // knows no task: its ListTasks finds nothing
	cl := newCluster(t, r, 2, func(i int) (relay.Follower, relay.Agent) {
		if i == 0 {
			return nil, newClient(t, agent)
		}
		return nil, newClient(t, empty)
	})
	// POST goes to replica 0, the resume GET to replica 1.
	var resumes atomic.Int64
	var resumeStatus atomic.Int64
	targets := []string{"", ""}
	for i, h := range cl.replicas {
		_ = h
		targets[i] = replicaURL(t, cl, i)
	}
	split := httptest.NewServer(testdep.Proxy(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u, _ := url.Parse(targets[0])
			if pr.In.Method == http.MethodGet {
				u, _ = url.Parse(targets[1])
				resumes.Add(1)
			}
			pr.SetURL(u)
		},
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.Method == http.MethodGet {
				resumeStatus.Store(int64(resp.StatusCode))
			}
			return nil
		},
	}))
	defer split.Close()
	// aisdk.mjs takes a test's cases as one array and prints one result each.
	cfg, _ := json.Marshal([]map[string]any{{"api": split.URL + "/api/chat", "id": "chat-across", "text": "order 42?", "mode": "chat", "resume": true}})
	cmd := exec.CommandContext(testCtx(t), node, "aisdk.mjs", string(cfg))
	cmd.Dir = dir
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("node aisdk.mjs: %v\n%s", err, outb)
	}
	var results []struct {
		Messages []struct {
			Role  string `json:"role"`
			Parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"messages"`
		Status  string   `json:"status"`
		Errors  []string `json:"errors"`
		Resumed *struct {
			Before, After int
		} `json:"resumed"`
	}
	if err := json.Unmarshal(outb, &results); err != nil || len(results) != 1 {
		t.Fatalf("aisdk.mjs printed %q (%v), want one result", outb, err)
	}
	res := results[0]
	if resumes.Load() != 1 || resumeStatus.Load() != http.StatusOK {
		t.Fatalf("resume GETs %d, status %d; want one, answered 200 (204 is a chat the replica cannot find)", resumes.Load(), resumeStatus.Load())
	}
	var reply string
	last := res.Messages[len(res.Messages)-1]
	for _, p := range last.Parts {
		if p.Type == "text" {
			reply += p.Text
		}
	}
	type shown struct {
		Status, Role string
		Errors       string
		HasReply     bool
	}
	got := shown{res.Status, last.Role, strings.Join(res.Errors, "\n"), strings.Contains(reply, agenttest.RealisticReply)}
	want := shown{"ready", "assistant", "", true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("chat after the resume on the other replica (-want +got):\n%s\nreply: %q", d, reply)
	}
}

// replicaURL is replica i's own base URL (without the proxy).
func replicaURL(t *testing.T, cl *cluster, i int) string {
	t.Helper()
	return cl.urls[i]
}

// aiSDK returns node and the directory of the pinned front-end packages,
// installed ([testdep.NPM]).
func aiSDK(t *testing.T) (node, dir string) {
	t.Helper()
	dir, _ = filepath.Abs(filepath.Join("..", "testdata", "frontends"))
	return testdep.NPM(t, dir, "the AI SDK's check of a chat resumed on another replica"), dir
}

// The task's stream vanishes mid-turn, as an eviction under maxmemory
// (allkeys-*) does: the worker's next append finds it gone and publishes its
// whole view into a new stream; the replicas see the numbering start over
// and give their readers a snapshot. Every reader ends with the uncut view
// and the right result.
func TestLogEvictedMidTurn(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	agent := startAgent(t, agenttest.Trajectory(40, agenttest.Named("evicted"), agenttest.PauseEvery(20*time.Millisecond)))
	cl := newCluster(t, r, 3, nil)
	task, done := cl.attach(t, newClient(t, agent), "evicted")
	ctx := testCtx(t)
	first := &browser{}
	if err := first.runUntil(ctx, cl.eventsURL(task), 5); err != nil {
		t.Fatal(err)
	}
	bs := make([]*browser, 4)
	errs := make(chan error, len(bs))
	for i := range bs {
		bs[i] = &browser{}
		go func() { errs <- bs[i].run(ctx, cl.eventsURL(task), rand.New(rand.NewPCG(uint64(i), 11)), 3) }()
	}
	st := newStore(t, r)
	before, err := st.Read(ctx, task, "", 0)
	if err != nil || len(before) == 0 {
		t.Fatalf("the log before the eviction: %d records, %v", len(before), err)
	}
	evict(t, r, task) // the turn goes on: most of its ops are still to come
	for range bs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s := <-done
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bs {
		if d := cmp.Diff(show(s.View()), show(viewOf(task, b.ops))); d != "" {
			t.Errorf("browser %d: view (-worker +browser):\n%s", i, d)
		}
		if d := cmp.Diff(verdict{schema.VerdictCompleted, out.Reply}, lastResult(b.ops)); d != "" {
			t.Errorf("browser %d: result (-want +got):\n%s", i, d)
		}
	}
	after, err := st.Read(ctx, task, "", 0)
	if err != nil || len(after) == 0 || after[0].N != 1 || after[0].ID == before[0].ID {
		t.Fatalf("the log after: %d records from %+v (%v), want a new log numbered from 1", len(after), after[0], err)
	}
}

// The replica that follows a task stops mid-turn: it gives the lease back,
// and another replica that serves the task follows it on.
func TestFollowHandover(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	agent := startAgent(t, agenttest.Trajectory(60, agenttest.Named("handover"), agenttest.PauseEvery(20*time.Millisecond)))
	var follows [2]atomic.Int64
	cl := newCluster(t, r, 2, func(i int) (relay.Follower, relay.Agent) {
		return countingFollower{newClient(t, agent), &follows[i]}, nil
	})
	c := newClient(t, agent)
	id, err := c.Dispatch(testCtx(t), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("handover")))
	if err != nil {
		t.Fatal(err)
	}
	task := string(id)
	ctx := testCtx(t)
	// Replica 0 gets the first reader, so it takes the lease.
	first := &browser{}
	if err := first.runUntil(ctx, cl.urls[0]+"/relay/tasks/"+task+"/events", 5); err != nil {
		t.Fatal(err)
	}
	if follows[0].Load() != 1 {
		t.Fatalf("replica 0 follows %d times, want 1", follows[0].Load())
	}
	// A reader on replica 1, connected before replica 0 goes.
	b := &browser{}
	resp, err := get(ctx, cl.urls[1]+"/relay/tasks/"+task+"/events", "")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("reader on replica 1: %v %v", resp, err)
	}
	errc := make(chan error, 1)
	go func() {
		ended, err := b.read(resp.Body, &b.last, 1<<30)
		resp.Body.Close()
		if err == nil && !ended {
			err = b.run(ctx, cl.urls[1]+"/relay/tasks/"+task+"/events", rand.New(rand.NewPCG(3, 3)), 4)
		}
		errc <- err
	}()
	_ = cl.replicas[0].Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	s, err := c.Follow(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for range s.Updates() {
	}
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	if got := [2]int64{follows[0].Load(), follows[1].Load()}; got != [2]int64{1, 1} {
		t.Errorf("follows per replica %v, want [1 1]", got)
	}
	checkBrowsers(t, task, []*browser{b}, s.View(), verdict{schema.VerdictCompleted, out.Reply})
}

// Redis stalls mid-turn (DEBUG SLEEP: it answers nobody for a while): ops
// reach the readers late, never lost, repeated or out of order.
func TestSlowRedis(t *testing.T) {
	t.Parallel()
	r := startRedis(t, "--enable-debug-command", "yes")
	agent := startAgent(t, agenttest.Trajectory(40, agenttest.Named("slow"), agenttest.PauseEvery(20*time.Millisecond)))
	cl := newCluster(t, r, 3, nil)
	task, done := cl.attach(t, newClient(t, agent), "slow")
	ctx := testCtx(t)
	bs := make([]*browser, 4)
	errs := make(chan error, len(bs))
	for i := range bs {
		bs[i] = &browser{}
		go func() { errs <- bs[i].run(ctx, cl.eventsURL(task), rand.New(rand.NewPCG(uint64(i), 13)), 4) }()
	}
	first := &browser{}
	if err := first.runUntil(ctx, cl.eventsURL(task), 5); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.Port)})
	defer rdb.Close()
	// The turn goes on while Redis sleeps.
	if err := rdb.Do(ctx, "DEBUG", "SLEEP", "1.5").Err(); err != nil {
		t.Fatal(err)
	}
	for range bs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s := <-done
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	checkBrowsers(t, task, bs, s.View(), verdict{schema.VerdictCompleted, out.Reply})
	if st := cl.worker.Stats(); st.StoreErrors != 0 {
		t.Errorf("worker: %+v; a stall within go-redis's timeouts is not an error", st)
	}
}

// A full Redis (maxmemory, noeviction) refuses the follow's lease and
// appends: a reader of a task that nothing published yet gets 503 with
// Redis's reason within two seconds, not 504 at the start timeout.
func TestFullRedisAnswers503(t *testing.T) {
	t.Parallel()
	r := startRedis(t, "--maxmemory", "2mb", "--maxmemory-policy", "noeviction")
	agent := startAgent(t, agenttest.Trajectory(10, agenttest.Named("full"), agenttest.PauseEvery(10*time.Millisecond)))
	cl := newCluster(t, r, 1, func(int) (relay.Follower, relay.Agent) { return newClient(t, agent), nil })
	ctx := testCtx(t)
	id, err := newClient(t, agent).Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("full")))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(r.URL(), "redis://"), "/0")})
	defer rdb.Close()
	for i := 0; ; i++ {
		if err := rdb.Set(ctx, fmt.Sprint("fill:", i), strings.Repeat("x", 64<<10), 0).Err(); err != nil {
			if !strings.Contains(err.Error(), "OOM") {
				t.Fatalf("filling Redis: %v, want its OOM refusal", err)
			}
			break
		}
	}
	start := time.Now()
	resp, err := get(ctx, cl.eventsURL(string(id)), "")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if got := []string{strconv.Itoa(resp.StatusCode), resp.Header.Get("Retry-After")}; !slices.Equal(got, []string{"503", "2"}) ||
		!strings.Contains(string(body), "OOM") {
		t.Errorf("status, Retry-After = %v, body %s: want [503 2] and Redis's OOM reason", got, body)
	}
	t.Logf("answered %d in %v: %s", resp.StatusCode, took.Round(time.Millisecond), body)
	if took > 2*time.Second {
		t.Errorf("answered after %v, want within 2 s", took)
	}
}

// Redis killed (SIGKILL) in the middle of a turn and started again empty:
// the 60 readers that resume with the cursor of the log that is gone get a
// snapshot of the view the worker puts back (all of it, appended at once)
// and then the ops that follow — never, as resumed ops under new ids,
// blocks they already had.
func TestRedisKillEmptyRestartNoRedelivery(t *testing.T) {
	// Not parallel: Redis restarts on its port, which a parallel test's
	// connection could take meanwhile; serial tests run before the
	// parallel ones.
	r := startRedis(t)
	sc := agenttest.Trajectory(150, agenttest.Named("restart"), agenttest.PauseEvery(20*time.Millisecond))
	agent := startAgent(t, sc)
	cl := newCluster(t, r, 3, nil)
	task, done := cl.attach(t, newClient(t, agent), "restart")
	ctx := testCtx(t)

	// Each reader has a few ops and its cursor, and goes away.
	rs := make([]*resumer, 60)
	errs := make(chan error, len(rs))
	for i := range rs {
		rs[i] = &resumer{had: map[string]bool{}}
		go func() { errs <- rs[i].until(ctx, cl.eventsURL(task), 5) }()
	}
	for range rs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	r.Kill()
	waitFor(t, func() bool { return cl.worker.Stats().StoreDown }, "the worker to see Redis down")
	r.Restart()
	for i := range rs {
		go func() { errs <- rs[i].resume(ctx, cl.eventsURL(task)) }()
	}
	for range rs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s := <-done
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	redelivered, snapshots := 0, 0
	for i, rd := range rs {
		redelivered += len(rd.redelivered)
		snapshots += rd.snapshots
		if len(rd.redelivered) > 0 && len(rd.redelivered) <= 3 {
			t.Logf("reader %d: blocks it had, resumed again: %q", i, rd.redelivered)
		}
		if d := cmp.Diff(show(s.View()), show(viewOf(task, rd.ops))); d != "" {
			t.Errorf("reader %d: view (-worker +reader):\n%s", i, d)
		}
		if d := cmp.Diff(verdict{schema.VerdictCompleted, out.Reply}, lastResult(rd.ops)); d != "" {
			t.Errorf("reader %d: result (-want +got):\n%s", i, d)
		}
	}
	if redelivered != 0 {
		t.Errorf("%d blocks re-sent as resumed ops to readers that had them, want 0", redelivered)
	}
	t.Logf("snapshots after the restart: %d; worker: %+v", snapshots, cl.worker.Stats())
}

// resumer is a reader that tells a snapshot's ops (sent without an id but
// the last) from resumed ones, and counts the resumed block ops it had.
type resumer struct {
	ops         []schema.Op
	had         map[string]bool // the blocks it has
	last        string          // its cursor
	redelivered []string
	snapshots   int
}

func blockKey(op schema.Op) string {
	return fmt.Sprintf("%s/%s/%d/%s", op.Turn, op.Block.Key.StreamKey, op.Block.Key.Seq, op.Block.Key.ID)
}

// until reads until n ops with an id arrived, then goes.
func (rd *resumer) until(ctx context.Context, u string, n int) error {
	resp, err := get(ctx, u, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	_, err = rd.read(resp.Body, n, false)
	return err
}

// resume reads from its cursor to the turn's end, reconnecting after a
// cut and after 503.
func (rd *resumer) resume(ctx context.Context, u string) error {
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("after %d ops: %w", len(rd.ops), err)
		}
		resp, err := get(ctx, u, rd.last)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			resp.Body.Close()
			time.Sleep(20 * time.Millisecond) // a page waits Retry-After
			continue
		}
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		ended, err := rd.read(resp.Body, -1, true)
		resp.Body.Close()
		if err != nil || ended {
			return err
		}
	}
}

// read reads one response until n ops with an id (n < 0: its end);
// count: count the resumed block ops it had. ended reports the turn's end.
func (rd *resumer) read(body io.Reader, n int, count bool) (ended bool, err error) {
	sr := ssewire.NewStrictReader(bufio.NewReader(body), ssewire.DefaultMaxEventBytes)
	inSnapshot := false
	for {
		ev, err := sr.NextEvent()
		if err != nil {
			return ended, nil // the end, or a cut: reconnect
		}
		if !ev.HasData {
			continue
		}
		var op schema.Op
		if err := json.Unmarshal(ev.Data, &op); err != nil {
			return false, fmt.Errorf("op %q: %w", ev.Data, err)
		}
		resumed := ev.ID != "" && !inSnapshot
		if ev.ID == "" && !inSnapshot {
			inSnapshot = true
			rd.snapshots++
		} else if ev.ID != "" {
			inSnapshot = false // a snapshot's last op carries its cursor
		}
		if op.Type == schema.OpBlock {
			k := blockKey(op)
			if count && resumed && rd.had[k] {
				rd.redelivered = append(rd.redelivered, k)
			}
			rd.had[k] = true
		}
		rd.ops = append(rd.ops, op)
		ended = op.Type == schema.OpResult && op.Result.Verdict != schema.VerdictIncomplete
		if ev.ID != "" {
			rd.last = ev.ID
			if n--; n == 0 && !ended {
				return false, nil
			}
		}
	}
}
