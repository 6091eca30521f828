package relay_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/relay"
)

// The byte caps: a task's log holds at most its byte cap however long the
// turn; past the handler's budget a request for a task it does not hold
// gets 503 with Retry-After, counted in Stats; the bytes leave with the
// tasks.
func TestByteBudget(t *testing.T) {
	agent := startAgent(t)
	agent.Register(agenttest.Trajectory(400, agenttest.Named("long")))
	agent.Register(agenttest.Trajectory(3, agenttest.Named("short")))
	c := newClient(t, agent)
	const perTask = 32 << 10
	h := relay.New(testCtx(t), c, relay.WithAuthorizer(relay.AllowAll), relay.WithLogCaps(0, perTask), relay.WithMaxBytes(perTask/2))
	srv := relayServer(t, h)
	ctx := testCtx(t)

	s, err := c.SendText(ctx, "long")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range h.Attach(s) {
		if err != nil {
			t.Fatal(err)
		}
	}
	st := h.Stats()
	if st.Bytes <= perTask/2 || st.Bytes > perTask {
		t.Errorf("a 400-update turn's log holds %d bytes, want within (%d, %d]", st.Bytes, perTask/2, perTask)
	}
	// The task held is still served (whole: its view, as a snapshot).
	evs, err := readAll(ctx, eventsURL(srv.URL, string(s.TaskID()), nil), "")
	if err != nil {
		t.Fatal(err)
	}
	diffView(t, s.View(), viewOf(string(s.TaskID()), ops(evs)))

	// Another task: over the budget.
	other := dispatch(t, c, "short")
	resp, err := http.Get(eventsURL(srv.URL, other, nil))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := strings.Join([]string{resp.Status[:3], resp.Header.Get("Retry-After"), strings.TrimSpace(string(b))}, " ")
	if d := cmp.Diff(`503 2 {"error":"relay: memory budget reached (the tasks held use it all)"}`, got); d != "" {
		t.Errorf("past the budget (-want +got):\n%s", d)
	}
	if st := h.Stats(); st.Refused != 1 || st.Tasks != 1 {
		t.Errorf("stats after the refusal: %+v, want 1 refused, 1 task", st)
	}
	_ = h.Close()
	if st := h.Stats(); st.Bytes != 0 {
		t.Errorf("%d bytes counted after every task left", st.Bytes)
	}
}
