package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// Follow and Poll of a task the agent does not know end with
// a2a.ErrTaskNotFound — not an incomplete turn, which would say the task
// was under way — over every transport and version of the reference
// callee, and Outcome says the same.
func TestFollowUnknownTaskEveryTransport(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	for _, c := range combos() {
		for _, mode := range []string{"follow", "poll"} {
			t.Run(c.String()+"-"+mode, func(t *testing.T) {
				cl := newForced(t, s, c, fastRetry)
				checkNotFound(t, cl, mode, true)
			})
		}
	}
}

// checkNotFound follows or polls the task "no-such-task" and checks that
// the stream ends with a2a.ErrTaskNotFound and not ErrIncomplete (or, when
// notFound is false, that it does not claim the task is missing).
func checkNotFound(t *testing.T, cl *Client, mode string, notFound bool) {
	t.Helper()
	var st *Stream
	if mode == "follow" {
		st, _ = cl.Follow(testCtx(t), "no-such-task")
	} else {
		st, _ = cl.Poll(testCtx(t), "no-such-task", time.Millisecond)
	}
	r := collect(t, st)
	type verdict struct{ NotFound, Incomplete, OutcomeSame bool }
	want := verdict{NotFound: notFound, Incomplete: !notFound, OutcomeSame: true}
	got := verdict{errors.Is(r.err, a2a.ErrTaskNotFound), errors.Is(r.err, ErrIncomplete), r.outErr == r.err}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stream error %v (-want +got):\n%s", r.err, d)
	}
	if r.count(UpdateSnapshot)+r.count(UpdateProgress) != 0 {
		t.Errorf("updates of a task that does not exist: %v", r.updates)
	}
}

// notFoundAgent answers every call the way one kind of server says "no
// such task".
type notFoundAgent struct {
	t       a2a.TransportProtocol
	v       a2a.ProtocolVersion
	handler http.HandlerFunc
	// notFound: whether the answer means "task not found" (a 404 from a
	// JSON-RPC endpoint is a wrong URL).
	notFound bool
}

// jsonrpcError answers a JSON-RPC call with an error object, on an event
// stream for the streaming methods as A2A servers do.
func jsonrpcError(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"Task not found"}}`, req.ID, code)
		switch req.Method {
		case "SubscribeToTask", "tasks/resubscribe":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", body)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
		}
	}
}

// status404 answers every request 404 with the given body.
func status404(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, body)
	}
}

// Servers other than a2a-go's say "no such task" in their own ways; each
// one, over a real socket, ends Follow and Poll with a2a.ErrTaskNotFound.
func TestFollowUnknownTaskOtherServers(t *testing.T) {
	t.Parallel()
	jsonrpc, rest := a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON
	cases := map[string]notFoundAgent{
		"jsonrpc-1.0 -32001":                 {jsonrpc, agenttest.V1, jsonrpcError(-32001), true},
		"jsonrpc-0.3 -32001":                 {jsonrpc, agenttest.V0, jsonrpcError(-32001), true},
		"rest-1.0 404 google.rpc.Status":     {rest, agenttest.V1, status404("application/json", `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`), true},
		"rest-1.0 404 text":                  {rest, agenttest.V1, status404("text/plain", "404 page not found\n"), true},
		"rest-1.0 404 json without status":   {rest, agenttest.V1, status404("application/json", `{"error":"task not found"}`), true},
		"rest-0.3 404 js-sdk body":           {rest, agenttest.V0, status404("application/json", `{"code":-32001,"message":"Task not found: no-such-task"}`), true},
		"rest-0.3 404 text":                  {rest, agenttest.V0, status404("text/plain", "Not Found"), true},
		"jsonrpc-1.0 404 is a wrong url":     {jsonrpc, agenttest.V1, status404("text/plain", "404 page not found\n"), false},
		"rest-1.0 500 is not a missing task": {rest, agenttest.V1, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) }, false},
	}
	for name, a := range cases {
		for _, mode := range []string{"follow", "poll"} {
			t.Run(name+"-"+mode, func(t *testing.T) {
				srv := httptest.NewServer(a.handler)
				t.Cleanup(srv.Close)
				cl, err := New(testCtx(t), srv.URL, WithTransport(a.t), WithProtocolVersion(a.v), WithRetry(1, time.Millisecond, time.Millisecond))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cl.Close() })
				checkNotFound(t, cl, mode, a.notFound)
			})
		}
	}
}

// A refused credential cannot heal: a peer that answers every call 401 or
// 403 ends the turn after one subscription and one GetTask, with
// a2a.ErrUnauthenticated or a2a.ErrUnauthorized in its cause, whatever
// WithRetry allows. (a2a-go's JSON-RPC transport reports such a status
// bare; the client puts its meaning back.)
func TestRefusedCredentialEndsAtOnce(t *testing.T) {
	t.Parallel()
	type tc struct {
		p       a2a.TransportProtocol
		handler http.HandlerFunc
		want    error
	}
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", code) }
	}
	cases := map[string]tc{
		// A GetTask the agent does not offer cannot heal either.
		"jsonrpc method not found": {a2a.TransportProtocolJSONRPC, jsonrpcError(-32601), a2a.ErrMethodNotFound},
	}
	for _, p := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		cases[fmt.Sprint(p, " 401")] = tc{p, status(http.StatusUnauthorized), a2a.ErrUnauthenticated}
		cases[fmt.Sprint(p, " 403")] = tc{p, status(http.StatusForbidden), a2a.ErrUnauthorized}
	}
	for name, c := range cases {
		p, want := c.p, c.want
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				calls++
				mu.Unlock()
				c.handler(w, r)
			}))
			t.Cleanup(srv.Close)
			cl, err := New(testCtx(t), srv.URL, WithTransport(p), WithRetry(6, time.Millisecond, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cl.Close() })
			st, _ := cl.Follow(testCtx(t), "t1")
			r := collect(t, st)
			if !errors.Is(r.err, want) || !strings.Contains(fmt.Sprint(r.err), "no retry can change this") {
				t.Fatalf("err = %v, want %v that no retry can change", r.err, want)
			}
			mu.Lock()
			defer mu.Unlock()
			if calls != 2 {
				t.Errorf("%d calls, want 2: one subscription, one GetTask", calls)
			}
		})
	}
}
