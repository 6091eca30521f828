package v1query

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// seedQueryBody is the /v1/query stream of the recorded runtime analysis,
// frame for frame (client/captures_test.go checks the file against it).
func seedQueryBody(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "captures", "seed004", "query.sse"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// queryServer serves POST /v1/query: it checks the request, then writes
// body (hang: then waits for the client to go away).
type queryServer struct {
	t           *testing.T
	status      int
	contentType string
	body        string
	hang        bool
	got         chan queryRequest
}

type queryRequest struct {
	Method, Path, Auth, ContentType string
	Body                            map[string]any
}

func (q *queryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	q.got <- queryRequest{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type"), Body: body}
	ct := q.contentType
	if ct == "" {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	if q.status != 0 {
		w.WriteHeader(q.status)
	}
	_, _ = io.WriteString(w, q.body)
	w.(http.Flusher).Flush()
	if q.hang {
		<-r.Context().Done()
	}
}

func startQuery(t *testing.T, q *queryServer) string {
	q.t, q.got = t, make(chan queryRequest, 1)
	srv := httptest.NewServer(q)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(60*time.Second))
	t.Cleanup(cancel)
	return ctx
}

type result struct {
	updates []client.Update
	err     error
	out     terminal.Outcome
	outErr  error
	view    schema.View
}

func collect(t *testing.T, s *client.Stream) result {
	t.Helper()
	var r result
	for u, err := range s.Updates() {
		if err != nil {
			r.err = err
			break
		}
		r.updates = append(r.updates, u)
	}
	r.out, r.outErr = s.Outcome()
	r.view = s.View()
	return r
}

func TestSendSeedFrames(t *testing.T) {
	t.Parallel()
	q := &queryServer{body: seedQueryBody(t)}
	base := startQuery(t, q)
	st, err := Send(testCtx(t), base+"/", "帮我审核这笔报销", WithConversationID("6d72bcf8-..."), WithHeader("Authorization", "Bearer k"))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.TaskID(); got != "6d72bcf8-..." {
		t.Errorf("TaskID before the iteration = %q", got)
	}
	r := collect(t, st)
	if r.err != nil || r.outErr != nil {
		t.Fatal(r.err, r.outErr)
	}
	wantReq := queryRequest{Method: "POST", Path: "/v1/query", Auth: "Bearer k", ContentType: "application/json",
		Body: map[string]any{"conversation_id": "6d72bcf8-...", "message": "帮我审核这笔报销", "stream": true}}
	if diff := cmp.Diff(wantReq, <-q.got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}

	const key = "ri:333a9f5f-...:call_00_JIhiVhnvjabn7DCjgY2D1744"
	question := "费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。"
	wantView := schema.View{Task: "6d72bcf8-...", Sealed: true,
		Blocks: []schema.Block{
			{Key: schema.Key{StreamKey: key, Seq: 1, ID: key + ":1"}, Kind: envelope.KindToolCall, Status: envelope.StatusRunning,
				Payload: envelope.ToolCall{Tool: "expense-review", ToolCallID: "call_00_JIhiVhnvjabn7DCjgY2D1744"}, Source: schema.SourceProjection, Ordinal: 1},
			{Key: schema.Key{StreamKey: key, Seq: 2, ID: key + ":2"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
				Payload: envelope.Text{Text: "expense-review: awaiting input"}, Source: schema.SourceProjection, Ordinal: 2},
		},
		ToolCalls: []schema.ToolCall{{Key: key, Tool: "expense-review", ToolCallID: "call_00_JIhiVhnvjabn7DCjgY2D1744",
			Status: schema.ToolUnfinished, Started: true, FirstSeq: 1}},
		Counters: schema.Counters{Applied: 2},
	}
	// The endpoint has no message ids: the request names the turn.
	if !strings.HasPrefix(st.Turn(), "query:") || len(st.Turn()) <= len("query:") {
		t.Errorf("Turn = %q, want query:<id>", st.Turn())
	}
	wantView.Turn = st.Turn()
	if diff := cmp.Diff(wantView, r.view, cmpopts.IgnoreFields(schema.Block{}, "At")); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
	for _, b := range r.view.Blocks {
		if b.At.IsZero() || b.At.Location() != time.UTC {
			t.Errorf("block %v: at = %v, want its arrival time in UTC", b.Key, b.At)
		}
	}
	wantResult := schema.Op{Type: schema.OpResult, Task: "6d72bcf8-...", Turn: st.Turn(), Result: &schema.Result{
		State: "TASK_STATE_INPUT_REQUIRED", Verdict: schema.VerdictInputRequired, Context: "6d72bcf8-...",
		Interrupt: &schema.Interrupt{Question: question, Items: []schema.InterruptItem{
			{ToolCallID: "call_00_JIhiVhnvjabn7DCjgY2D1744", ToolName: "expense-review", Message: question}}},
		Counters: schema.Counters{Applied: 2}}}
	last, _ := r.updates[len(r.updates)-1].Op()
	if diff := cmp.Diff(wantResult, last); diff != "" {
		t.Errorf("result op, the last update (-want +got):\n%s", diff)
	}
	wantOut := terminal.Outcome{TaskID: "6d72bcf8-...", ContextID: "6d72bcf8-...", State: a2a.TaskStateInputRequired,
		Verdict: schema.VerdictInputRequired,
		Interrupt: &schema.Interrupt{Question: question,
			Items: []schema.InterruptItem{{ToolCallID: "call_00_JIhiVhnvjabn7DCjgY2D1744", ToolName: "expense-review", Message: question}}}}
	if diff := cmp.Diff(wantOut, r.out, cmpopts.IgnoreFields(terminal.Outcome{}, "Message")); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[client.UpdateType]int{client.UpdateProgress: 2, client.UpdateState: 1, client.UpdateResult: 1}, countTypes(r)); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

func countTypes(r result) map[client.UpdateType]int {
	m := map[client.UpdateType]int{}
	for _, u := range r.updates {
		m[u.Type]++
	}
	return m
}

func TestSendReplyAndEnds(t *testing.T) {
	t.Parallel()
	const running = `data: {"content":"RUNNING","projection":{"kind":"remote_agent_invocation","batchId":"b","toolCallId":"c","sequence":1,"target":"expense-review","phase":"RUNNING","latencyMs":0}}` + "\n\n"
	const done = `data: {"content":"COMPLETED","projection":{"kind":"remote_agent_invocation","batchId":"b","toolCallId":"c","sequence":2,"target":"expense-review","phase":"COMPLETED","resultCategory":"SUCCESS","latencyMs":900}}` + "\n\n"
	tests := []struct {
		name      string
		srv       queryServer
		opts      []Option
		wantErr   error // from Send
		wantSErr  error // from the stream
		wantState a2a.TaskState
		wantReply []string
		wantTools []schema.ToolStatus
	}{
		{
			name:      "business chunks are the reply; the body's end completes the turn",
			srv:       queryServer{body: running + "data: {\"content\":\"The expense \"}\n\n" + done + "data: {\"content\":\"is approved.\"}\n\n"},
			wantState: a2a.TaskStateCompleted,
			wantReply: []string{"The expense ", "is approved."},
			wantTools: []schema.ToolStatus{schema.ToolDone},
		},
		{
			name:     "a body cut inside a frame is incomplete, never a reply",
			srv:      queryServer{body: running + "data: {\"content\":\"The exp"},
			wantSErr: ssewire.ErrTruncated,
		},
		{
			name:     "an event over 10 MiB is the client's one ErrEventTooLarge",
			srv:      queryServer{body: running + "data: {\"content\":\"" + strings.Repeat("x", ssewire.DefaultMaxEventBytes) + "\"}\n\n"},
			wantSErr: client.ErrEventTooLarge,
		},
		{
			name:     "silence past the idle timeout is incomplete",
			srv:      queryServer{body: running, hang: true},
			opts:     []Option{WithIdleTimeout(50 * time.Millisecond)},
			wantSErr: errIdle,
		},
		{
			name:    "a refusal is Send's error",
			srv:     queryServer{status: http.StatusNotFound, contentType: "application/json", body: `{"error":"no such route"}`},
			wantErr: ErrStatus,
		},
		{
			name:    "a JSON answer is not a stream",
			srv:     queryServer{contentType: "application/json", body: `{"content":"hi"}`},
			wantErr: ErrStatus,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := startQuery(t, &tt.srv)
			st, err := Send(testCtx(t), base, "review", tt.opts...)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := collect(t, st)
			if tt.wantSErr != nil {
				if !errors.Is(r.err, client.ErrIncomplete) || !errors.Is(r.err, tt.wantSErr) || !errors.Is(r.outErr, client.ErrIncomplete) {
					t.Fatalf("stream err = %v, outcome err = %v, want ErrIncomplete and %v", r.err, r.outErr, tt.wantSErr)
				}
				if r.out.Artifacts != nil || r.out.Reply != "" {
					t.Errorf("an incomplete turn has a reply: %+v", r.out)
				}
				return
			}
			if r.err != nil || r.outErr != nil {
				t.Fatal(r.err, r.outErr)
			}
			var reply []string
			for _, a := range r.out.Artifacts {
				for _, p := range a.Parts {
					reply = append(reply, string(a.ID)+":"+p.Text())
				}
			}
			var tools []schema.ToolStatus
			for _, tc := range r.view.ToolCalls {
				tools = append(tools, tc.Status)
			}
			var wantReply []string
			for _, s := range tt.wantReply {
				wantReply = append(wantReply, "reply:"+s)
			}
			if diff := cmp.Diff([]any{tt.wantState, wantReply, tt.wantTools}, []any{r.out.State, reply, tools}); diff != "" {
				t.Errorf("state, reply, tools (-want +got):\n%s", diff)
			}
		})
	}
}

// A redirect to another origin (here: another port) gets no credentials:
// neither the headers given nor Authorization, whatever net/http keeps.
func TestSendRedirectDropsCredentials(t *testing.T) {
	got := make(chan http.Header, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"content\":\"hi\"}\n\n")
	}))
	t.Cleanup(other.Close)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+queryPath, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(first.Close)
	st, err := Send(testCtx(t), first.URL, "hi", WithHeader("Authorization", "Bearer k"), WithHeader("X-Api-Key", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if r := collect(t, st); r.err != nil {
		t.Fatal(r.err)
	}
	h := <-got
	if diff := cmp.Diff([]string{"", ""}, []string{h.Get("Authorization"), h.Get("X-Api-Key")}); diff != "" {
		t.Errorf("credentials at the other origin (-want +got):\n%s", diff)
	}
}
