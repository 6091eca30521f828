package main

import (
	"context"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/redistest"
)

// The page in a real Chromium watches a turn on an `a2a-tail web --redis`
// replica that did not send it; Redis is killed mid-turn and started again
// empty. The replica answers the page's reconnects 503 with Retry-After;
// the page says the shared store is unavailable, counts down, retries, and once Redis is
// back shows the turn whole and settled — the same blocks as a page opened
// afterwards.
func TestWebPageRedisDownThenUp(t *testing.T) {
	ctx, tab := pageTest(t)
	reusesPort(t) // Redis restarts on its port
	r := redistest.Start(t)
	agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)),
		agenttest.WithScripts(agenttest.Trajectory(30, agenttest.Named("outage"), agenttest.PauseEvery(100*time.Millisecond))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	wctx, cancel := context.WithCancel(ctx)
	urls, done := startRedisWebs(t, wctx, 2, r.URL(), agent.CardURL(agenttest.V1))
	t.Cleanup(func() {
		cancel()
		for range 2 {
			<-done
		}
	})
	// Replica 0 sends (and publishes) the turn; the page watches it on
	// replica 1, which only mirrors it from Redis.
	task := sendTask(t, urls[0], "outage")
	watch := "/?task=" + url.QueryEscape(task)
	do(t, tab,
		chromedp.Navigate(urls[1]+watch),
		chromedp.WaitVisible(`#conversation > li:last-child .turn > li:nth-child(3)`),
	)
	r.Kill()
	do(t, tab, chromedp.WaitVisible(`#problem[data-kind="store"]`))
	got := readPage(t, tab)
	shoot(t, tab, "redis-down")
	if want := "The relay's shared store (Redis) is unavailable, so it cannot read the task. Retrying in 2 s."; !strings.HasPrefix(got.Problem, want) {
		t.Errorf("problem %q, want it to start %q: the store notice with the relay's Retry-After", got.Problem, want)
	}
	if got.Conn != "closed" {
		t.Errorf("connection state %q while Redis is down, want closed", got.Conn)
	}
	r.Restart()
	do(t, tab,
		chromedp.WaitVisible(`#conversation > li:last-child .verdict[data-verdict="completed"]`),
		chromedp.WaitNotVisible(`#problem`),
	)
	got = readPage(t, tab)
	shoot(t, tab, "redis-back")
	// A page opened now, on the replica that sent the turn, is the
	// reference: what Redis holds once the turn settled.
	do(t, tab,
		chromedp.Navigate(urls[0]+watch),
		chromedp.WaitVisible(`#conversation > li:last-child .verdict[data-verdict="completed"]`),
	)
	want := readPage(t, tab)
	if len(want.Entries) != 1 || len(want.Entries[0].Blocks) < 3 || !strings.HasPrefix(want.Entries[0].Verdict, "Completed") {
		t.Fatalf("the reference page: %+v, want one completed turn with its blocks", want.Entries)
	}
	// A tool call's elapsed time is what the page saw of it: one that lived
	// through the outage may know a duration that the log republished
	// after it (the publisher's view: each block once, in its latest state)
	// no longer carries. It is left out of the comparison.
	if d := cmp.Diff(withoutElapsed(want.Entries), withoutElapsed(got.Entries)); d != "" {
		t.Errorf("the page that lived through the outage (-fresh page +it):\n%s", d)
	}
}

// elapsedText is a duration as the page writes it (fmtElapsed in app.js).
var elapsedText = regexp.MustCompile(`\d+ ms|\d+\.\d s|\d+ min \d+ s`)

// withoutElapsed is entries with the durations taken out of their blocks.
func withoutElapsed(entries []entryState) []entryState {
	out := make([]entryState, len(entries))
	for i, e := range entries {
		e.Blocks = append([]string(nil), e.Blocks...)
		for j, b := range e.Blocks {
			e.Blocks[j] = elapsedText.ReplaceAllString(b, "")
		}
		out[i] = e
	}
	return out
}
