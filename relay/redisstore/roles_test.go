package redisstore_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/redisstore"
	"github.com/tfrs/a2a-progress/schema"
)

// The package doc's two roles, in one process. An orchestrator worker
// publishes its own turn into Redis: a Handler without a Follower or an
// HTTP server. A replica given the same Redis (and key prefix, as several
// deployments share one Redis) serves the turn to a browser that comes
// after it ended. The replica has no Follower here, so what the browser
// gets — the worker's view and result — can only come from Redis (given
// one, a replica also follows the tasks nobody publishes, one replica per
// task by a lease in Redis: TestOneFollowPerTaskAcrossReplicas).
func TestWorkerAndReplica(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	agent := startAgent(t)
	ctx := testCtx(t)

	// The worker.
	st := newStore(t, r, redisstore.WithPrefix("prod:"))
	worker := relay.New(ctx, nil, relay.WithStore(st)) // publishes only
	t.Cleanup(func() { _ = worker.Close() })
	c := newClient(t, agent)
	s, err := c.SendText(ctx, "summarise the incident")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range worker.Attach(s) { // every op goes to Redis as it passes
		if err != nil {
			t.Fatal(err)
		}
	}
	out, err := s.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	task := string(s.TaskID())

	// A replica.
	rst := newStore(t, r, redisstore.WithPrefix("prod:"))
	replica := relay.New(ctx, nil, relay.WithStore(rst), relay.WithAuthorizer(relay.AllowLoopback))
	mux := http.NewServeMux()
	mux.Handle("/progress/", http.StripPrefix("/progress", replica)) // GET /progress/tasks/{id}/events
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = replica.Close()
		srv.Close()
	})
	b := &browser{}
	if err := b.run(ctx, srv.URL+"/progress/tasks/"+task+"/events", rand.New(rand.NewPCG(1, 1)), 1<<30); err != nil {
		t.Fatal(err)
	}
	checkBrowsers(t, task, []*browser{b}, s.View(), verdict{schema.VerdictCompleted, out.Result().Reply})
	if st := replica.Stats(); st.StoreErrors != 0 || st.StoreDown {
		t.Errorf("the replica's Stats: %+v, want no store error", st)
	}
}
