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
	"github.com/tfrs/a2a-progress/terminal"
)

// TestNDJSONBlockLine pins the block line of the README's schema, "ts"
// included: merge.Op marshals itself, which once hid every field added
// beside it.
func TestNDJSONBlockLine(t *testing.T) {
	ts := time.Date(2026, 11, 30, 5, 0, 0, 123, time.FixedZone("CET", 3600))
	blk := merge.Block{Key: merge.Key{StreamKey: "call-1", Seq: 101}, Kind: envelope.KindToolCall, Status: envelope.StatusRunning,
		Payload: envelope.ToolCall{Tool: "search_orders", ToolCallID: "call-1"}, Source: merge.SourceEnvelope}
	tests := []struct {
		name string
		u    client.Update
		want map[string]any
	}{
		{
			name: "block with a timestamp",
			u: client.Update{Type: client.UpdateProgress, Timestamp: ts,
				Change: merge.Change{Result: merge.Applied, Op: merge.Op{Type: merge.OpBlock, Task: "task-1", Block: blk}}},
			want: map[string]any{"type": "block", "task": "task-1", "streamKey": "call-1", "seq": 101.0, "id": "",
				"kind": "tool_call", "status": "running", "payload": map[string]any{"tool": "search_orders", "tool_call_id": "call-1"},
				"source": "envelope", "ts": "2026-11-30T04:00:00.000000123Z"},
		},
		{
			name: "no timestamp, no ts",
			u: client.Update{Type: client.UpdateProgress,
				Change: merge.Change{Result: merge.Applied, Op: merge.Op{Type: merge.OpBlock, Task: "task-1", Block: blk}}},
			want: map[string]any{"type": "block", "task": "task-1", "streamKey": "call-1", "seq": 101.0, "id": "",
				"kind": "tool_call", "status": "running", "payload": map[string]any{"tool": "search_orders", "tool_call_id": "call-1"},
				"source": "envelope"},
		},
		{
			name: "seal",
			u:    client.Update{Type: client.UpdateState, Timestamp: ts, Change: merge.Change{Op: merge.Op{Type: merge.OpSeal, Task: "task-1"}}},
			want: map[string]any{"type": "seal", "task": "task-1", "ts": "2026-11-30T04:00:00.000000123Z"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if err := (&ndjsonSink{w: &out}).update(tc.u); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(out.String(), "}\n") || strings.Count(out.String(), "\n") != 1 {
				t.Fatalf("not one JSON line: %q", out.String())
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("line (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResultInterrupt pins the result line of an interrupted turn: the
// question and items under camelCase names, no reply (a question is not
// an answer).
func TestResultInterrupt(t *testing.T) {
	out := terminal.Outcome{TaskID: "task-1", State: a2a.TaskStateInputRequired, Class: terminal.ClassInterrupted,
		Text: "which region?", Interrupt: &terminal.Interrupt{State: a2a.TaskStateInputRequired,
			Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("which region?")), Text: "which region?",
			Items: []terminal.InterruptItem{{ToolCallID: "call-1", ToolName: "deploy", Message: "which region?"}}}}
	var b strings.Builder
	if err := (&ndjsonSink{w: &b}).finish(merge.View{}, out, nil); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	delete(got, "counters")
	want := map[string]any{"type": "result", "task": "task-1", "state": "TASK_STATE_INPUT_REQUIRED", "verdict": "interrupted",
		"interrupt": map[string]any{"question": "which region?",
			"items": []any{map[string]any{"toolCallId": "call-1", "toolName": "deploy", "message": "which region?"}}},
		"exitCode": 4.0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// TestAppendOnlyIsPrintable: the peer's escape sequences never reach the
// terminal through the append-only output either.
func TestAppendOnlyIsPrintable(t *testing.T) {
	turn := merge.NewTurn("task-1", merge.DefaultCaps())
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
	if err := s.finish(turn.View(), terminal.Outcome{State: a2a.TaskStateCompleted, Class: terminal.ClassTerminal, Text: "bye\x1b[0m"}, nil); err != nil {
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
