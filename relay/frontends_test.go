package relay_test

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
	"github.com/tfrs/a2a-progress/relay/frontend"
)

// TestFrontendBadRequests: a request the endpoints cannot send gets a
// specific 4xx with a JSON reason, before anything reaches the agent (the
// agent here is nil: a send would panic).
func TestFrontendBadRequests(t *testing.T) {
	t.Parallel()
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
	agui, chat := h.AGUI(nil), h.Chat(nil)
	big := `{"threadId":"t","messages":[{"id":"u","role":"user","content":"` + strings.Repeat("x", frontend.MaxRequestBytes) + `"}]}`
	long := `{"threadId":"t","messages":[{"id":"u","role":"user","content":"` + strings.Repeat("x", relay.MaxFrontendTextBytes+1) + `"}]}`
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

// TestFrontendPreflight: a front end served from an origin given to
// WithCORS may POST JSON to the endpoints.
func TestFrontendPreflight(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := relay.New(ctx, nil, relay.WithAuthorizer(relay.AllowAll), relay.WithCORS("https://app.example"))
	defer h.Close()
	for _, hd := range []http.Handler{h.AGUI(nil), h.Chat(nil)} {
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
	t.Parallel()
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
