package frontend

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// The mapping tests feed the encoders' SSE output to the real client
// libraries (the node harness) from an httptest server: the views of a turn
// are built by merge from the reference callee's realistic trajectory,
// delivered in several orders, and the libraries must assemble each block
// once, in view order, without a verification error or a warning.

const mapTask, mapTurn = "task-1", "turn-1"

// realisticReadings are the readings of agenttest.Realistic as sent (109 before
// 108, 108 twice).
func realisticReadings() []envelope.Reading {
	var rs []envelope.Reading
	for _, e := range agenttest.Realistic().Envelopes() {
		rs = append(rs, envelope.Reading{Envelope: e, Part: 0})
	}
	return rs
}

// orders are the delivery orders every mapping test runs: as sent, shuffled
// with duplicates, reversed (every block but the last arrives late), a call
// seen only through its output, and a longer turn with missing seqs.
func orders() map[string][]envelope.Reading {
	sent := realisticReadings()
	r := rand.New(rand.NewPCG(1, 2))
	shuffled := append([]envelope.Reading(nil), sent...)
	shuffled = append(shuffled, sent[1], sent[5], sent[9])
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	var reversed []envelope.Reading
	for i := len(sent) - 1; i >= 0; i-- {
		reversed = append(reversed, sent[i])
	}
	// call-1 without its tool_call blocks (101 running, 104 done): a call
	// seen only through its output, placed by its first chunk, unfinished.
	var outputOnly []envelope.Reading
	for _, r := range sent {
		if r.Envelope.Kind == envelope.KindToolCall && r.Envelope.StreamKey == "call-1" {
			continue
		}
		outputOnly = append(outputOnly, r)
	}
	// A longer turn in order whose seqs skip some (the live path tells
	// most ops without a render: the gap count, and gap markers inside
	// outputs, must come out as a render would show them).
	var gapped []envelope.Reading
	for _, e := range agenttest.Trajectory(60, agenttest.SkipSeqs(8)).Envelopes() {
		gapped = append(gapped, envelope.Reading{Envelope: e})
	}
	return map[string][]envelope.Reading{"as-sent": sent, "shuffled": shuffled, "reversed": reversed, "output-only": outputOnly, "gapped": gapped}
}

// outcomes are the ends every mapping test runs.
func outcomes() map[string]*frontResult {
	return map[string]*frontResult{
		"completed": {Verdict: "completed", State: "TASK_STATE_COMPLETED", Reply: agenttest.RealisticReply},
		"failed":    {Verdict: "failed", State: "TASK_STATE_FAILED", Error: "warehouse down"},
		"interrupt": {Verdict: "input-required", State: "TASK_STATE_INPUT_REQUIRED", Interrupt: &schema.Interrupt{Question: "Ship the partial order?",
			Items: []schema.InterruptItem{{ToolCallID: "call-2", ToolName: "check_stock", Message: "approve partial shipment"}}}},
	}
}

// play applies readings to a turn one by one and calls sync with the view
// after each; with out non-nil it then seals and calls sync with the
// outcome. It returns the final view.
func play(rs []envelope.Reading, out *frontResult, sync func(v *schema.View, out *frontResult)) schema.View {
	turn := merge.NewTurn(mapTask, mapTurn, merge.Caps{})
	for _, r := range rs {
		if turn.Apply(r).Effect != merge.Applied {
			continue
		}
		v := turn.View()
		sync(&v, nil)
	}
	if out != nil {
		turn.Seal()
	}
	v := turn.View()
	sync(&v, out)
	return v
}

// wantShown is what a person should see of a view and outcome: blocks in
// view order, each tool call at its first tool_call block (a call with none
// before the first envelope with a seq above its first chunk's) with its
// final status and output, the reply last.
func wantShown(v schema.View, out *frontResult) []shown {
	var want []shown
	calls := map[string]schema.ToolCall{}
	started := map[string]bool{}
	for _, b := range v.Blocks {
		if b.Kind == envelope.KindToolCall {
			started[b.ToolKey()] = true
		}
	}
	var loose []schema.ToolCall
	for _, tc := range v.ToolCalls {
		calls[tc.Key] = tc
		if !started[tc.Key] {
			loose = append(loose, tc)
		}
	}
	tool := func(tc schema.ToolCall) shown {
		name := tc.Tool
		if name == "" {
			name = "tool"
		}
		return shown{Kind: "tool", Text: name, Status: string(tc.Status), Output: tc.Output}
	}
	seen := map[string]bool{}
	for _, b := range v.Blocks {
		for len(loose) > 0 && b.Source == schema.SourceEnvelope && loose[0].FirstSeq < b.Key.Seq {
			want = append(want, tool(loose[0]))
			loose = loose[1:]
		}
		switch p := b.Payload.(type) {
		case envelope.Thinking:
			want = append(want, shown{Kind: "thinking", Text: p.Text})
		case envelope.Text:
			want = append(want, shown{Kind: "text", Text: p.Text})
		case envelope.ErrorPayload:
			want = append(want, shown{Kind: "error", Text: p.Message})
		case envelope.ToolCall:
			if tc := calls[b.ToolKey()]; !seen[tc.Key] {
				seen[tc.Key] = true
				want = append(want, tool(tc))
			}
		}
	}
	for _, tc := range loose {
		want = append(want, tool(tc))
	}
	if out != nil && out.Verdict == "completed" {
		want = append(want, shown{Kind: "reply", Text: out.Reply})
	}
	return want
}

// writeSSE writes one event per data: line, flushed.
func writeSSE(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

// aguiInput is the part of a RunAgentInput the test server reads.
type aguiInput struct {
	ThreadID string            `json:"threadId"`
	RunID    string            `json:"runId"`
	Messages []json.RawMessage `json:"messages"`
}

// aguiServer serves POST /run with the readings of rs[:cut] (all, then the
// outcome, when cut < 0) and POST /connect with every reading and the
// outcome, as a reconnect.
func aguiServer(t *testing.T, rs []envelope.Reading, out *frontResult, cut int) *httptest.Server {
	serve := func(reconnect bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var in aguiInput
			body, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(body, &in); err != nil {
				t.Errorf("RunAgentInput: %v", err)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			enc := &aguiEncoder{threadID: in.ThreadID, runID: in.RunID, history: in.Messages, reconnect: reconnect}
			emit := func(e aguiEvent) { writeSSE(w, e) }
			if !reconnect && cut >= 0 {
				play(rs[:cut], nil, func(v *schema.View, o *frontResult) { enc.sync(v, o, emit) })
				return
			}
			play(rs, out, func(v *schema.View, o *frontResult) { enc.sync(v, o, emit) })
		}
	}
	mux := http.NewServeMux()
	mux.Handle("POST /run", serve(false))
	mux.Handle("POST /connect", serve(true))
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func checkAGUI(t *testing.T, res aguiResult, run *aguiRun, want []shown, out *frontResult) {
	t.Helper()
	if len(res.Warnings) > 0 {
		t.Errorf("the client warned: %q", res.Warnings)
	}
	if run.Error != nil {
		t.Fatalf("run failed: %s (events %v)", *run.Error, run.Events)
	}
	if diff := cmp.Diff(want, aguiShown(t, run.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if run.Messages[0].Role != "user" {
		t.Errorf("first message is %q, want the user's", run.Messages[0].Role)
	}
	switch {
	case out == nil:
		if run.RunError != nil {
			t.Errorf("runError = %+v, want none", run.RunError)
		}
	case out.Verdict == "completed":
		if run.Finished == nil || run.Finished.Outcome != "success" {
			t.Errorf("finished = %+v, want outcome success", run.Finished)
		}
	case interrupted(out):
		_, items := question(out)
		if run.Finished == nil || run.Finished.Outcome != "interrupt" || len(run.PendingInterrupts) != max(1, len(items)) {
			t.Errorf("finished = %+v, pending %v, want outcome interrupt with %d interrupts", run.Finished, run.PendingInterrupts, max(1, len(items)))
		}
	default:
		if run.RunError == nil || run.RunError.Code != string(out.Verdict) {
			t.Errorf("runError = %+v, want code %s", run.RunError, out.Verdict)
		}
	}
}

func TestAGUIMappingThroughHttpAgent(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	var cases []harnessCase[aguiResult]
	for oname, rs := range orders() {
		for vname, out := range outcomes() {
			s := aguiServer(t, rs, out, -1)
			want := wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)
			cases = append(cases, harnessCase[aguiResult]{oname + "/" + vname,
				map[string]any{"url": s.URL + "/run", "threadId": "thread-1",
					"messages": []any{map[string]any{"id": "u1", "role": "user", "content": "order 42?"}}},
				func(t *testing.T, res *aguiResult) { checkAGUI(t, *res, &res.Run, want, out) }})
		}
	}
	runCases(t, "agui.mjs", cases)
}

// TestAGUIReconnect cuts the run after half the readings and reconnects with
// connectAgent() through the connect endpoint: the client ends with each block
// once, its earlier messages kept.
func TestAGUIReconnect(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	var cases []harnessCase[aguiResult]
	for oname, rs := range orders() {
		out := outcomes()["completed"]
		s := aguiServer(t, rs, out, len(rs)/2)
		want := append([]shown{{Kind: "text", Text: "hi"}}, wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)...)
		cases = append(cases, harnessCase[aguiResult]{oname,
			map[string]any{"url": s.URL + "/run", "threadId": "thread-1", "connectUrl": s.URL + "/connect",
				"messages": []any{
					map[string]any{"id": "u0", "role": "user", "content": "hello"},
					map[string]any{"id": "a0", "role": "assistant", "content": "hi"},
					map[string]any{"id": "u1", "role": "user", "content": "order 42?"},
				}},
			func(t *testing.T, res *aguiResult) {
				if res.Connect == nil {
					t.Fatal("no connect run")
				}
				checkAGUI(t, *res, res.Connect, want, out)
			}})
	}
	runCases(t, "agui.mjs", cases)
}

// aisdkServer serves POST /api/chat with rs[:cut] (all, then the outcome,
// when cut < 0) and GET /api/chat/{id}/stream with every reading and the
// outcome, as a resume.
func aisdkServer(t *testing.T, rs []envelope.Reading, out *frontResult, cut int) *httptest.Server {
	serve := func(resume bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set(aisdkHeader, aisdkHeaderValue)
			enc := &aisdkEncoder{resume: resume}
			emit := func(e aisdkEvent) { writeSSE(w, e) }
			if !resume && cut >= 0 {
				play(rs[:cut], nil, func(v *schema.View, o *frontResult) { enc.sync(v, o, emit) })
				return
			}
			play(rs, out, func(v *schema.View, o *frontResult) { enc.sync(v, o, emit) })
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}
	mux := http.NewServeMux()
	mux.Handle("POST /api/chat", serve(false))
	mux.Handle("GET /api/chat/{id}/stream", serve(true))
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func checkAISDK(t *testing.T, res aisdkResult, want []shown, out *frontResult, chat bool) {
	t.Helper()
	if len(res.Warnings) > 0 {
		t.Errorf("the client warned: %q", res.Warnings)
	}
	var assistant []uiMessage
	for _, m := range res.Messages {
		if m.Role == "assistant" {
			assistant = append(assistant, m)
		}
	}
	if len(assistant) != 1 {
		t.Fatalf("%d assistant messages, want 1: %+v", len(assistant), res.Messages)
	}
	if diff := cmp.Diff(want, aisdkShown(t, assistant[0])); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if out == nil {
		if len(res.Errors) > 0 {
			t.Errorf("errors %q, want none", res.Errors)
		}
		return
	}
	var outcome map[string]any
	for _, p := range assistant[0].Parts {
		if p.Type == "data-a2a-result" {
			outcome = p.Data
		}
	}
	if outcome["verdict"] != string(out.Verdict) {
		t.Errorf("outcome part %v, want verdict %s", outcome, out.Verdict)
	}
	failed := out.Verdict != "completed" && !interrupted(out)
	if failed != (len(res.Errors) > 0) {
		t.Errorf("errors %q for verdict %s", res.Errors, out.Verdict)
	}
	if chat && failed != (res.Status == "error") {
		t.Errorf("chat status %q for verdict %s", res.Status, out.Verdict)
	}
}

func TestAISDKMappingThroughChat(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	var cases []harnessCase[aisdkResult]
	for oname, rs := range orders() {
		for vname, out := range outcomes() {
			want := wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)
			for _, mode := range []string{"chat", "read"} {
				s := aisdkServer(t, rs, out, -1)
				cases = append(cases, harnessCase[aisdkResult]{oname + "/" + vname + "/" + mode,
					map[string]any{"api": s.URL + "/api/chat", "id": "chat-1", "text": "order 42?", "mode": mode},
					func(t *testing.T, res *aisdkResult) { checkAISDK(t, *res, want, out, mode == "chat") }})
			}
		}
	}
	runCases(t, "aisdk.mjs", cases)
}

// TestAISDKResume cuts the chat's stream after half the readings and
// resumes it as useChat({resume: true}) does, with the transport's default
// (a resumed stream restarts the message) and with resumeStreamIsReplay:
// false (it continues the message it has, which reset-step empties): the
// message ends with each block once.
func TestAISDKResume(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	var cases []harnessCase[aisdkResult]
	for oname, rs := range orders() {
		out := outcomes()["completed"]
		want := wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)
		for _, replay := range []bool{true, false} {
			s := aisdkServer(t, rs, out, len(rs)/2)
			cases = append(cases, harnessCase[aisdkResult]{fmt.Sprintf("%s/replay=%v", oname, replay),
				map[string]any{"api": s.URL + "/api/chat", "id": "chat-1", "text": "order 42?",
					"mode": "chat", "resume": true, "replay": replay},
				func(t *testing.T, res *aisdkResult) { checkAISDK(t, *res, want, out, true) }})
		}
	}
	runCases(t, "aisdk.mjs", cases)
}
