package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
)

// startWeb serves `a2a-tail web` over a client of the reference callee;
// all of it closes when the test ends.
func startWeb(t *testing.T) *httptest.Server {
	_, srv := startWebContext(t)
	return srv
}

// startWebContext is startWeb with the context (a minute) the server and
// its client run in, for the test's own requests.
func startWebContext(t *testing.T) (context.Context, *httptest.Server) {
	t.Helper()
	ctx, c := startWebAgent(t)
	ws := newWebServer(ctx, client.LazyOf(c), webPolicy{auth: relay.AllowLoopback, tasks: relay.NewTaskSet(0)})
	srv := httptest.NewServer(ws)
	t.Cleanup(func() { ws.Close() })
	t.Cleanup(srv.Close)
	return ctx, srv
}

// startWebAgent starts the reference callee (with opts) and a client of
// it, in a context of a minute; all of it closes when the test ends.
func startWebAgent(t *testing.T, opts ...agenttest.Option) (context.Context, *client.Client) {
	t.Helper()
	agent, err := agenttest.New(append([]agenttest.Option{agenttest.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	t.Cleanup(cancel)
	c, err := client.New(ctx, agent.CardURL(agenttest.V1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ctx, c
}

// POST /tasks dispatches a message and answers its task id; bad requests
// get a JSON error and send nothing.
func TestWebSend(t *testing.T) {
	t.Parallel()
	srv := startWeb(t)

	cases := []struct {
		name, ctype, body string
		status            int
		errText           string
	}{
		{"sent", "application/json", `{"text":"realistic"}`, 200, ""},
		{"sent, charset", "application/json; charset=UTF-8", `{"text":"realistic"}` + "\n", 200, ""},
		{"form post", "text/plain", `{"text":"hi"}`, 415, "a2a-tail: POST /tasks: relay: the request must be application/json (UTF-8)"},
		{"jsonx", "application/jsonx", `{"text":"hi"}`, 415, "a2a-tail: POST /tasks: relay: the request must be application/json (UTF-8)"},
		{"latin-1", "application/json; charset=iso-8859-1", `{"text":"hi"}`, 415, "a2a-tail: POST /tasks: relay: the request must be application/json (UTF-8)"},
		{"empty", "application/json", `{"text":"  "}`, 400, `a2a-tail: "text" is empty`},
		{"not json", "application/json", `text=hi`, 400, "a2a-tail: POST /tasks: relay: the request is not the JSON expected: invalid character 'e' in literal true (expecting 'r')"},
		{"trailing data", "application/json", `{"text":"hi"} {"text":"again"}`, 400, "a2a-tail: POST /tasks: relay: the request is not the JSON expected: invalid character '{' after top-level value"},
		{"invalid utf-8", "application/json", "{\"text\":\"h\xffi\"}", 400, "a2a-tail: POST /tasks: relay: the request body is not valid UTF-8"},
		{"oversize", "application/json", `{"text":"` + strings.Repeat("x", maxSendBytes) + `"}`, 413, "a2a-tail: POST /tasks: relay: request body over 65536 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+"/tasks", tc.ctype, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			var body struct{ Task, Error string }
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.errText, body.Error); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			if tc.status == 200 && relay.ValidateTaskID(body.Task) != nil {
				t.Errorf("task id %q", body.Task)
			}
		})
	}
	for _, path := range []string{"/", "/app.js", "/receiver.js", "/nest.js", "/style.css"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: status %d, CSP %q", path, resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
		}
	}
}

// Listening beyond loopback needs --allow-remote, and then warns.
func TestWebListen(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"web", "--listen", "0.0.0.0:0", "http://127.0.0.1:1"}, nil, &stdout, &stderr)
	if code != exitUsage {
		t.Errorf("exit %d, want %d (usage); stderr %q", code, exitUsage, stderr.String())
	}
	if !strings.Contains(stderr.String(), "--allow-remote") {
		t.Errorf("stderr %q does not name --allow-remote", stderr.String())
	}
	// A short token guards nothing: refused, with the minimum said.
	stderr.Reset()
	code = run(context.Background(), []string{"web", "--listen", "0.0.0.0:0", "--allow-remote", "--token", "x", "http://127.0.0.1:1"}, nil, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--token (or $A2A_TAIL_WEB_TOKEN) has 1 characters: an access token needs at least 16") {
		t.Errorf("--token x: exit %d, stderr %q: want a usage error naming the minimum", code, stderr.String())
	}
	a := newApp(nil, &stdout, &stderr)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve, print, and stop at once
	stdout.Reset()
	stderr.Reset()
	if err := a.serveWeb(ctx, nil, webFlags{listen: "0.0.0.0:0", allowRemote: true}, "", nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "beyond loopback") || !strings.HasPrefix(stdout.String(), "http://") ||
		!strings.Contains(stdout.String(), "/?token=") {
		t.Errorf("stdout %q stderr %q: want the URL with its token and a warning", stdout.String(), stderr.String())
	}
}
