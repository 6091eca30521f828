package frontend

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/schema"
)

// TestAppendJSONMatchesEncodingJSON pins appendJSON to encoding/json's bytes
// for every value type the front-end encoders build.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := map[string]any{
		"event": aguiEvent{"type": "TEXT_MESSAGE_CONTENT", "messageId": "a2a-1", "delta": "a \"quoted\" <b>&</b> \\ \n\r\t\b\f \x01 \x1f é \u2028\u2029 \xff end"},
		"nested": aisdkEvent{"type": "tool-output-available", "preliminary": true, "n": 3, "m": int64(-4),
			"output": aisdkEvent{"status": "running", "chunks": []string{"a", "b"}, "none": []string(nil)},
			"patch":  []any{aguiEvent{"op": "add"}, nil, "x"}},
		"raw":     aguiEvent{"messages": []any{json.RawMessage(`{"id":"u1","role":"user"}`)}},
		"struct":  aisdkEvent{"data": &schema.Result{Verdict: "completed", Reply: "ok"}},
		"nil map": aguiEvent{"m": map[string]any(nil)},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendJSON(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("appendJSON differs from encoding/json (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSnapshotMessagesAsMaps: the MESSAGES_SNAPSHOT messages written
// directly are, as data, the messages the events of each kind of item
// build (the map form they replaced), escaping included.
func TestSnapshotMessagesAsMaps(t *testing.T) {
	t.Parallel()
	odd := "a \"quoted\" <b>&</b> \\ \n \x01 é \u2028 end"
	call := func(status schema.ToolStatus, tcid string) *frontItem {
		return &frontItem{kind: itemTool, id: "a2a-t1", tool: &schema.ToolCall{Key: "k" + odd, Tool: "search", ToolCallID: tcid,
			Status: status, Output: "out" + odd}}
	}
	items := []*frontItem{
		{kind: itemThinking, id: "a2a-b1", text: "plan" + odd},
		{kind: itemText, id: "a2a-b2", text: "text" + odd},
		{kind: itemReply, id: "a2a-reply", text: "reply"},
		{kind: itemError, id: "a2a-b3", text: "failed" + odd},
		call(schema.ToolRunning, ""),
		call(schema.ToolDone, "tc-1"),
		{kind: itemTool, id: "a2a-t2", tool: &schema.ToolCall{Key: "k2", Status: schema.ToolAborted}},
	}
	for _, run := range []string{"", "sub-1"} {
		for _, it := range items {
			var want []any
			msg := func(m aguiEvent) { want = append(want, stamp(m, run)) }
			switch it.kind {
			case itemThinking:
				msg(aguiEvent{"id": it.id, "role": "reasoning", "content": it.text})
			case itemText, itemReply:
				msg(aguiEvent{"id": it.id, "role": "assistant", "content": it.text})
			case itemError:
				msg(aguiEvent{"id": it.id, "role": "assistant", "content": it.text, "metadata": aguiErrorMeta()})
			case itemTool:
				msg(aguiEvent{"id": it.id, "role": "assistant", "toolCalls": []any{aguiEvent{"id": it.id, "type": "function",
					"function": aguiEvent{"name": it.toolName(), "arguments": "{}"}, "metadata": aguiToolMeta(it)}}})
				if toolClosed(it.tool.Status) {
					msg(aguiEvent{"id": it.id + "-result", "role": "tool", "toolCallId": it.id, "content": it.tool.Output,
						"metadata": aguiEvent{"a2a": aguiEvent{"status": string(it.tool.Status)}}})
				}
				msg(aguiEvent{"id": it.id + "-output", "role": "activity", "activityType": aguiActivityType,
					"content": aguiActivity(it, []string{it.tool.Output})})
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			got := append(appendSnapshotMessages(rawJSON("["), it, run), ']')
			var w, g any
			if err := json.Unmarshal(wantJSON, &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: not JSON: %v\n%s", it.id, err, got)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("%s (run %q): (-want +got):\n%s", it.id, run, diff)
			}
		}
	}
}
