package relay_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// A subscriber racing the attached Send: it asks for the task as soon as
// Send returned its id, while the orchestrator starts iterating. Every
// time, it gets the whole turn — no 404, no Follow of its own (a second
// upstream), no op twice — and ends with the result.
func TestAttachRace(t *testing.T) {
	t.Parallel()
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	agent := startAgent(t)
	agent.Register(agenttest.Trajectory(4, agenttest.Named("race")))
	c := newClient(t, agent)
	f := &countingFollower{c: c}
	started := relay.NewTaskSet(0)
	// The rounds' time grows with the machine's load: the test's context
	// ends only when a round stalls (no round done for the idle budget),
	// never because many rounds together took long.
	ctx := testdep.Watchdog(t, 30*time.Second)
	h := relay.New(ctx, f, relay.WithAuthorizer(started.Authorizer(relay.AllowAll)),
		relay.WithStartedTasks(started), relay.WithMaxTasks(rounds+1))
	srv := relayServer(t, h)

	for i := range rounds {
		s, err := c.SendText(ctx, "race")
		if err != nil {
			t.Fatal(err)
		}
		task := string(s.TaskID())
		updates := h.Attach(s) // the task exists from here on
		type read struct {
			evs []event
			err error
		}
		got := make(chan read, 1)
		go func() {
			evs, err := readAll(ctx, eventsURL(srv.URL, task, nil), "")
			got <- read{evs, err}
		}()
		for _, err := range updates {
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
		r := <-got
		if r.err != nil {
			t.Fatalf("round %d: subscriber: %v", i, r.err)
		}
		if len(r.evs) == 0 || r.evs[len(r.evs)-1].Op.Type != schema.OpResult {
			t.Fatalf("round %d: the stream did not end with the result: %+v", i, ops(r.evs))
		}
		twice := map[string]int{}
		for id, n := range blockIDs(ops(r.evs)) {
			if n != 1 {
				twice[id] = n
			}
		}
		ids := map[string]bool{}
		for _, ev := range r.evs {
			if ev.ID != "" && ids[ev.ID] {
				twice["cursor "+ev.ID]++
			}
			ids[ev.ID] = true
		}
		if d := cmp.Diff(map[string]int{}, twice); d != "" {
			t.Fatalf("round %d: ops sent twice (-want +got):\n%s", i, d)
		}
		want := s.View()
		if d := cmp.Diff(fmt.Sprint(show(want)), fmt.Sprint(show(viewOf(task, ops(r.evs))))); d != "" {
			t.Fatalf("round %d: the subscriber's view differs from the sender's (-want +got):\n%s", i, d)
		}
		testdep.Progress(t)
	}
	if n := f.n.Load(); n != 0 {
		t.Errorf("%d Follows started for attached tasks, want 0", n)
	}
}
