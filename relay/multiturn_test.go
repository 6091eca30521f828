package relay_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// Two turns of one task, each attached from the orchestrator's own Send:
// the first ends input-required and its readers end with it; a reader of
// the second turn gets the first as a snapshot and the second live, and its
// receiver holds both turns, each with its own verdict.
func TestAttachTwoTurns(t *testing.T) {
	t.Parallel()
	agent := startAgent(t)
	agent.Register(agenttest.Trajectory(4, agenttest.Named("ask"), agenttest.EndIn(a2a.TaskStateInputRequired)))
	second := agenttest.Trajectory(5, agenttest.Named("answer"))
	second.Steps[2].Gate = "go"
	agent.Register(second)
	c := newClient(t, agent)
	h := relay.New(testCtx(t), nil, relay.WithAuthorizer(relay.AllowAll))
	srv := relayServer(t, h)
	ctx := testCtx(t)

	s1, err := c.SendText(ctx, "ask")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range h.Attach(s1) {
		if err != nil {
			t.Fatal(err)
		}
	}
	task := string(s1.TaskID())
	u := eventsURL(srv.URL, task, nil)
	first, err := readAll(ctx, u, "")
	if err != nil {
		t.Fatal(err)
	}
	if last := first[len(first)-1].Op; last.Type != schema.OpResult || last.Result.Verdict != schema.VerdictInputRequired {
		t.Fatalf("first turn ends with %+v, want its input-required result", last)
	}

	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("answer"))
	m.TaskID = s1.TaskID()
	s2, err := c.Send(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	attached := make(chan error, 1)
	go func() {
		var last error
		for _, err := range h.Attach(s2) {
			last = err
		}
		attached <- last
	}()
	// The reader resumes after the first turn's last cursor. Until turn 2
	// published its first op, the task is settled and the reader gets turn
	// 1's result again and the end; then it gets turn 2 — which waits at
	// its gate, so the reader must not end at turn 1's result.
	r := merge.NewReceiver(task, merge.Caps{})
	for _, ev := range first {
		r.Apply(ev.Op)
	}
	var cn *conn
	for cn == nil {
		c, err := open(ctx, u, first[len(first)-1].ID)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := c.next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Op.Turn == first[0].Op.Turn {
			c.close()
			continue
		}
		r.Apply(ev.Op)
		cn = c
	}
	defer cn.close()
	agent.Release("go")
	rest, err := cn.rest()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range rest {
		r.Apply(ev.Op)
	}
	if err := <-attached; err != nil {
		t.Fatal(err)
	}
	if turns := r.Turns(); len(turns) != 2 {
		t.Fatalf("turns %v, want 2", turns)
	}
	if res := r.Result(); res == nil || res.Verdict != schema.VerdictCompleted {
		t.Fatalf("latest result %+v, want completed", res)
	}
	diffView(t, s2.View(), r.View())
}
