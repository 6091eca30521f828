package merge

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
)

// The documented JSON schema of ops, pinned field by field.
func TestOpJSON(t *testing.T) {
	tests := []struct {
		name string
		op   Op
		want string
	}{
		{
			name: "envelope block",
			op: Op{Type: OpBlock, Task: "t1", Block: Block{Key: Key{StreamKey: "c1", Seq: 42}, Kind: envelope.KindToolCall,
				Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "search", ToolCallID: "c1"}, Source: SourceEnvelope}},
			want: `{"type":"block","task":"t1","streamKey":"c1","seq":42,"id":"","kind":"tool_call","status":"running","payload":{"tool":"search","tool_call_id":"c1"},"source":"envelope"}`,
		},
		{
			name: "chunk over the soft limit",
			op: Op{Type: OpBlock, Task: "t1", Block: Block{Key: Key{StreamKey: "c1", Seq: -3}, Kind: envelope.KindToolOutputAppend,
				Status: envelope.StatusDone, Payload: chunk("grep", "a\n"), Source: SourceEnvelope, OverSoftLimit: true}},
			want: `{"type":"block","task":"t1","streamKey":"c1","seq":-3,"id":"","kind":"tool_output_append","status":"done","payload":{"tool":"grep","chunk":"a\n"},"source":"envelope","overSoftLimit":true}`,
		},
		{
			name: "cut text",
			op: Op{Type: OpBlock, Task: "t1", Block: Block{Key: Key{Seq: 1}, Kind: envelope.KindThinking,
				Status: envelope.StatusRunning, Payload: think("hm"), Source: SourceEnvelope, Truncated: 100}},
			want: `{"type":"block","task":"t1","streamKey":"","seq":1,"id":"","kind":"thinking","status":"running","payload":{"text":"hm"},"source":"envelope","truncated":100}`,
		},
		{
			name: "anchored fallback (anchor 0 is still written)",
			op: Op{Type: OpBlock, Task: "t1", Block: Block{Key: Key{ID: "msg:m1"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
				Payload: text("working"), Source: SourceFallback, Reason: envelope.ReasonBadJSON, Anchored: true, After: 0, Ordinal: 2}},
			want: `{"type":"block","task":"t1","streamKey":"","seq":0,"id":"msg:m1","kind":"text","status":"running","payload":{"text":"working"},"source":"fallback","reason":"bad_json","after":0,"ordinal":2}`,
		},
		{
			name: "fallback before any envelope",
			op: Op{Type: OpBlock, Task: "t1", Block: Block{Key: Key{ID: "msg:m0"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
				Payload: text("starting"), Source: SourceFallback, Reason: envelope.ReasonNoEnvelope, Ordinal: 1}},
			want: `{"type":"block","task":"t1","streamKey":"","seq":0,"id":"msg:m0","kind":"text","status":"running","payload":{"text":"starting"},"source":"fallback","reason":"no_envelope","ordinal":1}`,
		},
		{
			name: "seal",
			op:   Op{Type: OpSeal, Task: "t1"},
			want: `{"type":"seal","task":"t1"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.op)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, string(b)); d != "" {
				t.Errorf("JSON (-want +got):\n%s", d)
			}
			var back Op
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.op, back); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestOpJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"not JSON", `{"type":`},
		{"unknown type", `{"type":"nope","task":"t1"}`},
		{"unknown kind", `{"type":"block","task":"t1","seq":1,"kind":"video","status":"running","payload":{},"source":"envelope"}`},
		{"payload of another kind", `{"type":"block","task":"t1","seq":1,"kind":"text","status":"running","payload":{"text":3},"source":"envelope"}`},
		{"bad status", `{"type":"block","task":"t1","seq":1,"kind":"text","status":"paused","payload":{"text":"a"},"source":"envelope"}`},
		{"bad source", `{"type":"block","task":"t1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"rumour"}`},
		{"fallback of kind thinking", `{"type":"block","task":"t1","id":"m","kind":"thinking","status":"running","payload":{"text":"a"},"source":"fallback","ordinal":1}`},
		{"tool_call without tool", `{"type":"block","task":"t1","seq":1,"kind":"tool_call","status":"running","payload":{},"source":"envelope"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var op Op
			if err := op.UnmarshalJSON([]byte(tt.in)); !errors.Is(err, ErrBadOp) {
				t.Errorf("Unmarshal(%s) = %v, want an error wrapping ErrBadOp", tt.in, err)
			}
		})
	}
}

func TestViewJSONRoundTrip(t *testing.T) {
	turn := applyAll(Caps{MaxOutputBytes: 6},
		run("c1", 1, call("grep")),
		run("c1", 2, chunk("grep", "aaaa\n")),
		run("c1", 4, chunk("grep", "bbbb\n")),
		fallback("msg:1", "x", envelope.ReasonNoEnvelope),
		env("c1", 5, envelope.StatusAborted, errp("killed")),
	)
	want := turn.View()
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got View
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("Unmarshal(%s): %v", b, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

func TestResultString(t *testing.T) {
	got := map[Result]string{}
	for _, r := range []Result{Applied, Duplicate, Conflict, DroppedSealed, DroppedCap, Invalid, 0, 99} {
		got[r] = r.String()
	}
	want := map[Result]string{Applied: "applied", Duplicate: "duplicate", Conflict: "conflict",
		DroppedSealed: "dropped_sealed", DroppedCap: "dropped_cap", Invalid: "invalid", 0: "unknown", 99: "unknown"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
}
