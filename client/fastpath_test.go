package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/transport"
	"github.com/tfrs/a2a-progress/schema"
)

// sentRequest is what an outgoing request carried, as a2a-go built it.
type sentRequest struct {
	Method, URL string
	Header      http.Header
	Body        any
}

// requestLog records the requests a client sends (a RoundTripper under
// the client's own layers).
type requestLog struct {
	mu   sync.Mutex
	reqs []sentRequest
}

func (l *requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	r := sentRequest{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone()}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(b))
		var v any
		if json.Unmarshal(b, &v) == nil {
			// A JSON-RPC request's id is a fresh UUID per call.
			if m, ok := v.(map[string]any); ok && m["jsonrpc"] != nil {
				m["id"] = "<uuid>"
			}
			r.Body = v
		} else {
			r.Body = string(b)
		}
	}
	l.mu.Lock()
	l.reqs = append(l.reqs, r)
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// oracle registers, when on, a2a-go's own four HTTP transports on hc
// (WithFactoryOptions: the caller's transports win): a2a-go reading the
// streams, the oracle the client's own streaming path is compared with.
// The client itself never reads a stream that way.
func oracle(on bool, hc *http.Client) Option {
	if !on {
		return func(*config) {}
	}
	return WithFactoryOptions(a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc}))
}

// The fast path changes who reads the response, never the request: a Send
// and a Follow (SubscribeToTask) send the same requests — method, URL, every header, body — with it on and
// off, on every HTTP transport and version, with credentials, service
// parameters and (JSON-RPC) a tenant.
func TestFastPathSendsA2AGoRequests(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(5, agenttest.Named("short")))
	for _, c := range combos() {
		if c.t == a2a.TransportProtocolGRPC {
			continue
		}
		t.Run(c.String(), func(t *testing.T) {
			run := func(fast bool) []sentRequest {
				log := &requestLog{}
				hc := &http.Client{Transport: log}
				opts := []Option{WithHTTPClient(hc), oracle(!fast, hc),
					WithAuth("Bearer secret"), WithServiceParam("X-Trace", "t-1"), WithServiceParam("X-Trace", "t-2")}
				if c.t == a2a.TransportProtocolJSONRPC {
					// In the body; on REST a tenant is a path prefix the
					// callee does not route.
					opts = append(opts, WithTenant("acme"))
				}
				cl := newForced(t, s, c, opts...)
				msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("short"))
				msg.ID = "fixed-message-id"
				// Send gives a message without a context a new one each time.
				msg.ContextID = "fixed-context-id"
				st, err := cl.Send(testCtx(t), msg)
				if err != nil {
					t.Fatal(err)
				}
				r := collect(t, st)
				if r.err != nil {
					t.Fatalf("send: %v", r.err)
				}
				f, err := cl.Follow(testCtx(t), st.TaskID())
				if err != nil {
					t.Fatal(err)
				}
				if r := collect(t, f); r.err != nil {
					t.Fatalf("follow: %v", r.err)
				}
				// The streaming calls: whether the callee still takes the
				// subscription or has settled (then GetTask follows, off
				// the fast path) depends on timing, not on the path.
				var streaming []sentRequest
				for _, r := range log.reqs {
					if r.Header.Get("Accept") != "text/event-stream" {
						continue
					}
					// The task id is the callee's, per run.
					r.URL = replaceAll(r.URL, string(st.TaskID()), "<task>")
					r.Body = replaceIn(r.Body, string(st.TaskID()), "<task>")
					streaming = append(streaming, r)
				}
				return streaming
			}
			off, on := run(false), run(true)
			if len(off) != 2 {
				t.Fatalf("%d streaming requests recorded, want 2 (send, subscribe)", len(off))
			}
			if diff := cmp.Diff(off, on); diff != "" {
				t.Errorf("requests differ (-a2a-go reader +fast path):\n%s", diff)
			}
		})
	}
}

func replaceAll(s, old, new string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte(old), []byte(new)))
}

// replaceIn replaces old in every string of a decoded JSON value.
func replaceIn(v any, old, new string) any {
	switch x := v.(type) {
	case string:
		return replaceAll(x, old, new)
	case map[string]any:
		for k, e := range x {
			x[k] = replaceIn(e, old, new)
		}
	case []any:
		for i, e := range x {
			x[i] = replaceIn(e, old, new)
		}
	}
	return v
}

// The same stream read both ways gives the same Updates, frame kinds the
// fast path decodes itself (status updates) and those it hands to a2a-go
// (the snapshot, an artifact, frames with case-variant or repeated keys,
// an object-form tfrs, a frame split over data lines) alike.
func TestFastPathSameUpdates(t *testing.T) {
	t.Parallel()
	art := &a2a.TaskArtifactUpdateEvent{TaskID: rawTask, ContextID: "c1",
		Artifact: &a2a.Artifact{ID: "a1", Name: "notes", Parts: a2a.ContentParts{a2a.NewTextPart("out")}}}
	done := completed("done")
	frames := []string{
		string(renderFrame(taskEv(a2a.TaskStateSubmitted, userMsg()))),
		string(renderFrame(working(1, "one"))),
		string(renderFrame(working(2, "two"))),
		// A tfrs string that is no valid envelope: the client falls back to
		// the text, from a2a-go's event of the frame (so it has an Event).
		"data: " + `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m2b","role":"ROLE_AGENT","parts":[{"text":"not an envelope","metadata":{"tfrs":"{\"v\":\"x\"}"}}]}}}}}` + "\n\n",
		// Case-variant key: a2a-go folds "TaskId" into taskId.
		"data: " + `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"TaskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m3","role":"ROLE_AGENT","parts":[{"text":"three"}]}}}}}` + "\n\n",
		// Repeated key: the last wins in a2a-go.
		"data: " + `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m4","messageId":"m4b","role":"ROLE_AGENT","parts":[{"text":"four"}]}}}}}` + "\n\n",
		// Object-form tfrs.
		"data: " + `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m5","role":"ROLE_AGENT","parts":[{"text":"five","metadata":{"tfrs":{"v":1,"kind":"text","seq":5,"status":"running","payload":{"text":"five"}}}}]}}}}}` + "\n\n",
		// One frame over three data lines, CRLF, and a comment between.
		": ping\r\n" + "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\r\ndata: \"result\":\r\ndata: " +
			strings.TrimPrefix(strings.TrimSuffix(string(renderFrame(working(6, "six"))), "}\n\n"), "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":") + "}\r\n\r\n",
		string(renderFrame(art)),
		string(renderFrame(done)),
	}
	run := func(opts ...Option) result {
		a := newRawAgent(t, func(w *sseWriter) {
			for _, f := range frames {
				w.rawBytes([]byte(f))
			}
		})
		st, err := a.client(t, opts...).Send(testCtx(t), sameMessage())
		if err != nil {
			t.Fatal(err)
		}
		return collect(t, st)
	}
	off := run(oracle(true, &http.Client{}))
	if off.err != nil || len(off.updates) < len(frames) {
		t.Fatalf("a2a-go reader: %v, %d updates", off.err, len(off.updates))
	}
	// Updates of events without a timestamp (the snapshot, these working
	// updates) are stamped on arrival, and so are their blocks' at.
	// Errors: the same error, or (the two readers' envelope errors for one
	// fallback) the same text.
	sameErr := cmp.Comparer(func(a, b error) bool {
		return errors.Is(a, b) || a != nil && b != nil && a.Error() == b.Error()
	})
	opts := cmp.Options{cmpopts.IgnoreFields(Update{}, "Timestamp"), cmpopts.IgnoreFields(schema.Op{}, "At"),
		cmpopts.IgnoreFields(schema.Block{}, "At"), sameErr}
	// With WithEvents, every update equals a2a-go's, Event included; by
	// default the plain progress frames' updates (working(1), working(2),
	// working(6)) carry no Event, and are otherwise the same.
	events := run(WithEvents(true))
	if diff := cmp.Diff(off.updates, events.updates, opts); diff != "" {
		t.Errorf("updates differ (-a2a-go reader +client's reader, WithEvents):\n%s", diff)
	}
	on := run()
	var plain int
	for i := range on.updates {
		if i < len(off.updates) && on.updates[i].Event == nil && off.updates[i].Event != nil {
			plain++
		}
	}
	// working(1): its UpdateState (submitted→working) and UpdateProgress;
	// working(2) and working(6): an UpdateProgress each. The case-variant,
	// repeated-key and object-form frames are a2a-go's to decode; the
	// invalid envelope's fallback carries the event it read its text from.
	if plain != 4 {
		t.Errorf("%d updates without Event, want 4", plain)
	}
	if diff := cmp.Diff(off.updates, on.updates, opts, cmpopts.IgnoreFields(Update{}, "Event")); diff != "" {
		t.Errorf("updates differ (-a2a-go reader +client's reader):\n%s", diff)
	}
	for _, r := range []result{events, on} {
		if diff := cmp.Diff(off.view, r.view, cmpopts.IgnoreFields(schema.Block{}, "At")); diff != "" {
			t.Errorf("views differ (-a2a-go reader +client's reader):\n%s", diff)
		}
	}
}

// A frame that a2a-go fails on — malformed JSON, a JSON-RPC error — fails
// the fast path with a2a-go's own error: the same reconnect, the same
// cause.
func TestFastPathSameErrors(t *testing.T) {
	for name, bad := range map[string]string{
		"malformed": `{not json`,
		"rpc error": `{"jsonrpc":"2.0","id":"1","error":{"code":-32603,"message":"internal error"}}`,
		"no event":  `{"jsonrpc":"2.0","id":"1","result":{"bogusUpdate":{}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			// Rendered once: completed() stamps the time.
			first := [][]byte{renderFrame(taskEv(a2a.TaskStateSubmitted, userMsg())), renderFrame(working(1, "one"))}
			second := [][]byte{renderFrame(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one"))), renderFrame(completed("done"))}
			run := func(fast bool) result {
				a := newRawAgent(t,
					func(w *sseWriter) {
						for _, f := range first {
							w.rawBytes(f)
						}
						w.raw(bad)
					},
					func(w *sseWriter) {
						for _, f := range second {
							w.rawBytes(f)
						}
					})
				// WithEvents: Update.Event is a2a-go's event on every update.
				st, err := a.client(t, oracle(!fast, &http.Client{}), WithEvents(true)).Send(testCtx(t), sameMessage())
				if err != nil {
					t.Fatal(err)
				}
				return collect(t, st)
			}
			off, on := run(false), run(true)
			if off.count(UpdateReconnect) != 1 {
				t.Fatalf("a2a-go reader: %d reconnects", off.count(UpdateReconnect))
			}
			opts := cmp.Options{cmpopts.IgnoreFields(Update{}, "Timestamp"),
				cmpopts.IgnoreFields(schema.Op{}, "At"), cmpopts.IgnoreFields(schema.Block{}, "At"),
				cmp.Transformer("error", func(err error) string {
					if err == nil {
						return ""
					}
					return err.Error()
				})}
			if diff := cmp.Diff(off.updates, on.updates, opts); diff != "" {
				t.Errorf("updates differ (-a2a-go reader +fast path):\n%s", diff)
			}
		})
	}
}

// sameMessage is the message both readers are sent: one message id, which
// is the turn's id, and one context (Send would give a message without one
// a new context each time).
func sameMessage() *a2a.Message {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))
	msg.ID, msg.ContextID = "m-go", "c1"
	return msg
}

// A stream whose lines end in a bare CR (WHATWG allows it) is read by the
// fast path as it is, and bounded per event by its reader alone: the
// transport's LF-only scan once refused it when the events together passed
// the bound of one.
func TestFastPathCROnlyStream(t *testing.T) {
	t.Parallel()
	const n = 20
	a := newRawAgent(t, func(w *sseWriter) {
		cr := func(ev a2a.Event) []byte { return bytes.ReplaceAll(renderFrame(ev), []byte("\n"), []byte("\r")) }
		w.rawBytes(cr(taskEv(a2a.TaskStateSubmitted, userMsg())))
		for i := int64(1); i <= n; i++ {
			w.rawBytes(cr(working(i, strings.Repeat("x", 400))))
		}
		w.rawBytes(cr(completed("done")))
	})
	r := collect(t, sendSame(t, a.client(t, withBounds(transport.Bounds{Response: transport.DefaultBounds().Response, Event: 4 << 10}))))
	if r.err != nil {
		t.Fatalf("stream: %v", r.err)
	}
	if diff := cmp.Diff(int64(n), r.view.Counters.Applied); diff != "" {
		t.Errorf("blocks applied (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("done", r.out.Reply); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
}

func sendSame(t *testing.T, c *Client) *Stream {
	t.Helper()
	st, err := c.Send(testCtx(t), sameMessage())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
