package relay_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/frontend"
)

// The byte caps: a task's log holds at most its byte cap however long the
// turn; past the handler's budget a request for a task it does not hold
// gets 503 with Retry-After, counted in Stats; the bytes leave with the
// tasks.
func TestByteBudget(t *testing.T) {
	t.Parallel()
	agent := startAgent(t)
	agent.Register(agenttest.Trajectory(400, agenttest.Named("long")))
	agent.Register(agenttest.Trajectory(3, agenttest.Named("short")))
	c := newClient(t, agent)
	// The log's cap is 32 KiB; the turn's merged view holds about 85 KiB,
	// within the handler's 96 KiB; the two together are past it.
	const perTask = 32 << 10
	h := relay.New(testCtx(t), c, relay.WithAuthorizer(relay.AllowAll), relay.WithLogCaps(0, perTask), relay.WithHandlerBudget(96<<10))
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
	if st := h.Stats(); st.Refused != 1 || st.Tasks != 1 || st.ViewBytes <= 0 || st.Bytes+st.ViewBytes > 2*(96<<10) {
		t.Errorf("stats after the refusal: %+v, want 1 refused, 1 task", st)
	}
	_ = h.Close()
	if st := h.Stats(); st.Bytes != 0 {
		t.Errorf("%d log bytes, %d view bytes counted after every task left", st.Bytes, st.ViewBytes)
	}
}

// frontFormats serve the AG-UI and AI SDK formats (package relay/frontend)
// on the task events endpoint: the front-end subscribers the budgets count.
var frontFormats = []relay.Option{
	relay.WithFormat(frontend.FormatAGUI, frontend.AGUIFormat),
	relay.WithFormat(frontend.FormatAISDK, frontend.AISDKFormat),
}

// The task budget: an AG-UI or AI SDK subscriber reserves its encoder's
// state from its task's budget while it reads, and charges its own merged
// view to it; one that does not fit gets 503 with Retry-After, counted in
// Stats; what they charged comes back when they end and when the task
// leaves.
func TestTaskBudget(t *testing.T) {
	t.Parallel()
	// Room for the log, the task's view (32 MiB) and one front-end
	// subscriber.
	s := newSetup(t, gatedScript("tb", 12, "go"), append(frontFormats, relay.WithTaskBudget(relay.DefaultMaxLogBytes+32<<20+5<<20))...)
	first, err := http.Get(s.url + "?format=" + frontend.FormatAGUI)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Body.Close()
	if first.StatusCode != http.StatusOK {
		t.Fatalf("the first AG-UI subscriber: %s", first.Status)
	}
	if st := s.h.Stats(); st.ViewBytes < 3<<20 {
		t.Errorf("an AG-UI subscriber reading: %d view bytes counted, want its encoder's reservation (≥ 3 MiB)", st.ViewBytes)
	}
	for _, format := range []string{frontend.FormatAGUI, frontend.FormatAISDK} {
		resp, err := http.Get(s.url + "?format=" + format)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := strings.Join([]string{resp.Status[:3], resp.Header.Get("Retry-After"), strings.TrimSpace(string(b))}, " ")
		want := `503 2 {"error":"relay: memory budget of this task reached (its views and front-end subscribers use it all)"}`
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("a second %s subscriber (-want +got):\n%s", format, d)
		}
	}
	// The ops format shares the log: it costs the task's budget nothing.
	s.agent.Release("go")
	if _, err := readAll(testCtx(t), s.url, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(first.Body); err != nil {
		t.Fatal(err)
	}
	first.Body.Close()
	// The first one ended: its reservation came back, so another fits.
	again, err := http.Get(s.url + "?format=" + frontend.FormatAISDK)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(again.Body)
	again.Body.Close()
	if again.StatusCode != http.StatusOK || !strings.Contains(string(body), `"type":"finish"`) {
		t.Errorf("an AI SDK subscriber after the first ended: %s\n%s", again.Status, body)
	}
	if st := s.h.Stats(); st.Refused != 2 {
		t.Errorf("stats: %+v, want 2 refused", st)
	}
	_ = s.h.Close()
	if st := s.h.Stats(); st.Bytes != 0 || st.ViewBytes != 0 {
		t.Errorf("after every task left: %d log bytes, %d view bytes counted", st.Bytes, st.ViewBytes)
	}
}
