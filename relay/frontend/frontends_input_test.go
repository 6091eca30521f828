package frontend

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// TestFrontendBadRequests: a request the endpoints cannot send gets a
// specific 4xx with a JSON reason, before anything reaches the agent (the
// agent here is nil: a send would panic).
func TestFrontendBadRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deny := func(r *http.Request, task string) error {
		if r.Header.Get("X-Deny") != "" {
			return errors.New("denied")
		}
		return nil
	}
	h := relay.New(ctx, nil, relay.WithAuthorizer(deny), relay.WithCORS("https://app.example"))
	defer h.Close()
	agui, chat := AGUI(h, nil), Chat(h, nil)
	big := `{"threadId":"t","messages":[{"id":"u","role":"user","content":"` + strings.Repeat("x", maxFrontendBodyBytes) + `"}]}`
	long := `{"threadId":"t","messages":[{"id":"u","role":"user","content":"` + strings.Repeat("x", maxFrontendTextBytes+1) + `"}]}`
	for _, tc := range []struct {
		name, method, path, body string
		deny                     bool
		handler                  http.Handler
		status                   int
		reason                   string
	}{
		{"ag-ui not json", "POST", "/ag-ui", "{", false, agui, 400, "not the JSON expected"},
		{"ag-ui bad thread", "POST", "/ag-ui", `{"threadId":"a b","messages":[]}`, false, agui, 400, "threadId"},
		{"ag-ui no user message", "POST", "/ag-ui", `{"threadId":"t","messages":[{"id":"a","role":"assistant","content":"hi"}]}`, false, agui, 400, "no user message"},
		{"ag-ui body too large", "POST", "/ag-ui", big, false, agui, 413, "over"},
		{"ag-ui text too long", "POST", "/ag-ui", long, false, agui, 400, "over"},
		{"ag-ui denied", "POST", "/ag-ui", `{}`, true, agui, 403, "denied"},
		{"chat not json", "POST", "/api/chat", "[", false, chat, 400, "not the JSON expected"},
		{"chat bad id", "POST", "/api/chat", `{"id":"../x","messages":[]}`, false, chat, 400, "chat id"},
		{"chat no user message", "POST", "/api/chat", `{"id":"c","messages":[]}`, false, chat, 400, "no user message"},
		{"chat empty text", "POST", "/api/chat", `{"id":"c","messages":[{"id":"u","role":"user","parts":[{"type":"file"}]}]}`, false, chat, 400, "no user message with text"},
		{"chat wrong method", "PUT", "/api/chat", `{}`, false, chat, 405, "POST"},
		{"chat resume bad id", "GET", "/api/chat/a%20b/stream", "", false, chat, 400, "chat id"},
		{"chat denied", "POST", "/api/chat", `{}`, true, chat, 403, "denied"},
		{"ag-ui text/plain", "POST", "/ag-ui", `{"threadId":"t"}`, false, agui, 415, "application/json"},
		{"chat form", "POST", "/api/chat", `id=c`, false, chat, 415, "application/json"},
		{"ag-ui get", "GET", "/ag-ui", "", false, agui, 405, "POST"},
		{"ag-ui preflight, other origin", "OPTIONS", "/ag-ui", "", false, agui, 403, "origin"},
		{"chat preflight, other origin", "OPTIONS", "/api/chat", "", false, chat, 403, "origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json; charset=utf-8")
			switch tc.name {
			case "ag-ui text/plain":
				req.Header.Set("Content-Type", "text/plain")
			case "chat form":
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			if tc.deny {
				req.Header.Set("X-Deny", "1")
			}
			rec := httptest.NewRecorder()
			tc.handler.ServeHTTP(rec, req)
			var body struct{ Error string }
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
			if rec.Code != tc.status || !strings.Contains(body.Error, tc.reason) {
				t.Errorf("got %d %q, want %d with %q", rec.Code, body.Error, tc.status, tc.reason)
			}
		})
	}
}

func TestAGUIInterruptIDNamesTask(t *testing.T) {
	for _, task := range []string{"t-1", "a:b:c", "0f3c9e2e-7b1a-4c55-9d1e-2f6a1c9b8e77"} {
		for n := range 3 {
			if got := aguiInterruptTask(aguiInterruptID(task, n)); got != task {
				t.Errorf("aguiInterruptTask(aguiInterruptID(%q, %d)) = %q", task, n, got)
			}
		}
	}
	for _, id := range []string{"", "a2a:", "a2a::1", "x:t:1", "other"} {
		if got := aguiInterruptTask(id); got != "" {
			t.Errorf("aguiInterruptTask(%q) = %q, want none", id, got)
		}
	}
}

// TestFrontIDsStable: the ids of a turn's items are a function of the task,
// the turn and the block — the same on every replica and reconnect — and
// differ between turns.
func TestFrontIDsStable(t *testing.T) {
	var ids [2][]string
	for i := range ids {
		v := play(realisticReadings(), nil, func(*schema.View, *frontResult) {})
		for _, it := range frontItems(&v, (*frontIDs)(nil).forTurn(frontPrefix(mapTask, mapTurn)), nil) {
			ids[i] = append(ids[i], it.id)
		}
	}
	if diff := cmp.Diff(ids[0], ids[1]); diff != "" {
		t.Errorf("ids differ between two builds (-first +second):\n%s", diff)
	}
	if frontPrefix(mapTask, "turn-1") == frontPrefix(mapTask, "turn-2") {
		t.Error("two turns share an id prefix")
	}
}

// TestFrontendPreflight: a front end served from an origin given to
// WithCORS may POST JSON to the endpoints.
func TestFrontendPreflight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := relay.New(ctx, nil, relay.WithAuthorizer(relay.AllowAll), relay.WithCORS("https://app.example"))
	defer h.Close()
	for _, hd := range []http.Handler{AGUI(h, nil), Chat(h, nil)} {
		req := httptest.NewRequest(http.MethodOptions, "/x", nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		rec := httptest.NewRecorder()
		hd.ServeHTTP(rec, req)
		got := []string{strconv.Itoa(rec.Code), rec.Header().Get("Access-Control-Allow-Origin"),
			rec.Header().Get("Access-Control-Allow-Methods"), rec.Header().Get("Access-Control-Allow-Headers")}
		want := []string{"204", "https://app.example", "POST, GET", "Content-Type, Authorization, Last-Event-ID"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("preflight (-want +got):\n%s", diff)
		}
	}
}

// TestEventsPreflight: the events endpoint answers the preflight of an
// allowed origin with GET and its headers, and refuses any other origin.
func TestEventsPreflight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := relay.New(ctx, nil, relay.WithAuthorizer(relay.AllowAll), relay.WithCORS("https://app.example"))
	defer h.Close()
	for _, tc := range []struct {
		origin string
		want   []string
	}{
		{"https://app.example", []string{"204", "https://app.example", "GET", "Last-Event-ID, Authorization"}},
		{"https://other.example", []string{"403", "", "", ""}},
	} {
		req := httptest.NewRequest(http.MethodOptions, "/tasks/t1/events", nil)
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", "GET")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := []string{strconv.Itoa(rec.Code), rec.Header().Get("Access-Control-Allow-Origin"),
			rec.Header().Get("Access-Control-Allow-Methods"), rec.Header().Get("Access-Control-Allow-Headers")}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("preflight from %s (-want +got):\n%s", tc.origin, diff)
		}
	}
}
