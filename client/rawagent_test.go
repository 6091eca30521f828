package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
)

// rawAgent is a JSON-RPC A2A 1.0 agent written by hand, for what a2asrv
// never sends: malformed frames, giant frames, events out of order,
// silence. Each streaming call (SendStreamingMessage, SubscribeToTask)
// plays the next script; when none is left it refuses with TaskNotFound,
// as a2a-go does for a settled task. GetTask answers task.
type rawAgent struct {
	srv *httptest.Server

	mu      sync.Mutex
	scripts []func(w *sseWriter)
	task    *a2a.Task
	methods []string
}

func newRawAgent(t *testing.T, scripts ...func(w *sseWriter)) *rawAgent {
	t.Helper()
	a := &rawAgent{scripts: scripts}
	a.srv = httptest.NewServer(a)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *rawAgent) client(t *testing.T, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithTransport(a2a.TransportProtocolJSONRPC), fastRetry}, opts...)
	c, err := New(testCtx(t), a.srv.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (a *rawAgent) setTask(task *a2a.Task) {
	a.mu.Lock()
	a.task = task
	a.mu.Unlock()
}

func (a *rawAgent) calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.methods...)
}

func (a *rawAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.methods = append(a.methods, req.Method)
	var script func(*sseWriter)
	if (req.Method == "SendStreamingMessage" || req.Method == "SubscribeToTask") && len(a.scripts) > 0 {
		script, a.scripts = a.scripts[0], a.scripts[1:]
	}
	task := a.task
	a.mu.Unlock()

	switch req.Method {
	case "SendStreamingMessage", "SubscribeToTask":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		sw := &sseWriter{w: w, id: req.ID, r: r}
		if script == nil {
			sw.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"task not found"}}`, req.ID))
			return
		}
		script(sw)
	case "SendMessage":
		// An agent that answers at once with a Message: no task.
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"message":{"messageId":"r1","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}}`, req.ID)
	case "GetTask":
		w.Header().Set("Content-Type", "application/json")
		if task == nil {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"task not found"}}`, req.ID)
			return
		}
		b, _ := json.Marshal(task)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, b)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
	}
}

// sseWriter writes one SSE response.
type sseWriter struct {
	w  http.ResponseWriter
	r  *http.Request
	id json.RawMessage
}

// event writes ev as a JSON-RPC result frame.
func (s *sseWriter) event(ev a2a.Event) {
	b, err := json.Marshal(a2a.StreamResponse{Event: ev})
	if err != nil {
		panic(err)
	}
	s.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, s.id, b))
}

// raw writes data as one SSE event, as is.
func (s *sseWriter) raw(data string) {
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	s.w.(http.Flusher).Flush()
}

// rawBytes writes a frame rendered by renderFrame.
func (s *sseWriter) rawBytes(frame []byte) {
	_, _ = s.w.Write(frame)
	s.w.(http.Flusher).Flush()
}

// renderFrame renders ev as a whole SSE event, ahead of time.
func renderFrame(ev a2a.Event) []byte {
	b, err := json.Marshal(a2a.StreamResponse{Event: ev})
	if err != nil {
		panic(err)
	}
	return []byte(fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":%s}\n\n", b))
}

// comment writes an SSE comment (a keep-alive).
func (s *sseWriter) comment() {
	fmt.Fprint(s.w, ": keep-alive\n\n")
	s.w.(http.Flusher).Flush()
}

// hang keeps the response open, silent, until the client leaves.
func (s *sseWriter) hang() { <-s.r.Context().Done() }

// Helpers to build the events of task "t1".
const rawTask = a2a.TaskID("t1")

var rawInfo = a2a.TaskInfo{TaskID: rawTask, ContextID: "c1"}

func taskEv(state a2a.TaskState, history ...*a2a.Message) *a2a.Task {
	return &a2a.Task{ID: rawTask, ContextID: "c1", Status: a2a.TaskStatus{State: state}, History: history}
}

func userMsg() *a2a.Message {
	return &a2a.Message{ID: "u1", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("go")}}
}

// envMsg is a working status message carrying an envelope of kind text.
func envMsg(seq int64, text string) *a2a.Message {
	p, err := envelope.NewPart(envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: seq, Status: envelope.StatusRunning,
		Payload: envelope.Text{Text: text}}, "")
	if err != nil {
		panic(err)
	}
	return &a2a.Message{ID: fmt.Sprintf("m%d", seq), Role: a2a.MessageRoleAgent, TaskID: rawTask, ContextID: "c1", Parts: a2a.ContentParts{p}}
}

func working(seq int64, text string) *a2a.TaskStatusUpdateEvent {
	ts := time.Date(2026, 11, 30, 12, 0, int(seq), 0, time.UTC)
	return &a2a.TaskStatusUpdateEvent{TaskID: rawTask, ContextID: "c1",
		Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: envMsg(seq, text), Timestamp: &ts}}
}

func completed(text string) *a2a.TaskStatusUpdateEvent {
	return a2a.NewStatusUpdateEvent(rawInfo, a2a.TaskStateCompleted,
		&a2a.Message{ID: "final", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart(text)}})
}
