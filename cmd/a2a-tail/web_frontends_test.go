package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// aisdkHeader marks a UI message stream response (the AI SDK's protocol v1).
const aisdkHeader = "x-vercel-ai-ui-message-stream"

// `a2a-tail web` mounts the front ends' own routes: POST /ag-ui answers AG-UI
// events, POST /api/chat a UI message stream (with its header), and the
// resume of a chat with no task is 204. (The relay's tests check what the
// client libraries make of them.)
func TestWebMountsFrontEndRoutes(t *testing.T) {
	t.Parallel()
	ctx, srv := startWebContext(t)

	post := func(path, body string) *http.Response {
		t.Helper()
		return postJSON(ctx, t, srv.URL+path, body)
	}
	// firstType reads the first SSE data event's "type".
	firstType := func(resp *http.Response) string {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev struct{ Type string }
				_ = json.Unmarshal([]byte(data), &ev)
				return ev.Type
			}
		}
		return ""
	}

	resp := post("/ag-ui", `{"threadId":"th-1","runId":"r1","messages":[{"id":"m1","role":"user","content":"realistic"}]}`)
	if got := firstType(resp); resp.StatusCode != 200 || got != "RUN_STARTED" {
		t.Errorf("POST /ag-ui: %d, first event %q; want 200, RUN_STARTED", resp.StatusCode, got)
	}
	resp = post("/api/chat", `{"id":"chat-1","messages":[{"id":"m2","role":"user","parts":[{"type":"text","text":"realistic"}]}]}`)
	if got := firstType(resp); resp.StatusCode != 200 || got != "start" || resp.Header.Get(aisdkHeader) != "v1" {
		t.Errorf("POST /api/chat: %d, %s %q, first part %q; want 200, v1, start", resp.StatusCode, aisdkHeader, resp.Header.Get(aisdkHeader), got)
	}
	r2, err := http.Get(srv.URL + "/api/chat/no-such-chat/stream")
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusNoContent {
		t.Errorf("GET /api/chat/no-such-chat/stream: %d, want 204", r2.StatusCode)
	}
}

// postJSON POSTs body to u as JSON and returns the response; the caller
// closes its body.
func postJSON(ctx context.Context, t *testing.T, u, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
