package frontend_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/frontend"
	"github.com/tfrs/a2a-progress/schema"
)

// The endpoint tests run the real client libraries against the relay's AG-UI
// and AI SDK endpoints over the reference callee: real A2A over JSON-RPC,
// the relay's hub, sources and resume logic, real sockets.

// frontScript is the realistic trajectory (a thinking block, two tool calls
// with output, text, an error block, 109 before 108, 108 twice) under name,
// ending in final with text; a gate before the second tool call when gate is
// set.
func frontScript(name string, final a2a.TaskState, text, gate string) agenttest.Script {
	sc := agenttest.Realistic()
	sc.Name = name
	sc.Final = final
	sc.FinalText = text
	if final != a2a.TaskStateCompleted {
		sc.Artifacts = nil
	}
	if gate != "" {
		sc.Steps[6].Gate = gate
	}
	return sc
}

// scriptView is the view a caller builds from the script's envelopes.
func scriptView(sc agenttest.Script) schema.View {
	turn := merge.NewTurn("t", "", merge.Caps{})
	for _, e := range sc.Envelopes() {
		turn.Apply(envelope.Reading{Envelope: e})
	}
	turn.Seal()
	return turn.View()
}

// cutAfter aborts the response of the first request it serves after n SSE
// events (flushed first), then calls onCut; later requests pass through.
type cutAfter struct {
	next  http.Handler
	n     int
	once  sync.Once
	onCut func()
}

func (c *cutAfter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	first := false
	c.once.Do(func() { first = true })
	if !first {
		c.next.ServeHTTP(w, r)
		return
	}
	c.next.ServeHTTP(&cuttingWriter{ResponseWriter: w, left: c.n, onCut: c.onCut}, r)
}

// newCutRig is a frontRig whose first request is cut after n SSE events;
// the cut releases the agent's gate, so the rest of the turn reaches only
// the request that reconnects.
func newCutRig(t *testing.T, n int, gate string) *frontRig {
	var rig *frontRig
	rig = newFrontRig(t, func(h http.Handler) http.Handler {
		return &cutAfter{next: h, n: n, onCut: func() { rig.agent.Release(gate) }}
	})
	return rig
}

type cuttingWriter struct {
	http.ResponseWriter
	left  int
	onCut func()
}

func (w *cuttingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.left -= strings.Count(string(p), "\n\n")
	if w.left <= 0 {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
		w.onCut()
		panic(http.ErrAbortHandler) // net/http closes the connection
	}
	return n, err
}

func (w *cuttingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// frontRig is a relay with the front-end endpoints over the reference callee.
type frontRig struct {
	agent *agenttest.Agent
	url   string
}

// newFrontRig serves POST /ag-ui, /api/chat (POST, GET {id}/stream) and
// GET/POST /tasks/{taskId}/events; wrap may wrap the front-end endpoints.
func newFrontRig(t *testing.T, wrap func(http.Handler) http.Handler) *frontRig {
	t.Helper()
	s, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute))
	t.Cleanup(cancel)
	c, err := client.New(ctx, s.CardURL(agenttest.V1), client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	h := relay.New(ctx, c, relay.WithAuthorizer(relay.AllowAll),
		relay.WithFormat(frontend.FormatAGUI, frontend.AGUIFormat), relay.WithFormat(frontend.FormatAISDK, frontend.AISDKFormat))
	if wrap == nil {
		wrap = func(h http.Handler) http.Handler { return h }
	}
	mux := http.NewServeMux()
	mux.Handle("POST /ag-ui", wrap(h.AGUI(c)))
	chat := wrap(h.Chat(c))
	mux.Handle("/api/chat", chat)
	mux.Handle("/api/chat/", chat)
	events := func(w http.ResponseWriter, r *http.Request) { h.ServeEvents(w, r, r.PathValue("taskId")) }
	mux.HandleFunc("GET /tasks/{taskId}/events", events)
	mux.HandleFunc("POST /tasks/{taskId}/events", events)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = h.Close()
		srv.Close()
	})
	return &frontRig{agent: s, url: srv.URL}
}

// frontCases are the turns every endpoint test runs through the callee.
var frontCases = []struct {
	name  string
	final a2a.TaskState
	text  string
	out   schema.Result
}{
	{"completed", a2a.TaskStateCompleted, agenttest.RealisticReply, schema.Result{Verdict: "completed", Reply: agenttest.RealisticReply}},
	{"failed", a2a.TaskStateFailed, "warehouse down", schema.Result{Verdict: "failed", Error: "warehouse down"}},
	{"interrupt", a2a.TaskStateInputRequired, "Ship the partial order?", schema.Result{Verdict: "input-required", Interrupt: &schema.Interrupt{Question: "Ship the partial order?"}}},
}

func TestAGUIEndpoint(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	var cases []frontend.HarnessCase[frontend.AGUIResult]
	for _, tc := range frontCases {
		rig := newFrontRig(t, nil)
		sc := frontScript("agui-"+tc.name, tc.final, tc.text, "")
		rig.agent.Register(sc)
		cases = append(cases, frontend.HarnessCase[frontend.AGUIResult]{Name: tc.name,
			Config: map[string]any{"url": rig.url + "/ag-ui", "threadId": "thread-" + tc.name,
				"messages": []any{map[string]any{"id": "u-" + tc.name, "role": "user", "content": sc.Name}}},
			Check: func(t *testing.T, res *frontend.AGUIResult) {
				frontend.CheckAGUI(t, *res, &res.Run, frontend.WantShown(scriptView(sc), &tc.out), &tc.out)
			}})
	}
	frontend.RunCases(t, "agui.mjs", cases)
}

// TestAGUIEndpointReconnect cuts the run's connection mid-turn and
// reconnects with connectAgent() through POST /tasks/{id}/events?format=ag-ui.
func TestAGUIEndpointReconnect(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	rig := newCutRig(t, 8, "g")
	sc := frontScript("agui-cut", a2a.TaskStateCompleted, agenttest.RealisticReply, "g")
	rig.agent.Register(sc)
	var res frontend.AGUIResult
	frontend.RunHarness(t, "agui.mjs", map[string]any{"url": rig.url + "/ag-ui", "threadId": "thread-cut",
		"connectUrl": rig.url + "/tasks/{task}/events?format=ag-ui",
		"messages":   []any{map[string]any{"id": "u-cut", "role": "user", "content": sc.Name}}}, &res)
	if res.Run.Error == nil {
		t.Errorf("the cut run did not fail: %+v", res.Run)
	}
	if res.Connect == nil {
		t.Fatal("no connect run")
	}
	res.Warnings = dropCutWarnings(res.Warnings)
	out := &frontCases[0].out
	frontend.CheckAGUI(t, res, res.Connect, frontend.WantShown(scriptView(sc), out), out)
}

// dropCutWarnings drops what the client logs about the connection the test
// cut.
func dropCutWarnings(ws []string) []string {
	var keep []string
	for _, w := range ws {
		if !strings.Contains(w, "terminated") {
			keep = append(keep, w)
		}
	}
	return keep
}

func TestAISDKEndpoint(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	var cases []frontend.HarnessCase[frontend.AISDKResult]
	for _, tc := range frontCases {
		for _, mode := range []string{"chat", "read"} {
			rig := newFrontRig(t, nil)
			sc := frontScript("aisdk-"+tc.name+"-"+mode, tc.final, tc.text, "")
			rig.agent.Register(sc)
			cases = append(cases, frontend.HarnessCase[frontend.AISDKResult]{Name: tc.name + "/" + mode,
				Config: map[string]any{"api": rig.url + "/api/chat", "id": "chat-" + tc.name + "-" + mode,
					"text": sc.Name, "mode": mode},
				Check: func(t *testing.T, res *frontend.AISDKResult) {
					frontend.CheckAISDK(t, *res, frontend.WantShown(scriptView(sc), &tc.out), &tc.out, mode == "chat")
				}})
		}
	}
	frontend.RunCases(t, "aisdk.mjs", cases)
}

// TestAISDKEndpointResume cuts the chat's stream mid-turn; resumeStream()
// (GET /api/chat/{id}/stream) ends with each block once.
func TestAISDKEndpointResume(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	rig := newCutRig(t, 6, "g")
	sc := frontScript("aisdk-cut", a2a.TaskStateCompleted, agenttest.RealisticReply, "g")
	rig.agent.Register(sc)
	var res frontend.AISDKResult
	frontend.RunHarness(t, "aisdk.mjs", map[string]any{"api": rig.url + "/api/chat", "id": "chat-cut", "text": sc.Name,
		"mode": "chat", "resume": true}, &res)
	if res.Resumed == nil {
		t.Fatal("no resume")
	}
	res.Errors = dropCutWarnings(res.Errors)
	res.Warnings = dropCutWarnings(res.Warnings)
	out := &frontCases[0].out
	frontend.CheckAISDK(t, res, frontend.WantShown(scriptView(sc), out), out, true)
}

// TestAISDKResumeNothingActive: a chat with no task answers 204, and
// useChat's resume leaves the chat as it was.
func TestAISDKResumeNothingActive(t *testing.T) {
	t.Parallel()
	rig := newFrontRig(t, nil)
	resp, err := http.Get(rig.url + "/api/chat/no-such-chat/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("status %d, want 204: %s", resp.StatusCode, b)
	}
}

// TestFrontEndpointsUnderFaults: a long turn whose envelopes the callee
// reorders, duplicates and skips, and whose upstream stream it cuts (the
// relay's client resumes with a resubscription and backfills the history:
// late and repeated envelopes), reaches both client libraries with each
// block once, in view order.
func TestFrontEndpointsUnderFaults(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	for _, proto := range []string{"ag-ui", "ai-sdk"} {
		t.Run(proto, func(t *testing.T) {
			rig := newFrontRig(t, nil)
			sc := agenttest.Trajectory(40, agenttest.Named("faults-"+proto), agenttest.Reorder(5), agenttest.Duplicate(4), agenttest.SkipSeqs(2))
			rig.agent.Register(sc)
			rig.agent.CutAfter(12, true)
			out := &schema.Result{Verdict: "completed", Reply: sc.FinalText}
			want := frontend.WantShown(scriptView(sc), out)
			if proto == "ag-ui" {
				var res frontend.AGUIResult
				frontend.RunHarness(t, "agui.mjs", map[string]any{"url": rig.url + "/ag-ui", "threadId": "thread-faults",
					"messages": []any{map[string]any{"id": "u-faults", "role": "user", "content": sc.Name}}}, &res)
				frontend.CheckAGUI(t, res, &res.Run, want, out)
				return
			}
			var res frontend.AISDKResult
			frontend.RunHarness(t, "aisdk.mjs", map[string]any{"api": rig.url + "/api/chat", "id": "chat-faults", "text": sc.Name, "mode": "chat"}, &res)
			frontend.CheckAISDK(t, res, want, out, true)
		})
	}
}

// TestAGUIRespondInterrupt: a run that ends on an interrupt, then a run that
// answers it (RunAgentInput.resume): the answer goes to the interrupted
// task as a new turn, which completes.
func TestAGUIRespondInterrupt(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	rig := newFrontRig(t, nil)
	sc := frontScript("agui-ask", a2a.TaskStateInputRequired, "Ship the partial order?", "")
	rig.agent.Register(sc)
	var res frontend.AGUIResult
	frontend.RunHarness(t, "agui.mjs", map[string]any{"url": rig.url + "/ag-ui", "threadId": "thread-ask", "answer": "yes",
		"messages": []any{map[string]any{"id": "u-ask", "role": "user", "content": sc.Name}}}, &res)
	if res.Run.Finished == nil || res.Run.Finished.Outcome != "interrupt" {
		t.Fatalf("first run: %+v, want an interrupt", res.Run.Finished)
	}
	if res.Answer == nil {
		t.Fatal("no answering run")
	}
	if res.Answer.Error != nil || res.Answer.Finished == nil || res.Answer.Finished.Outcome != "success" {
		t.Fatalf("answering run: error %v, finished %+v, want success (events %v)", res.Answer.Error, res.Answer.Finished, res.Answer.Events)
	}
	if len(res.Answer.PendingInterrupts) != 0 {
		t.Errorf("interrupts still pending: %v", res.Answer.PendingInterrupts)
	}
	if res.Answer.Task != res.Run.Task {
		t.Errorf("the answer ran in task %q, the interrupt was task %q", res.Answer.Task, res.Run.Task)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("the client warned: %q", res.Warnings)
	}
}
