package main

import (
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/relay"
)

// askingExecutor is an agent that records every message it gets: "ask"
// ends its turn input-required (a question), anything else completes.
type askingExecutor struct {
	mu   sync.Mutex
	msgs []a2a.Message // task and context ids as the agent saw them
}

func (x *askingExecutor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		x.mu.Lock()
		x.msgs = append(x.msgs, a2a.Message{ID: ec.Message.ID, TaskID: ec.TaskID, ContextID: ec.ContextID, Parts: ec.Message.Parts})
		x.mu.Unlock()
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		state, text := a2a.TaskStateCompleted, "done"
		if p := ec.Message.Parts; len(p) == 1 && p[0].Text() == "ask" {
			state, text = a2a.TaskStateInputRequired, "which one?"
		}
		yield(a2a.NewStatusUpdateEvent(ec, state, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))), nil)
	}
}

func (x *askingExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func (x *askingExecutor) received() []a2a.Message {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.msgs)
}

// startAskingAgent starts an askingExecutor agent and a client of it, in
// a context of a minute; all of it closes when the test ends.
func startAskingAgent(t *testing.T) (context.Context, *client.Client, *askingExecutor) {
	t.Helper()
	x := &askingExecutor{}
	ctx, c := startWebAgent(t, agenttest.WithExecutor(x))
	return ctx, c, x
}

// serveWebOf serves `a2a-tail web` over c with a task set, as the command
// does; it closes when the test ends.
func serveWebOf(t *testing.T, ctx context.Context, c *client.Client) (*webServer, *httptest.Server) {
	t.Helper()
	ws := newWebServer(ctx, client.LazyOf(c), webPolicy{auth: relay.AllowLoopback, tasks: relay.NewTaskSet(0)})
	srv := httptest.NewServer(ws)
	t.Cleanup(func() { ws.Close() })
	t.Cleanup(srv.Close)
	return ws, srv
}

// A task created at the agent directly — not through `a2a-tail web` — is
// foreign: every route that takes an id from a browser (a task, an
// interrupt, a conversation, a chat) must neither show it nor answer it nor
// send into its conversation. The test walks every mounted route: a route
// added without a case here fails it.
func TestWebRoutesAccess(t *testing.T) {
	t.Parallel()
	ctx, c, x := startAskingAgent(t)

	// The foreign task: someone else's question, waiting for their answer.
	direct, err := c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := direct.Run(func(client.Update) error { return nil }); err != nil {
		t.Fatal(err)
	}
	foreign := string(direct.TaskID())
	before := x.received()
	foreignCtx := before[0].ContextID

	ws, srv := serveWebOf(t, ctx, c)

	type probe struct {
		method, path, body string
		status             int // what the route answers
	}
	aguiRun := func(extra string) string {
		return `{"threadId":"th-1","runId":"r1","messages":[{"id":"m1","role":"user","content":"yes"}]` + extra + `}`
	}
	// Each mounted pattern, and the requests that name the foreign task or
	// its conversation on it.
	probes := map[string][]probe{
		"GET /tasks/{taskId}/events": {
			{"GET", "/tasks/" + foreign + "/events", "", 404},
			{"GET", "/tasks/" + foreign + "/events?format=ag-ui", "", 404},
			{"GET", "/tasks/" + foreign + "/events?format=ai-sdk", "", 404},
		},
		"POST /tasks/{taskId}/events": {
			{"POST", "/tasks/" + foreign + "/events?format=ag-ui", aguiRun(""), 404},
		},
		"POST /tasks": {
			{"POST", "/tasks", `{"text":"yes","task":"` + foreign + `"}`, 404},
			// Sent, but in a conversation of this server's, not the foreign one.
			{"POST", "/tasks", `{"text":"hello","context":"` + foreignCtx + `"}`, 200},
		},
		"POST /ag-ui": {
			{"POST", "/ag-ui", aguiRun(`,"resume":[{"interruptId":"a2a:` + foreign + `:1","payload":"yes"}]`), 404},
			{"POST", "/ag-ui", aguiRun(`,"resume":[{"interruptId":"not-ours","payload":"yes"}]`), 400},
			{"POST", "/ag-ui", strings.Replace(aguiRun(""), "th-1", foreignCtx, 1), 200},
		},
		"POST /api/chat": {
			{"POST", "/api/chat", `{"id":"` + foreignCtx + `","messages":[{"id":"m2","role":"user","parts":[{"type":"text","text":"hello"}]}]}`, 200},
		},
		"GET /api/chat/{id}/stream": {
			{"GET", "/api/chat/" + foreign + "/stream", "", 204},
			{"GET", "/api/chat/" + foreignCtx + "/stream", "", 204},
		},
		"GET /agent":  nil, // takes no id
		"GET /{file}": nil,
		"GET /{$}":    nil,
	}
	if d := cmp.Diff(slices.Sorted(func(yield func(string) bool) {
		for k := range probes {
			if !yield(k) {
				return
			}
		}
	}), slices.Sorted(slices.Values(ws.routes))); d != "" {
		t.Fatalf("routes without an access case here, or cases without a route (-cases +routes):\n%s", d)
	}
	for _, pattern := range slices.Sorted(func(yield func(string) bool) {
		for k := range probes {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, p := range probes[pattern] {
			req, _ := http.NewRequestWithContext(ctx, p.method, srv.URL+p.path, strings.NewReader(p.body))
			if p.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body) // a turn's stream ends with the turn
			resp.Body.Close()
			if resp.StatusCode != p.status {
				t.Errorf("%s %s %s: %d %s, want %d", p.method, p.path, p.body, resp.StatusCode, body, p.status)
			}
		}
	}

	// The agent got the three new conversations' messages and nothing in
	// the foreign task or its conversation.
	got := x.received()[len(before):]
	if len(got) != 3 {
		t.Errorf("the agent got %d messages through the server, want 3 (POST /tasks, /ag-ui, /api/chat)", len(got))
	}
	for _, m := range got {
		if string(m.TaskID) == foreign || m.ContextID == foreignCtx {
			t.Errorf("message %s reached the foreign task %s / conversation %s: %+v", m.ID, m.TaskID, m.ContextID, m)
		}
	}
	task, err := c.A2A().GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(foreign)})
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.TaskStateInputRequired {
		t.Errorf("the foreign task is %s, want it still input-required (unanswered)", task.Status.State)
	}
}

// A conversation the server gave out is continued, not replaced: the
// context a page learns from its first turn names the same conversation on
// its next one, and a useChat chat keeps its conversation across requests.
func TestWebConversationContinues(t *testing.T) {
	t.Parallel()
	ctx, c, x := startAskingAgent(t)
	_, srv := serveWebOf(t, ctx, c)

	post := func(path, body string) {
		t.Helper()
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
	}
	post("/tasks", `{"text":"one"}`)
	first := x.received()[0].ContextID
	post("/tasks", `{"text":"two","context":"`+first+`"}`)
	chat := `{"id":"chat-7","messages":[{"id":"%s","role":"user","parts":[{"type":"text","text":"hi"}]}]}`
	post("/api/chat", strings.Replace(chat, "%s", "u1", 1))
	post("/api/chat", strings.Replace(chat, "%s", "u2", 1))
	got := x.received()
	ctxs := []string{got[0].ContextID, got[1].ContextID, got[2].ContextID, got[3].ContextID}
	if ctxs[0] != ctxs[1] || ctxs[2] != ctxs[3] || ctxs[0] == ctxs[2] || ctxs[2] == "chat-7" {
		t.Errorf("contexts %q: want the page's two turns in one, the chat's two in another (not the chat id itself)", ctxs)
	}
}
