package relay_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// When a subscriber asks for an attached task, against the iteration of
// the attached Send.
type attachOrder int

const (
	subscriberFirst attachOrder = iota // after Attach, before the first op is published
	midTurn                            // after two of the turn's updates
	afterTurn                          // once the iteration ended
	racing                             // as soon as Send returned, while the iteration starts
)

func (o attachOrder) String() string {
	return [...]string{"subscriber-first", "mid-turn", "after-turn", "racing"}[o]
}

// A subscriber of an attached task gets the whole turn — no 404, no Follow
// of its own (a second upstream), no op twice — and ends with the result,
// whenever it comes: before the first op (the case that once started a
// Follow and sent ops twice), mid-turn, after the turn, each once and
// deterministically; then racing the iteration for many rounds, which
// tries the interleavings in between.
func TestAttachRace(t *testing.T) {
	t.Parallel()
	rounds := 600
	if testing.Short() {
		rounds = 60
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
		relay.WithStartedTasks(started), relay.WithMaxTasks(rounds+4))
	srv := relayServer(t, h)

	round := func(i int, order attachOrder) {
		t.Helper()
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
		subscribe := func() {
			go func() {
				evs, err := readAll(ctx, eventsURL(srv.URL, task, nil), "")
				got <- read{evs, err}
			}()
		}
		switch order {
		case subscriberFirst:
			subscribe()
			waitFor(t, "the subscriber to wait for the first op", func() bool { return h.Stats().Subscribers == 1 || len(got) > 0 })
			if len(got) > 0 { // it ended before the turn's first op was published
				r := <-got
				t.Fatalf("%v: the subscriber's read ended before the turn began: %v, ops %+v", order, r.err, ops(r.evs))
			}
		case racing:
			subscribe()
		}
		n := 0
		for _, err := range updates {
			if err != nil {
				t.Fatalf("%v, round %d: %v", order, i, err)
			}
			if n++; n == 2 && order == midTurn {
				subscribe()
				waitFor(t, "the subscriber to join mid-turn", func() bool { return h.Stats().Subscribers == 1 })
			}
		}
		if order == afterTurn {
			subscribe()
		}
		r := <-got
		checkAttachedRead(t, fmt.Sprintf("%v, round %d", order, i), s, task, r.evs, r.err)
		testdep.Progress(t)
	}
	for _, order := range []attachOrder{subscriberFirst, midTurn, afterTurn} {
		round(0, order)
	}
	for i := range rounds {
		round(i, racing)
	}
	if n := f.n.Load(); n != 0 {
		t.Errorf("%d Follows started for attached tasks, want 0", n)
	}
}

// checkAttachedRead: a subscriber's read of the attached stream s ends
// with the result, has each op and cursor once, and shows s's view.
func checkAttachedRead(t *testing.T, what string, s *client.Stream, task string, evs []event, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: subscriber: %v", what, err)
	}
	if len(evs) == 0 || evs[len(evs)-1].Op.Type != schema.OpResult {
		t.Fatalf("%s: the stream did not end with the result: %+v", what, ops(evs))
	}
	twice := map[string]int{}
	for id, n := range blockIDs(ops(evs)) {
		if n != 1 {
			twice[id] = n
		}
	}
	ids := map[string]bool{}
	for _, ev := range evs {
		if ev.ID != "" && ids[ev.ID] {
			twice["cursor "+ev.ID]++
		}
		ids[ev.ID] = true
	}
	if d := cmp.Diff(map[string]int{}, twice); d != "" {
		t.Fatalf("%s: ops sent twice (-want +got):\n%s", what, d)
	}
	if d := cmp.Diff(fmt.Sprint(show(s.View())), fmt.Sprint(show(viewOf(task, ops(evs))))); d != "" {
		t.Fatalf("%s: the subscriber's view differs from the sender's (-want +got):\n%s", what, d)
	}
}
