package relay_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
)

// The turns the front-end endpoints run at once are capped per Handler
// (relay.WithMaxTurns), not per process: past a Handler's cap a request
// gets 503, another Handler is not affected, and an ended turn frees its
// place.
func TestMaxTurnsPerHandler(t *testing.T) {
	t.Parallel()
	sc := heldScript("held", "hold")
	s, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)), agenttest.WithScripts(sc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	t.Cleanup(cancel)
	c, err := client.New(ctx, s.CardURL(agenttest.V1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	serve := func(opts ...relay.Option) string {
		h := relay.New(ctx, c, append([]relay.Option{relay.WithAuthorizer(relay.AllowAll), relay.WithMaxTurns(1)}, opts...)...)
		srv := httptest.NewServer(h.AGUI(c))
		t.Cleanup(func() { _ = h.Close(); srv.Close() })
		return srv.URL
	}
	one, two := serve(), serve()
	var postScript func(url, thread, script string) *http.Response
	post := func(url, thread string) *http.Response {
		t.Helper()
		return postScript(url, thread, "held")
	}
	postScript = func(url, thread, script string) *http.Response {
		t.Helper()
		body := `{"threadId":"` + thread + `","runId":"r","messages":[{"id":"m-` + thread + `","role":"user","content":"` + script + `"}]}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := post(one, "a")
	if first.StatusCode != 200 {
		t.Fatalf("first turn: %d", first.StatusCode)
	}
	br := untilStarted(t, first)
	second := post(one, "b")
	second.Body.Close()
	other := post(two, "c")
	other.Body.Close()
	if second.StatusCode != http.StatusServiceUnavailable || second.Header.Get("Retry-After") == "" || other.StatusCode != 200 {
		t.Errorf("past the cap: %d (Retry-After %q), want 503; the other handler: %d, want 200",
			second.StatusCode, second.Header.Get("Retry-After"), other.StatusCode)
	}
	s.Release("hold")
	_, _ = io.Copy(io.Discard, br)
	first.Body.Close()
	third := post(one, "d")
	third.Body.Close()
	if third.StatusCode != 200 {
		t.Errorf("after the first turn ended: %d, want 200", third.StatusCode)
	}

	// The handler's byte budget holds its running turns too: one turn's
	// reservation (8 MiB of turn, 4 of decoding) and its reader's encoder
	// (about 3 MiB) fit 16 MiB; a second turn does not.
	s.Register(heldScript("held again", "hold again"))
	tight := serve(relay.WithMaxTurns(8), relay.WithHandlerBudget(16<<20))
	running := postScript(tight, "e", "held again")
	br = untilStarted(t, running)
	refused := postScript(tight, "f", "held again")
	msg, _ := io.ReadAll(refused.Body)
	refused.Body.Close()
	if refused.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(msg), "memory budget") {
		t.Errorf("a second turn past the budget: %d %s, want 503 saying the memory budget", refused.StatusCode, msg)
	}
	s.Release("hold again")
	_, _ = io.Copy(io.Discard, br)
	running.Body.Close()
}

// untilStarted reads resp's AG-UI events up to RUN_STARTED (written once
// the turn is under way, its task named) and returns the reader of the rest.
func untilStarted(t *testing.T, resp *http.Response) *bufio.Reader {
	t.Helper()
	if resp.StatusCode != 200 {
		t.Fatalf("turn: %d", resp.StatusCode)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the turn ended before RUN_STARTED: %v", err)
		}
		if strings.Contains(line, "RUN_STARTED") {
			return br
		}
	}
}

// heldScript is the realistic trajectory under name, completed with "done",
// held at gate before its second tool call.
func heldScript(name, gate string) agenttest.Script {
	sc := agenttest.Realistic()
	sc.Name, sc.FinalText = name, "done"
	sc.Steps[6].Gate = gate
	return sc
}
