package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// TestNDJSONLines pins the lines of -o ndjson: each op the stream
// forwards, in the library's JSON form (a block with its turn and at, the
// seal), and last the result op with exitCode spliced in — schema.Op
// marshals itself, which once hid every field added beside it.
func TestNDJSONLines(t *testing.T) {
	at := time.Date(2026, 11, 30, 5, 0, 0, 123, time.FixedZone("CET", 3600))
	turn := merge.NewTurn("task-1", "msg-1", merge.DefaultCaps())
	block := turn.ApplyAt(envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "call-1", Seq: 101,
		Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "search_orders", ToolCallID: "call-1"}}}, at)
	dup := turn.ApplyAt(envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "call-1", Seq: 101,
		Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "search_orders", ToolCallID: "call-1"}}}, at)
	seal := turn.Seal()
	out := terminal.Outcome{TaskID: "task-1", ContextID: "ctx-1", State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted, Reply: "done"}
	result := turn.ResultOp(out.Result())

	var b strings.Builder
	sink := &ndjsonSink{w: &b}
	for _, u := range []client.Update{
		{Type: client.UpdateProgress, Change: block},
		{Type: client.UpdateProgress, Change: dup}, // not applied: not forwarded
		{Type: client.UpdateState, Change: merge.Change{Op: seal}},
		{Type: client.UpdateResult, Change: merge.Change{Op: result}},
	} {
		if err := sink.update(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.finish(turn.View(), out, nil); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || !strings.HasSuffix(line, "}\n") {
			t.Fatalf("not one JSON line: %q (%v)", line, err)
		}
		got = append(got, m)
	}
	counters := map[string]any{"applied": 1.0, "duplicates": 1.0, "conflicts": 0.0, "late": 0.0, "gaps": 0.0,
		"droppedAfterSeal": 0.0, "droppedByCap": 0.0}
	want := []map[string]any{
		{"type": "block", "task": "task-1", "turn": "msg-1", "streamKey": "call-1", "seq": 101.0, "id": "",
			"kind": "tool_call", "status": "running", "payload": map[string]any{"tool": "search_orders", "tool_call_id": "call-1"},
			"source": "envelope", "at": "2026-11-30T04:00:00.000000123Z"},
		{"type": "seal", "task": "task-1", "turn": "msg-1"},
		{"type": "result", "task": "task-1", "turn": "msg-1", "state": "TASK_STATE_COMPLETED", "verdict": "completed",
			"reply": "done", "context": "ctx-1", "counters": counters, "exitCode": 0.0, "schemaVersion": 1.0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// TestResultInterrupt pins the result line of an interrupted turn that
// the stream could not give (it was stopped): the same form, built from the
// outcome — the question and items under camelCase names, no reply (a
// question is not an answer).
func TestResultInterrupt(t *testing.T) {
	out := terminal.Outcome{TaskID: "task-1", State: a2a.TaskStateInputRequired, Verdict: schema.VerdictInputRequired,
		Reply: "which region?", Interrupt: &schema.Interrupt{Question: "which region?",
			Items: []schema.InterruptItem{{ToolCallID: "call-1", ToolName: "deploy", Message: "which region?"}}}}
	var b strings.Builder
	if err := (&ndjsonSink{w: &b}).finish(schema.View{Task: "task-1", Turn: "msg-1"}, out, nil); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	delete(got, "counters")
	want := map[string]any{"type": "result", "task": "task-1", "turn": "msg-1", "state": "TASK_STATE_INPUT_REQUIRED", "verdict": "input-required",
		"interrupt": map[string]any{"question": "which region?",
			"items": []any{map[string]any{"toolCallId": "call-1", "toolName": "deploy", "message": "which region?"}}},
		"exitCode": 4.0, "schemaVersion": 1.0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// TestAppendOnlyIsPrintable: the peer's escape sequences never reach the
// terminal through the append-only output either.
func TestAppendOnlyIsPrintable(t *testing.T) {
	turn := merge.NewTurn("task-1", "", merge.DefaultCaps())
	var out strings.Builder
	s := &lineSink{w: &out}
	for _, e := range []envelope.Envelope{
		{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "\x1b[2J\x1b]52;c;cHduZWQ=\x07hi"}},
		{V: 1, Kind: envelope.KindToolCall, StreamKey: "k\x1b[1A", Seq: 2, Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "t\x1b[31m"}},
		{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "k\x1b[1A", Seq: 3, Status: envelope.StatusRunning,
			Payload: envelope.ToolOutputAppend{Tool: "t\x1b[31m", Chunk: "a\x1b[Kb\r\n"}},
	} {
		ch := turn.Apply(envelope.Reading{Envelope: e})
		if err := s.update(client.Update{Type: client.UpdateProgress, Change: ch, Reading: envelope.Reading{Envelope: e}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.finish(turn.View(), terminal.Outcome{State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted, Reply: "bye\x1b[0m"}, nil); err != nil {
		t.Fatal(err)
	}
	want := "  1 ^[[2J^[]52;c;cHduZWQ=^Ghi\n" +
		"  2 tool_call t^[[31m [k^[[1A] running\n" +
		"  3 t^[[31m | a^[[Kb\n" +
		"✓ completed: bye^[[0m\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
