package frontend

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

	"github.com/a2aproject/a2a-go/v2/a2a"

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
	sc := frontScript("held", a2a.TaskStateCompleted, "done", "hold")
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
	serve := func() string {
		h := relay.New(ctx, c, relay.WithAuthorizer(relay.AllowAll), relay.WithMaxTurns(1))
		srv := httptest.NewServer(AGUI(h, c))
		t.Cleanup(func() { _ = h.Close(); srv.Close() })
		return srv.URL
	}
	one, two := serve(), serve()
	post := func(url, thread string) *http.Response {
		t.Helper()
		body := `{"threadId":"` + thread + `","runId":"r","messages":[{"id":"m-` + thread + `","role":"user","content":"held"}]}`
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
	// RUN_STARTED is written once the turn is under way (its task named).
	br := bufio.NewReader(first.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("first turn ended before RUN_STARTED: %v", err)
		}
		if strings.Contains(line, "RUN_STARTED") {
			break
		}
	}
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
}
