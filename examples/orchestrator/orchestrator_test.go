package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// The acceptance tests of nesting: the orchestrator in front of the
// reference agent (agenttest, on 127.0.0.1), driven by the real
// @ag-ui/client and ai packages of relay/testdata/frontends (its lockfile)
// run by node.

func TestMain(m *testing.M) { goleak.VerifyTestMain(testdep.Reporting(nested.Stopping(m))) }

// nested runs relay/testdata/frontends's nested.mjs for every test of the
// package, in one node process.
var nested = testdep.NodeServer{Dir: frontendsDir}

var frontendsDir = filepath.Join("..", "..", "relay", "testdata", "frontends")

// node returns node with the pinned front-end packages installed
// ([testdep.NPM]).
func node(t *testing.T) string {
	t.Helper()
	return testdep.NPM(t, frontendsDir, "the orchestrator's AG-UI and AI SDK check")
}

// runNode runs nested.mjs with cfg (in the package's node process,
// nested) and decodes its output into out; it fails the test on any
// warning the libraries printed.
func runNode(t *testing.T, cfg map[string]any, out any) {
	t.Helper()
	bin := node(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(60*time.Second))
	defer cancel()
	raw, err := nested.Run(ctx, bin, "nested.mjs", cfg)
	if err != nil {
		t.Fatalf("node nested.mjs: %v", err)
	}
	var w struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatalf("node output: %v\n%s", err, raw)
	}
	if len(w.Warnings) > 0 {
		t.Errorf("the client libraries warned: %q", w.Warnings)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
}

// fixture is the reference agent and the orchestrator in front of it.
type fixture struct {
	agent *agenttest.Agent
	url   string
	sent  *sentLog
}

func start(t *testing.T, scripts ...agenttest.Script) *fixture {
	t.Helper()
	agent, err := agenttest.New(agenttest.WithScripts(scripts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	sent := &sentLog{}
	return &fixture{agent: agent, url: serveFor(t, agent.URL, client.WithFactoryOptions(a2aclient.WithCallInterceptors(sent))), sent: sent}
}

// expected is what the callee's script shows once merged: its tool calls'
// names in view order and its reply.
func expected(sc agenttest.Script) (tools []string, reply string) {
	turn := merge.NewTurn("t", "t", merge.Caps{})
	for _, e := range sc.Envelopes() {
		turn.Apply(envelope.Reading{Envelope: e})
	}
	v := turn.View()
	for _, tc := range v.ToolCalls {
		tools = append(tools, tc.Tool)
	}
	return tools, sc.FinalText
}

type aguiOut struct {
	Events   []map[string]any `json:"events"`
	Error    *string          `json:"error"`
	Messages []map[string]any `json:"messages"`
}

// subagent is what the AG-UI events say about one sub-agent.
type subagent struct {
	Parent      string   // parentToolCallId
	Tools       []string // its tool calls' names, in order
	Outcome     string   // SUBAGENT_FINISHED outcome type, or "error:<code>"
	ParentReply string   // the parent call's TOOL_CALL_RESULT content
}

// subagents reads the sub-agents of a run, checking that each event of a
// sub-agent carries its id and that no id of a message or call repeats.
func subagents(t *testing.T, out *aguiOut) (map[string]*subagent, []string) {
	t.Helper()
	subs := map[string]*subagent{}
	var askCalls []string
	started := map[string]bool{}
	for _, ev := range out.Events {
		typ, _ := ev["type"].(string)
		sub, _ := ev["subagentRunId"].(string)
		switch typ {
		case "SUBAGENT_STARTED":
			subs[sub] = &subagent{Parent: ev["parentToolCallId"].(string)}
		case "SUBAGENT_FINISHED":
			subs[sub].Outcome = ev["outcome"].(map[string]any)["type"].(string)
		case "SUBAGENT_ERROR":
			subs[sub].Outcome = "error:" + ev["code"].(string)
		case "TOOL_CALL_START", "TEXT_MESSAGE_START", "REASONING_START":
			id, _ := ev["toolCallId"].(string)
			if id == "" {
				id, _ = ev["messageId"].(string)
			}
			if started[id] {
				t.Errorf("%s %s sent twice", typ, id)
			}
			started[id] = true
			if typ != "TOOL_CALL_START" {
				continue
			}
			if sub == "" {
				askCalls = append(askCalls, id)
				continue
			}
			subs[sub].Tools = append(subs[sub].Tools, ev["toolCallName"].(string))
		case "TOOL_CALL_RESULT":
			if sub != "" {
				continue
			}
			for _, s := range subs {
				if s.Parent == ev["toolCallId"] {
					s.ParentReply = ev["content"].(string)
				}
			}
		}
	}
	return subs, askCalls
}

func runAGUI(t *testing.T, f *fixture, text string) *aguiOut {
	t.Helper()
	var out aguiOut
	runNode(t, map[string]any{"mode": "agui", "url": f.url + "/ag-ui", "id": "thread-1", "text": text}, &out)
	if out.Error != nil {
		t.Fatalf("the AG-UI client refused the run: %s", *out.Error)
	}
	return &out
}

func TestAGUINested(t *testing.T) {
	t.Parallel()
	sc := agenttest.Realistic()
	f := start(t)
	out := runAGUI(t, f, "where is order 42?")
	subs, asks := subagents(t, out)
	tools, reply := expected(sc)
	var got []subagent
	for _, s := range subs {
		got = append(got, *s)
	}
	want := []subagent{{Parent: asks[0], Tools: tools, Outcome: "success", ParentReply: reply}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sub-agent (-want +got):\n%s", diff)
	}
	// The client's message model: the sub-agent's tool calls carry its
	// subagentRunId; the orchestrator's call and answer carry none.
	var subID string
	for id := range subs {
		subID = id
	}
	var subCalls, ownCalls []string
	var last string
	for _, m := range out.Messages {
		for _, tc := range asList(m["toolCalls"]) {
			name := tc.(map[string]any)["function"].(map[string]any)["name"].(string)
			if m["subagentRunId"] == subID {
				subCalls = append(subCalls, name)
			} else if m["subagentRunId"] == nil {
				ownCalls = append(ownCalls, name)
			}
		}
		if m["role"] == "assistant" && m["subagentRunId"] == nil {
			if c, ok := m["content"].(string); ok && c != "" {
				last = c
			}
		}
	}
	if diff := cmp.Diff(tools, subCalls); diff != "" {
		t.Errorf("the sub-agent's tool calls in the messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ask_colleague"}, ownCalls); diff != "" {
		t.Errorf("the orchestrator's own tool calls (-want +got):\n%s", diff)
	}
	if want := "My colleague says: " + reply; last != want {
		t.Errorf("the orchestrator's answer = %q, want %q", last, want)
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

func TestAGUINestedConcurrentCalls(t *testing.T) {
	t.Parallel()
	f := start(t)
	out := runAGUI(t, f, "where is order 42?\nand order 43?")
	subs, asks := subagents(t, out)
	tools, reply := expected(agenttest.Realistic())
	var got []subagent
	for _, s := range subs {
		got = append(got, *s)
	}
	slices.SortFunc(got, func(a, b subagent) int { return strings.Compare(a.Parent, b.Parent) })
	slices.Sort(asks)
	var want []subagent
	for _, id := range asks {
		want = append(want, subagent{Parent: id, Tools: tools, Outcome: "success", ParentReply: reply})
	}
	if len(asks) != 2 {
		t.Fatalf("ask_colleague calls = %q, want 2", asks)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("two concurrent sub-agents (-want +got):\n%s", diff)
	}
}

func TestAGUINestedInterrupt(t *testing.T) {
	t.Parallel()
	sc := agenttest.Script{Name: "ship it?", Steps: agenttest.Realistic().Steps[:3],
		Final: a2a.TaskStateInputRequired, FinalText: "Ship the partial order?"}
	f := start(t, sc)
	out := runAGUI(t, f, "ship it?")
	subs, asks := subagents(t, out)
	if len(subs) != 1 {
		t.Fatalf("sub-agents = %v", subs)
	}
	var subID string
	for id, s := range subs {
		subID = id
		if diff := cmp.Diff(subagent{Parent: asks[0], Tools: []string{"search_orders"}, Outcome: "suspended"}, *s); diff != "" {
			t.Errorf("suspended sub-agent (-want +got):\n%s", diff)
		}
	}
	var finished, suspended map[string]any
	for _, ev := range out.Events {
		switch ev["type"] {
		case "RUN_FINISHED":
			finished = ev
		case "SUBAGENT_FINISHED":
			suspended = ev
		}
	}
	ids := asList(suspended["outcome"].(map[string]any)["interruptIds"])
	ints := asList(finished["outcome"].(map[string]any)["interrupts"])
	if len(ids) != 1 || len(ints) != 1 {
		t.Fatalf("interruptIds %v, run interrupts %v", ids, ints)
	}
	in := ints[0].(map[string]any)
	want := map[string]any{"id": ids[0], "reason": "input_required", "message": "Ship the partial order?", "subagentRunId": subID}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("the run's interrupt (-want +got):\n%s", diff)
	}
}

func TestAGUINestedCutUpstream(t *testing.T) {
	t.Parallel()
	f := start(t)
	// The remote stream is cut after its 4th event; the client resumes
	// it, and the run shows each block once (subagents fails on a
	// repeated id).
	f.agent.CutAfter(4, true)
	out := runAGUI(t, f, "where is order 42?")
	subs, asks := subagents(t, out)
	tools, reply := expected(agenttest.Realistic())
	var got []subagent
	for _, s := range subs {
		got = append(got, *s)
	}
	if diff := cmp.Diff([]subagent{{Parent: asks[0], Tools: tools, Outcome: "success", ParentReply: reply}}, got); diff != "" {
		t.Errorf("sub-agent across a cut (-want +got):\n%s", diff)
	}
	// Every chunk of live output once: the activity patches add each
	// chunk of the script once.
	var chunks []string
	for _, ev := range out.Events {
		if ev["type"] == "ACTIVITY_DELTA" {
			for _, p := range asList(ev["patch"]) {
				if p := p.(map[string]any); p["op"] == "add" {
					chunks = append(chunks, p["value"].(string))
				}
			}
		}
	}
	seen := map[string]int{}
	for _, c := range chunks {
		seen[c]++
		if seen[c] > 1 {
			t.Errorf("chunk %q sent twice", c)
		}
	}
}

type toolState struct {
	ID          string          `json:"id"`
	State       string          `json:"state"`
	Preliminary bool            `json:"preliminary"`
	Output      json.RawMessage `json:"output"`
	ErrorText   *string         `json:"errorText"`
	// ToolMetadata.A2A is the view a failed call keeps (the AI SDK drops
	// a failed part's output).
	ToolMetadata *struct {
		A2A json.RawMessage `json:"a2a"`
	} `json:"toolMetadata"`
}

type view struct {
	Verdict string `json:"verdict"`
	Items   []struct {
		Kind   string `json:"kind"`
		Tool   string `json:"tool"`
		Status string `json:"status"`
	} `json:"items"`
	Reply string `json:"reply"`
}

func decodeView(t *testing.T, raw json.RawMessage) view {
	t.Helper()
	var v view
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("output %s: %v", raw, err)
	}
	return v
}

func TestChatNestedPreliminaryOutputs(t *testing.T) {
	t.Parallel()
	sc := agenttest.Realistic()
	f := start(t)
	var out struct {
		States  [][]toolState `json:"states"`
		Errors  []string      `json:"errors"`
		Message struct {
			Parts []map[string]any `json:"parts"`
		} `json:"message"`
	}
	runNode(t, map[string]any{"mode": "read", "api": f.url + "/api/chat", "id": "chat-1", "text": "where is order 42?"}, &out)
	if len(out.Errors) > 0 {
		t.Fatalf("reader errors: %q", out.Errors)
	}
	tools, reply := expected(sc)
	// The tool part's outputs: preliminary ones whose item counts never
	// shrink, then one final output with the callee's whole view.
	var items []int
	var final *view
	for _, st := range out.States {
		if len(st) == 0 {
			continue // before the tool part
		}
		if len(st) != 1 {
			t.Fatalf("tool parts = %d, want 1: %+v", len(st), st)
		}
		p := st[0]
		switch {
		case p.State == "output-available" && p.Preliminary:
			v := decodeView(t, p.Output)
			items = append(items, len(v.Items))
		case p.State == "output-available":
			v := decodeView(t, p.Output)
			final = &v
		}
	}
	if len(items) < 3 || !slices.IsSorted(items) {
		t.Errorf("preliminary outputs' item counts = %v: want at least 3, never shrinking", items)
	}
	if final == nil {
		t.Fatalf("no final output; states: %+v", out.States)
	}
	var gotTools []string
	for _, it := range final.Items {
		if it.Kind == "tool" {
			gotTools = append(gotTools, it.Tool)
		}
	}
	if diff := cmp.Diff(tools, gotTools); diff != "" {
		t.Errorf("the final view's tool calls (-want +got):\n%s", diff)
	}
	if final.Verdict != "completed" || final.Reply != reply {
		t.Errorf("final verdict %q reply %q, want completed %q", final.Verdict, final.Reply, reply)
	}
	var texts []string
	for _, p := range out.Message.Parts {
		if p["type"] == "text" {
			texts = append(texts, p["text"].(string))
		}
	}
	if diff := cmp.Diff([]string{"Let me ask a colleague.", "My colleague says: " + reply}, texts); diff != "" {
		t.Errorf("the orchestrator's text (-want +got):\n%s", diff)
	}
}

func TestChatNestedFailed(t *testing.T) {
	t.Parallel()
	sc := agenttest.Script{Name: "break", Steps: agenttest.Realistic().Steps[:2], Final: a2a.TaskStateFailed, FinalText: "warehouse down"}
	f := start(t, sc)
	var out struct {
		States [][]toolState `json:"states"`
		Errors []string      `json:"errors"`
	}
	runNode(t, map[string]any{"mode": "read", "api": f.url + "/api/chat", "id": "chat-2", "text": "break"}, &out)
	if len(out.Errors) > 0 {
		t.Fatalf("reader errors: %q", out.Errors)
	}
	last := out.States[len(out.States)-1]
	msg := "warehouse down"
	want := []toolState{{ID: last[0].ID, State: "output-error", ErrorText: &msg, Output: last[0].Output, ToolMetadata: last[0].ToolMetadata}}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("failed call's tool part (-want +got):\n%s", diff)
	}
	// What the user watched stays in the message after the error: the
	// callee's items and the verdict, in the part's toolMetadata.
	if last[0].ToolMetadata == nil {
		t.Fatalf("the failed part keeps no view: %+v", last[0])
	}
	kept := decodeView(t, last[0].ToolMetadata.A2A)
	var kinds []string
	for _, it := range kept.Items {
		kinds = append(kinds, it.Kind)
	}
	var wantKinds []string
	for _, st := range sc.Steps {
		switch k := string(st.Envelope.Kind); k { // a view item per block; a call's output is in its item
		case "tool_call":
			wantKinds = append(wantKinds, "tool")
		case "tool_output":
		default:
			wantKinds = append(wantKinds, k)
		}
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" || kept.Verdict != "failed" {
		t.Errorf("kept view: verdict %q, items (-want +got):\n%s", kept.Verdict, diff)
	}
}

func TestChatNestedReload(t *testing.T) {
	t.Parallel()
	steps := slices.Clone(agenttest.Realistic().Steps)
	steps[5].Gate = "reload" // after the first call's output
	sc := agenttest.Realistic()
	sc.Name, sc.Steps = "slow order", steps
	f := start(t, sc)
	release := releaseURL(t, f.agent, "reload")
	var out struct {
		Errors   []string `json:"errors"`
		Messages []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"messages"`
	}
	runNode(t, map[string]any{"mode": "reload", "api": f.url + "/api/chat", "id": "chat-3", "text": "slow order",
		"release": release}, &out)
	if len(out.Errors) > 0 {
		t.Errorf("chat errors: %q", out.Errors)
	}
	tools, reply := expected(sc)
	type part struct{ Type, State, Text string }
	var got []part
	var final view
	for _, m := range out.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, p := range m.Parts {
			typ := p["type"].(string)
			switch typ {
			case "text":
				got = append(got, part{Type: typ, Text: p["text"].(string)})
			case "tool-ask_colleague":
				got = append(got, part{Type: typ, State: p["state"].(string)})
				raw, _ := json.Marshal(p["output"])
				final = decodeView(t, raw)
			}
		}
	}
	want := []part{{Type: "text", Text: "Let me ask a colleague."}, {Type: "tool-ask_colleague", State: "output-available"},
		{Type: "text", Text: "My colleague says: " + reply}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the message after a reload (-want +got):\n%s", diff)
	}
	var gotTools []string
	for _, it := range final.Items {
		if it.Kind == "tool" {
			gotTools = append(gotTools, it.Tool)
		}
	}
	if diff := cmp.Diff(tools, gotTools); diff != "" {
		t.Errorf("the resumed tool part's view (-want +got):\n%s", diff)
	}
}

func TestRefusesForeignHost(t *testing.T) {
	t.Parallel()
	f := start(t)
	req, _ := http.NewRequest(http.MethodPost, f.url+"/ag-ui", strings.NewReader(`{}`))
	req.Host = "attacker.test:" + strings.Split(f.url, ":")[2]
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: status %d, want %d", resp.StatusCode, http.StatusMisdirectedRequest)
	}
}

// jsAgentDir is the JS A2A peer (written with the A2A JS SDK) of the
// interop tests.
var jsAgentDir = filepath.Join("..", "..", "client", "internal", "interop", "jsagent")

// startJSAgent starts the JS peer on a free port and returns its URL; it
// stops when the test ends (its stdin closes).
func startJSAgent(t *testing.T) string {
	t.Helper()
	return testdep.JSAgent(t, jsAgentDir, "the orchestrator's JS A2A peer")
}

// serveFor serves an orchestrator in front of the agent at agentURL.
func serveFor(t *testing.T, agentURL string, opts ...client.Option) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := client.New(ctx, agentURL, opts...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	o := newOrchestrator(ctx, c, ln.Addr().String())
	o.pace.Interval, o.pace.BytesPerSecond = time.Nanosecond, 1<<30
	srv := &http.Server{Handler: o}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
		o.wait()
		_ = c.Close()
	})
	return "http://" + ln.Addr().String()
}

// direct runs one turn of the agent at agentURL with the plain client: the
// merged view and outcome the nested front ends must show.
func direct(t *testing.T, agentURL, text string) (tools []string, res schema.Result) {
	t.Helper()
	ctx := context.Background()
	c, err := client.New(ctx, agentURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.SendText(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	for u := range s.Updates() {
		if op, ok := u.Op(); ok && op.Type == schema.OpResult {
			res = *op.Result
		}
	}
	for _, tc := range s.View().ToolCalls {
		tools = append(tools, tc.Tool)
	}
	return tools, res
}

func TestNestedJSPeer(t *testing.T) {
	t.Parallel()
	agentURL := startJSAgent(t)
	url := serveFor(t, agentURL)
	for _, scenario := range []string{"inorder", "shuffled", "duplicated"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			tools, res := direct(t, agentURL, scenario)
			if res.Verdict != schema.VerdictCompleted || len(tools) == 0 {
				t.Fatalf("the JS peer's %s turn: verdict %q, tools %q", scenario, res.Verdict, tools)
			}
			var out aguiOut
			runNode(t, map[string]any{"mode": "agui", "url": url + "/ag-ui", "id": "thread-" + scenario, "text": scenario}, &out)
			if out.Error != nil {
				t.Fatalf("the AG-UI client refused the run: %s", *out.Error)
			}
			subs, asks := subagents(t, &out)
			var got []subagent
			for _, s := range subs {
				got = append(got, *s)
			}
			if diff := cmp.Diff([]subagent{{Parent: asks[0], Tools: tools, Outcome: "success", ParentReply: res.Reply}}, got); diff != "" {
				t.Errorf("AG-UI sub-agent (-want +got):\n%s", diff)
			}
			var chat struct {
				States [][]toolState `json:"states"`
				Errors []string      `json:"errors"`
			}
			runNode(t, map[string]any{"mode": "read", "api": url + "/api/chat", "id": "chat-" + scenario, "text": scenario}, &chat)
			if len(chat.Errors) > 0 || len(chat.States) == 0 {
				t.Fatalf("reader errors %q, states %d", chat.Errors, len(chat.States))
			}
			last := chat.States[len(chat.States)-1]
			if len(last) != 1 || last[0].State != "output-available" || last[0].Preliminary {
				t.Fatalf("last tool part state: %+v", last)
			}
			v := decodeView(t, last[0].Output)
			var gotTools []string
			for _, it := range v.Items {
				if it.Kind == "tool" {
					gotTools = append(gotTools, it.Tool)
				}
			}
			if diff := cmp.Diff(tools, gotTools); diff != "" {
				t.Errorf("useChat final view's tool calls (-want +got):\n%s", diff)
			}
			if v.Verdict != "completed" || v.Reply != res.Reply {
				t.Errorf("useChat final view: verdict %q reply %q, want completed %q", v.Verdict, v.Reply, res.Reply)
			}
		})
	}
}

// A failed call keeps its view across a reload too: the reloaded page's
// tool part, in output-error, still holds the callee's items and verdict.
func TestChatNestedFailedReload(t *testing.T) {
	t.Parallel()
	steps := slices.Clone(agenttest.Realistic().Steps[:2])
	steps[1].Gate = "reload" // after the first preliminary output
	sc := agenttest.Script{Name: "break slowly", Steps: steps, Final: a2a.TaskStateFailed, FinalText: "warehouse down"}
	f := start(t, sc)
	release := releaseURL(t, f.agent, "reload")
	var out struct {
		Errors   []string `json:"errors"`
		Messages []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"messages"`
	}
	runNode(t, map[string]any{"mode": "reload", "api": f.url + "/api/chat", "id": "chat-4", "text": "break slowly",
		"release": release}, &out)
	var kept []view
	var states []string
	for _, m := range out.Messages {
		for _, p := range m.Parts {
			if p["type"] != "tool-ask_colleague" {
				continue
			}
			states = append(states, p["state"].(string))
			if md, ok := p["toolMetadata"].(map[string]any); ok {
				raw, _ := json.Marshal(md["a2a"])
				kept = append(kept, decodeView(t, raw))
			}
		}
	}
	if diff := cmp.Diff([]string{"output-error"}, states); diff != "" || len(kept) != 1 {
		t.Fatalf("the reloaded message's tool parts (-want +got):\n%s\nkept views: %+v", diff, kept)
	}
	var kinds []string
	for _, it := range kept[0].Items {
		kinds = append(kinds, it.Kind)
	}
	if diff := cmp.Diff([]string{"thinking", "tool"}, kinds); diff != "" || kept[0].Verdict != "failed" {
		t.Errorf("kept view after a reload: verdict %q, items (-want +got):\n%s", kept[0].Verdict, diff)
	}
}

// releaseURL serves a URL that releases gate on agent when GET (what
// nested.mjs's reload mode calls once the reloaded page shows the tool
// part); it closes when the test ends.
func releaseURL(t *testing.T, agent *agenttest.Agent, gate string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/release", func(w http.ResponseWriter, _ *http.Request) { agent.Release(gate) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rel := &http.Server{Handler: mux}
	go func() { _ = rel.Serve(ln) }()
	t.Cleanup(func() { rel.Close() })
	return "http://" + ln.Addr().String() + "/release"
}

// A useChat page that comes back after its turn ended gets the whole final
// message on resume (not 204): the ended turn is kept for keepEnded.
func TestChatResumeAfterEnd(t *testing.T) {
	t.Parallel()
	f := start(t)
	var out struct {
		Errors   []string         `json:"errors"`
		First    []map[string]any `json:"first"`
		Messages []map[string]any `json:"messages"`
		Status   string           `json:"status"`
	}
	runNode(t, map[string]any{"mode": "after", "api": f.url + "/api/chat", "id": "chat-5", "text": "where is order 42?"}, &out)
	if len(out.Errors) > 0 {
		t.Fatalf("chat errors: %q", out.Errors)
	}
	if len(out.First) != 2 {
		t.Fatalf("the first page's messages: %d, want the user's and the answer", len(out.First))
	}
	// The resumed page holds the same assistant message as the page that
	// watched the turn: its texts and tool parts, in their final states.
	summary := func(m map[string]any) []string {
		var got []string
		for _, p := range m["parts"].([]any) {
			p := p.(map[string]any)
			switch p["type"] {
			case "text":
				got = append(got, "text: "+p["text"].(string))
			case "tool-ask_colleague":
				got = append(got, "tool: "+p["state"].(string))
			}
		}
		return got
	}
	if len(out.Messages) != 2 {
		t.Fatalf("the resumed page's messages: %d, want the user's and the answer: %+v", len(out.Messages), out.Messages)
	}
	want := summary(out.First[1])
	if diff := cmp.Diff(want, summary(out.Messages[1])); diff != "" || len(want) < 3 {
		t.Errorf("the message resumed after the end (-watched +resumed):\n%s", diff)
	}
}

// The orchestrator's endpoints read their bodies with the relay's one body
// reader: the wrong content type is 415, a body over the bound 413 (not a
// JSON syntax error), what is not the JSON expected 400 — and none of them
// reaches the agent.
func TestRequestBodies(t *testing.T) {
	t.Parallel()
	agent, err := agenttest.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	sent := &sentLog{}
	c, err := client.New(ctx, agent.URL, client.WithFactoryOptions(a2aclient.WithCallInterceptors(sent)))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	// httptest's Close waits for the connection a 413 closes (net/http
	// lingers on it): goleak would see it otherwise.
	var o *orchestrator
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { o.ServeHTTP(w, r) }))
	o = newOrchestrator(ctx, c, srv.Listener.Addr().String())
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		cancel()
		o.wait()
		_ = c.Close()
	})
	f := &fixture{agent: agent, url: srv.URL, sent: sent}
	big := `{"id":"c","messages":[{"id":"m","role":"user","parts":[{"type":"text","text":"` + strings.Repeat("x", maxBodyBytes) + `"}]}]}`
	for _, tc := range []struct {
		name, path, ctype, body string
		want                    int
	}{
		{"ag-ui as text", "/ag-ui", "text/plain", `{"threadId":"t","runId":"r","messages":[]}`, http.StatusUnsupportedMediaType},
		{"chat as a form", "/api/chat", "application/x-www-form-urlencoded", "id=c", http.StatusUnsupportedMediaType},
		{"chat over the bound", "/api/chat", "application/json", big, http.StatusRequestEntityTooLarge},
		{"ag-ui not JSON", "/ag-ui", "application/json", `{"threadId":`, http.StatusBadRequest},
		{"chat with trailing data", "/api/chat", "application/json", `{"id":"c","messages":[]} {}`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(f.url+tc.path, tc.ctype, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want || !strings.HasPrefix(string(msg), "orchestrator: relay: ") {
				t.Errorf("POST %s: %d %q, want %d with the reader's reason", tc.path, resp.StatusCode, msg, tc.want)
			}
		})
	}
	f.sent.mu.Lock()
	defer f.sent.mu.Unlock()
	if len(f.sent.tasks) != 0 {
		t.Errorf("the agent got %d messages, want none", len(f.sent.tasks))
	}
}
