package frontend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// calleeUpdates are the updates a client.Stream yields for readings (in
// that order) of one turn of task, ending with its seal and result ops.
func calleeUpdates(task string, rs []envelope.Reading, res schema.Result) []client.Update {
	turn := merge.NewTurn(task, "turn-1", merge.Caps{})
	var us []client.Update
	for _, r := range rs {
		ch := turn.Apply(r)
		us = append(us, client.Update{Type: client.UpdateProgress, Reading: r, Change: ch})
	}
	us = append(us, client.Update{Type: client.UpdateState, Change: merge.Change{Op: turn.Seal()}})
	us = append(us, client.Update{Type: client.UpdateResult, Change: merge.Change{Op: turn.ResultOp(res)}})
	return us
}

// eventLog collects a run's events.
type eventLog struct {
	mu     sync.Mutex
	events []map[string]any
}

func (l *eventLog) write(ev map[string]any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
	return nil
}

func TestAGUIRunRefusesFinishWhileSubagentRuns(t *testing.T) {
	var log eventLog
	run := NewAGUIRun(log.write)
	if err := run.Emit(map[string]any{"type": "RUN_STARTED", "threadId": "th", "runId": "r"}); err != nil {
		t.Fatal(err)
	}
	sub, err := run.start("call-1", SubagentOptions{Name: "colleague"})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Emit(map[string]any{"type": "RUN_FINISHED"}); !errors.Is(err, ErrSubagentActive) {
		t.Errorf("RUN_FINISHED with an active sub-agent: %v, want ErrSubagentActive", err)
	}
	res, err := sub.End(errors.New("connection refused"))
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Emit(map[string]any{"type": "RUN_FINISHED"}); err != nil {
		t.Errorf("RUN_FINISHED after the sub-agent ended: %v", err)
	}
	want := []map[string]any{
		{"type": "RUN_STARTED", "threadId": "th", "runId": "r"},
		{"type": "SUBAGENT_STARTED", "subagentRunId": sub.ID(), "name": "colleague", "parentToolCallId": "call-1"},
		{"type": "SUBAGENT_ERROR", "subagentRunId": sub.ID(), "message": "connection refused", "code": "incomplete"},
		{"type": "TOOL_CALL_RESULT", "messageId": sub.ID() + "-result", "toolCallId": "call-1", "role": "tool",
			"content": "connection refused", "metadata": map[string]any{"a2a": map[string]any{"verdict": "incomplete"}}},
		{"type": "RUN_FINISHED"},
	}
	if diff := cmp.Diff(want, log.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if res.Result.Verdict != schema.VerdictIncomplete {
		t.Errorf("verdict %q, want incomplete", res.Result.Verdict)
	}
}

// TestAGUISubagentEveryOrder feeds the reference trajectory to two
// concurrent sub-agents of one run in every delivery order of the mapping
// tests: each shows every block and call once, every event of it carries
// its id, and the parent call gets the reply.
func TestAGUISubagentEveryOrder(t *testing.T) {
	res := schema.Result{Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: agenttest.RealisticReply}
	for name, rs := range orders() {
		t.Run(name, func(t *testing.T) {
			want := play(rs, nil, func(*schema.View, *frontResult) {})
			var wantTools []string
			for _, tc := range want.ToolCalls {
				wantTools = append(wantTools, tc.Tool)
			}
			var log eventLog
			run := NewAGUIRun(log.write)
			var wg sync.WaitGroup
			ids := make([]string, 2)
			for i, task := range []string{"task-a", "task-b"} {
				sub, err := run.start("call-"+task, SubagentOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ids[i] = sub.ID()
				wg.Add(1)
				go func() {
					defer wg.Done()
					for _, u := range calleeUpdates(task, rs, res) {
						if err := sub.Update(u); err != nil {
							t.Error(err)
						}
					}
					if _, err := sub.End(nil); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			for _, id := range ids {
				var tools []string
				opened := map[string]bool{}
				var reply string
				for _, ev := range log.events {
					typ := ev["type"].(string)
					if typ == "TOOL_CALL_RESULT" && ev["subagentRunId"] == nil && strings.HasPrefix(ev["messageId"].(string), id) {
						reply = ev["content"].(string)
					}
					if ev["subagentRunId"] != id || strings.HasPrefix(typ, "SUBAGENT_") {
						continue
					}
					switch typ {
					case "TEXT_MESSAGE_CONTENT":
						// A run of text blocks is one message, reopened
						// for each block: each block's text once.
						key := typ + "/" + str(ev["delta"])
						if opened[key] {
							t.Errorf("%s sent twice", key)
						}
						opened[key] = true
					case "REASONING_START", "TOOL_CALL_START":
						key := typ + "/" + firstNonEmpty(str(ev["messageId"]), str(ev["toolCallId"]))
						if opened[key] {
							t.Errorf("%s sent twice", key)
						}
						opened[key] = true
						if typ == "TOOL_CALL_START" {
							tools = append(tools, ev["toolCallName"].(string))
						}
					}
				}
				slices.Sort(tools)
				w := slices.Clone(wantTools)
				slices.Sort(w)
				if diff := cmp.Diff(w, tools); diff != "" {
					t.Errorf("sub-agent %s's tool calls (-want +got):\n%s", id, diff)
				}
				if reply != agenttest.RealisticReply {
					t.Errorf("sub-agent %s's parent result %q", id, reply)
				}
			}
		})
	}
}

func str(v any) string { s, _ := v.(string); return s }

// fakeClock is a chatTool clock the test advances; the timers it arms run
// when it passes their time.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	due     time.Time
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool { t.stopped = true; return true }

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) after(d time.Duration, f func()) stopper {
	c.mu.Lock()
	defer c.mu.Unlock()
	tm := &fakeTimer{due: c.t.Add(d), f: f}
	c.timers = append(c.timers, tm)
	return tm
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	var due []*fakeTimer
	rest := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.due.After(c.t) {
			due = append(due, tm)
		} else {
			rest = append(rest, tm)
		}
	}
	c.timers = rest
	c.mu.Unlock()
	for _, tm := range due {
		if !tm.stopped {
			tm.f()
		}
	}
}

// chatParts collects a ChatStream's parts through Serve.
func chatParts(t *testing.T, cs *ChatStream) []map[string]any {
	t.Helper()
	rec := httptest.NewRecorder()
	cs.Serve(rec, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(context.Background()))
	var parts []map[string]any
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			parts = append(parts, map[string]any{"type": "[DONE]"})
			continue
		}
		var p map[string]any
		if err := json.Unmarshal([]byte(data), &p); err != nil {
			t.Fatalf("part %q: %v", data, err)
		}
		parts = append(parts, p)
	}
	return parts
}

// TestChatToolPaced plays a 3 000-block turn, one op per millisecond: the
// preliminary outputs come at most once per Interval, each within
// maxSubagentViewBytes, the last state is sent when its wait is over even
// with no op after it, and the final output is the whole view.
func TestChatToolPaced(t *testing.T) {
	sc := agenttest.Trajectory(3000)
	var rs []envelope.Reading
	for _, e := range sc.Envelopes() {
		rs = append(rs, envelope.Reading{Envelope: e})
	}
	us := calleeUpdates("task-1", rs, schema.Result{Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: "done"})
	clock := &fakeClock{t: time.Unix(0, 0)}
	counting := &countingWrites{}
	tool := counting.stream().startTool("call-1", ChatToolOptions{Interval: 100 * time.Millisecond, BytesPerSecond: 1 << 30})
	tool.now, tool.after = clock.now, clock.after
	progress := us[:len(us)-2]
	for _, u := range progress {
		if err := tool.Update(u); err != nil {
			t.Fatal(err)
		}
		clock.advance(time.Millisecond)
	}
	// No op for a while: the pending state goes out once its wait is over.
	clock.advance(time.Second)
	tool.mu.Lock()
	dirty := tool.enc.dirty
	tool.mu.Unlock()
	if dirty {
		t.Error("the latest state was not sent after its wait")
	}
	for _, u := range us[len(us)-2:] {
		if err := tool.Update(u); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tool.End(nil)
	if err != nil {
		t.Fatal(err)
	}
	prelim, maxBytes := counting.prelim, counting.maxBytes
	elapsed := time.Duration(len(progress))*time.Millisecond + time.Second
	if limit := int(elapsed/(100*time.Millisecond)) + 2; prelim > limit || prelim < 3 {
		t.Errorf("%d preliminary outputs over %v of 100 ms pacing: want 3..%d", prelim, elapsed, limit)
	}
	if maxBytes > maxSubagentViewBytes {
		t.Errorf("largest output %d bytes, over maxSubagentViewBytes %d", maxBytes, maxSubagentViewBytes)
	}
	if res.Result.Verdict != schema.VerdictCompleted {
		t.Errorf("verdict %q", res.Result.Verdict)
	}
	var final subagentView
	if err := json.Unmarshal(counting.last, &final); err != nil {
		t.Fatal(err)
	}
	v := tool.feed.recv.View()
	if got, want := len(final.Items)+final.Omitted, len(frontItems(&v, tool.enc.ids, nil)); got != want || final.Verdict != schema.VerdictCompleted || final.Reply != "done" {
		t.Errorf("final view: %d items + %d omitted (want %d in all), verdict %q, reply %q", len(final.Items), final.Omitted, want, final.Verdict, final.Reply)
	}
}

// countingWrites counts the tool outputs written to a ChatStream.
type countingWrites struct {
	prelim   int
	maxBytes int
	last     []byte
}

func (c *countingWrites) stream() *ChatStream {
	cs := NewChatStream()
	cs.tap = func(part map[string]any) {
		if part["type"] != "tool-output-available" {
			return
		}
		raw := part["output"].(json.RawMessage)
		c.maxBytes = max(c.maxBytes, len(raw))
		c.last = bytes.Clone(raw) // the tool reuses its buffer
		if part["preliminary"] == true {
			c.prelim++
		}
	}
	return cs
}

func TestChatStreamResumeKeepsLatestOutput(t *testing.T) {
	cs := NewChatStream()
	parts := []map[string]any{
		{"type": "start", "messageId": "m1"},
		{"type": "text-start", "id": "t1"},
		{"type": "text-delta", "id": "t1", "delta": "Let me ask."},
		{"type": "text-end", "id": "t1"},
		{"type": "tool-input-start", "toolCallId": "c1", "toolName": "ask_colleague"},
		{"type": "tool-input-available", "toolCallId": "c1", "toolName": "ask_colleague", "input": map[string]any{"question": "q"}},
	}
	for i := range 5 {
		parts = append(parts, map[string]any{"type": "tool-output-available", "toolCallId": "c1", "preliminary": true, "output": map[string]any{"n": i}})
	}
	parts = append(parts, map[string]any{"type": "tool-output-available", "toolCallId": "c1", "output": map[string]any{"n": 5}},
		map[string]any{"type": "finish", "finishReason": "stop"})
	for _, p := range parts {
		if err := cs.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	cs.Close()
	want := []map[string]any{
		{"type": "start", "messageId": "m1"},
		{"type": "reset-step"},
		{"type": "text-start", "id": "t1"},
		{"type": "text-delta", "id": "t1", "delta": "Let me ask."},
		{"type": "text-end", "id": "t1"},
		{"type": "tool-input-start", "toolCallId": "c1", "toolName": "ask_colleague"},
		{"type": "tool-input-available", "toolCallId": "c1", "toolName": "ask_colleague", "input": map[string]any{"question": "q"}},
		{"type": "tool-output-available", "toolCallId": "c1", "output": map[string]any{"n": float64(5)}},
		{"type": "finish", "finishReason": "stop"},
		{"type": "[DONE]"},
	}
	if diff := cmp.Diff(want, chatParts(t, cs)); diff != "" {
		t.Errorf("a resumed message (-want +got):\n%s", diff)
	}
}

func TestChatStreamBounded(t *testing.T) {
	cs := NewChatStream()
	big := strings.Repeat("x", 64<<10)
	var err error
	n := 0
	for ; err == nil && n < 1000; n++ {
		err = cs.Write(map[string]any{"type": "text-delta", "id": "t", "delta": big})
	}
	if !errors.Is(err, ErrChatStreamFull) {
		t.Fatalf("after %d parts of 64 KiB: %v, want ErrChatStreamFull", n, err)
	}
	if cs.bytes > MaxChatStreamBytes {
		t.Errorf("the stream keeps %d bytes, over %d", cs.bytes, MaxChatStreamBytes)
	}
}

// TestSubagentViewSchema checks the outputs a nested call writes — every
// preliminary one of a long turn, a completed, an interrupted and a failed
// call's — against schema/subagent-view.schema.json, and that a broken view
// fails it.
func TestSubagentViewSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	for _, name := range []string{"envelope.schema.json", "op.schema.json", "result.schema.json", "view.schema.json", "subagent-view.schema.json"} {
		f, err := os.Open(filepath.Join("..", "..", "schema", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("https://github.com/tfrs/a2a-progress/schema/"+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile("https://github.com/tfrs/a2a-progress/schema/subagent-view.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	validate := func(raw []byte) error {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return err
		}
		return sch.Validate(doc)
	}
	var trajectory []envelope.Reading
	for _, e := range agenttest.Trajectory(400, agenttest.SkipSeqs(5)).Envelopes() {
		trajectory = append(trajectory, envelope.Reading{Envelope: e})
	}
	results := map[string]schema.Result{
		"completed": {Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: "done"},
		"interrupted": {Verdict: schema.VerdictInputRequired, State: "TASK_STATE_INPUT_REQUIRED",
			Interrupt: &schema.Interrupt{Question: "Ship it?", Items: []schema.InterruptItem{{ToolCallID: "call-2", ToolName: "fetch_page", Message: "approve"}}}},
		"failed": {Verdict: schema.VerdictFailed, State: "TASK_STATE_FAILED", Error: "warehouse down"},
	}
	for name, res := range results {
		t.Run(name, func(t *testing.T) {
			var outputs [][]byte
			cs := NewChatStream()
			cs.tap = func(part map[string]any) {
				if raw, ok := part["output"].(json.RawMessage); ok {
					outputs = append(outputs, bytes.Clone(raw)) // the tool reuses its buffer
				}
			}
			tool := cs.startTool("call-1", ChatToolOptions{Interval: time.Nanosecond, BytesPerSecond: 1 << 30})
			for _, u := range calleeUpdates("task-1", trajectory, res) {
				if err := tool.Update(u); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tool.End(nil); err != nil {
				t.Fatal(err)
			}
			if len(outputs) < 10 {
				t.Fatalf("%d outputs", len(outputs))
			}
			for i, raw := range outputs {
				if err := validate(raw); err != nil {
					t.Fatalf("output %d does not fit the schema: %v\n%s", i, err, raw)
				}
			}
		})
	}
	if err := validate([]byte(`{"task":"t","turn":"u","items":[{"id":"x","kind":"text","status":"done"}]}`)); err == nil {
		t.Error("a text item with a status fits the schema")
	}
}

// TestAGUISubagentCoalescesText: a callee turn of 200 text blocks, a tool
// call after the first 150, is two text messages inside its sub-agent (one
// per run of text), each block's text once and in order; a repeated
// delivery adds nothing.
func TestAGUISubagentCoalescesText(t *testing.T) {
	var rs []envelope.Reading
	var want [2][]string
	for i := range 201 {
		e := envelope.Envelope{V: envelope.Version, Kind: envelope.KindText, Seq: int64(i + 1), Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: "block " + strconv.Itoa(i)}}
		if i == 150 {
			e.Kind, e.StreamKey, e.Payload = envelope.KindToolCall, "call-x", envelope.ToolCall{Tool: "search"}
		} else {
			want[min(i/150, 1)] = append(want[min(i/150, 1)], "block "+strconv.Itoa(i))
		}
		rs = append(rs, envelope.Reading{Envelope: e})
	}
	rs = append(rs, rs[3], rs[160]) // repeated deliveries
	var log eventLog
	run := NewAGUIRun(log.write)
	sub, err := run.start("call-1", SubagentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range calleeUpdates("task-a", rs, schema.Result{Verdict: schema.VerdictCompleted, Reply: "done"}) {
		if err := sub.Update(u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sub.End(nil); err != nil {
		t.Fatal(err)
	}
	var ids []string
	texts := map[string]string{}
	for _, ev := range log.events {
		if ev["type"] == "TEXT_MESSAGE_CONTENT" {
			id := ev["messageId"].(string)
			if _, ok := texts[id]; !ok {
				ids = append(ids, id)
			}
			texts[id] += ev["delta"].(string)
		}
	}
	var got []string
	for _, id := range ids {
		got = append(got, texts[id])
	}
	if diff := cmp.Diff([]string{strings.Join(want[0], "\n"), strings.Join(want[1], "\n")}, got); diff != "" {
		t.Errorf("the sub-agent's text messages (-want +got):\n%s", diff)
	}
}
