package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/redistest"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay/redisstore"
	"github.com/tfrs/a2a-progress/schema"
)

// Two `a2a-tail web --redis` replicas share one Redis: a task sent through
// one is watched through the other, with Redis stream ids as the event ids.
func TestWebRedisReplicas(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	defer cancel()
	redisURL := "redis://127.0.0.1:" + itoa(r.Port) + "/0"

	urls, done := startRedisWebs(t, ctx, 2, redisURL, agent.CardURL(agenttest.V1))
	task := sendTask(t, urls[0], "realistic")

	resp, err := http.Get(urls[1] + "/tasks/" + task + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET events on the other replica: %d", resp.StatusCode)
	}
	rd := ssewire.NewStrictReader(bufio.NewReader(resp.Body), ssewire.DefaultMaxEventBytes)
	redisID := regexp.MustCompile(`^\d+-\d+$`)
	var last schema.Op
	for {
		ev, err := rd.NextEvent()
		if err != nil {
			break
		}
		if !ev.HasData {
			continue
		}
		if ev.ID != "" && !redisID.MatchString(ev.ID) {
			t.Errorf("event id %q is not a Redis stream id", ev.ID)
		}
		if err := json.Unmarshal(ev.Data, &last); err != nil {
			t.Fatal(err)
		}
	}
	if last.Type != schema.OpResult || last.Result.Verdict != schema.VerdictCompleted {
		t.Fatalf("last op %+v, want the completed result", last)
	}
	// The log is in Redis, under the store's default prefix.
	st, err := redisstore.New(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Read(ctx, task, "", 0)
	if err != nil || len(recs) == 0 {
		t.Fatalf("Redis holds %d records of the task (%v)", len(recs), err)
	}
	var stored schema.Op
	if err := json.Unmarshal(recs[len(recs)-1].Op, &stored); err != nil || stored.Result == nil {
		t.Fatalf("Redis's last record is not a result: %s (%v)", recs[len(recs)-1].Op, err)
	}
	if d := cmp.Diff(last.Result.Reply, stored.Result.Reply); d != "" {
		t.Errorf("reply in Redis (-served +stored):\n%s", d)
	}
	cancel()
	for range 2 {
		if code := <-done; code != 0 {
			t.Errorf("a2a-tail web exited %d", code)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// startRedisWebs runs n `a2a-tail web --redis redisURL --any-task`
// replicas of the agent at agentURL until ctx ends; it returns their base
// URLs (without the final slash) and a channel that yields each one's exit
// code.
func startRedisWebs(t *testing.T, ctx context.Context, n int, redisURL, agentURL string) ([]string, <-chan int) {
	t.Helper()
	var urls []string
	done := make(chan int, n)
	for range n {
		pr, pw := io.Pipe()
		go func() {
			done <- run(ctx, []string{"web", "--redis", redisURL, "--any-task", "--listen", "127.0.0.1:0", agentURL}, nil, pw, &lockedBuffer{})
			pw.Close()
		}()
		line, err := bufio.NewReader(pr).ReadString('\n') // the URL, once it serves
		if err != nil {
			t.Fatalf("a2a-tail web printed no URL: %v", err)
		}
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		urls = append(urls, strings.TrimSuffix(strings.TrimSpace(line), "/"))
	}
	return urls, done
}

// sendTask sends text through the web server at base (POST /tasks) and
// returns the task's id.
func sendTask(t *testing.T, base, text string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"text": text})
	resp, err := http.Post(base+"/tasks", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var sent struct{ Task string }
	err = json.NewDecoder(resp.Body).Decode(&sent)
	resp.Body.Close()
	if err != nil || sent.Task == "" {
		t.Fatalf("POST /tasks: %d, %v, %+v", resp.StatusCode, err, sent)
	}
	return sent.Task
}

// A Redis that does not answer at start is a warning, and readers get 503
// with Retry-After until it does.
func TestWebRedisDown(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	r.Kill() // a port where nothing listens now
	agent, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	defer cancel()
	pr, pw := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"web", "--redis", "redis://u:secret@127.0.0.1:" + strconv.Itoa(r.Port) + "/0", "--any-task", "--listen", "127.0.0.1:0",
			agent.CardURL(agenttest.V1)}, nil, pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("a2a-tail web printed no URL: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	resp, err := http.Get(strings.TrimSpace(line) + "tasks/some-task/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := []string{strconv.Itoa(resp.StatusCode), resp.Header.Get("Retry-After")}
	if d := cmp.Diff([]string{"503", "2"}, got); d != "" {
		t.Errorf("status, Retry-After (-want +got):\n%s", d)
	}
	cancel()
	<-done
	if s := stderr.String(); !strings.Contains(s, "WARNING: Redis at redis://u:***@127.0.0.1") || strings.Contains(s, "secret") {
		t.Errorf("stderr %q: want the warning, without the password", s)
	}
}
