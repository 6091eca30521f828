package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

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
			op: Op{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{StreamKey: "c1", Seq: 42}, Kind: envelope.KindToolCall,
				Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "search", ToolCallID: "c1"}, Source: SourceEnvelope}},
			want: `{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":42,"id":"","kind":"tool_call","status":"running","payload":{"tool":"search","tool_call_id":"c1"},"source":"envelope"}`,
		},
		{
			name: "chunk over the soft limit",
			op: Op{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{StreamKey: "c1", Seq: -3}, Kind: envelope.KindToolOutputAppend,
				Status: envelope.StatusDone, Payload: chunk("grep", "a\n"), Source: SourceEnvelope, OverSoftLimit: true}},
			want: `{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":-3,"id":"","kind":"tool_output_append","status":"done","payload":{"tool":"grep","chunk":"a\n"},"source":"envelope","overSoftLimit":true}`,
		},
		{
			name: "cut text",
			op: Op{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{Seq: 1}, Kind: envelope.KindThinking,
				Status: envelope.StatusRunning, Payload: think("hm"), Source: SourceEnvelope, Truncated: 100}},
			want: `{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":1,"id":"","kind":"thinking","status":"running","payload":{"text":"hm"},"source":"envelope","truncated":100}`,
		},
		{
			name: "anchored fallback (anchor 0 is still written)",
			op: Op{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{ID: "msg:m1"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
				Payload: text("working"), Source: SourceFallback, Reason: envelope.ReasonBadJSON, Anchored: true, After: 0, Ordinal: 2}},
			want: `{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":0,"id":"msg:m1","kind":"text","status":"running","payload":{"text":"working"},"source":"fallback","reason":"bad_json","after":0,"ordinal":2}`,
		},
		{
			name: "fallback before any envelope",
			op: Op{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{ID: "msg:m0"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
				Payload: text("starting"), Source: SourceFallback, Reason: envelope.ReasonNoEnvelope, Ordinal: 1}},
			want: `{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":0,"id":"msg:m0","kind":"text","status":"running","payload":{"text":"starting"},"source":"fallback","reason":"no_envelope","ordinal":1}`,
		},
		{
			name: "seal",
			op:   Op{Type: OpSeal, Task: "t1", Turn: "m1"},
			want: `{"type":"seal","task":"t1","turn":"m1"}`,
		},
		{
			name: "block with its time, in UTC with nine digits",
			op: Op{Type: OpBlock, Task: "t1", Turn: "m1", At: at0, Block: Block{Key: Key{StreamKey: "c1", Seq: 7}, Kind: envelope.KindText,
				Status: envelope.StatusRunning, Payload: text("hi"), Source: SourceEnvelope, At: at0}},
			want: `{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"hi"},"source":"envelope","at":"2026-12-01T10:00:00.250000000Z"}`,
		},
		{
			name: "result of an interrupted turn",
			op: Op{Type: OpResult, Task: "t1", Turn: "m1", Result: &Result{State: "TASK_STATE_INPUT_REQUIRED",
				Verdict: VerdictInputRequired, Interrupt: &Interrupt{Question: "Approve?",
					Items: []InterruptItem{{ToolCallID: "call-9", ToolName: "expense-review", Message: "Approve?"}}},
				Context: "c1", Counters: Counters{Applied: 3, Gaps: 1, Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 1}}}},
			want: `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_INPUT_REQUIRED","verdict":"input-required",` +
				`"interrupt":{"question":"Approve?","items":[{"toolCallId":"call-9","toolName":"expense-review","message":"Approve?"}]},` +
				`"context":"c1","counters":{"applied":3,"duplicates":0,"conflicts":0,"late":0,"gaps":1,"droppedAfterSeal":0,"droppedByCap":0,"fallbacks":{"no_envelope":1}}}`,
		},
		{
			name: "result of a completed turn",
			op: Op{Type: OpResult, Task: "t1", Turn: "m1", Result: &Result{State: "TASK_STATE_COMPLETED",
				Verdict: VerdictCompleted, Reply: "42", Artifacts: []Artifact{{ID: "a1", Name: "report", Text: "all good"}}}},
			want: `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"42",` +
				`"artifacts":[{"id":"a1","name":"report","text":"all good"}],` +
				`"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		},
		{
			name: "result of a turn that could not be ended",
			op: Op{Type: OpResult, Task: "t1", Turn: "m1", Result: &Result{State: "TASK_STATE_WORKING",
				Verdict: VerdictIncomplete, Error: "client: turn incomplete"}},
			want: `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_WORKING","verdict":"incomplete","error":"client: turn incomplete",` +
				`"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
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
		{"unknown kind", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"video","status":"running","payload":{},"source":"envelope"}`},
		{"payload of another kind", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":3},"source":"envelope"}`},
		{"bad status", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"paused","payload":{"text":"a"},"source":"envelope"}`},
		{"bad source", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"rumour"}`},
		{"fallback of kind thinking", `{"type":"block","task":"t1","turn":"m1","id":"m","kind":"thinking","status":"running","payload":{"text":"a"},"source":"fallback","ordinal":1}`},
		{"tool_call without tool", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"tool_call","status":"running","payload":{},"source":"envelope"}`},
		{"no turn", `{"type":"seal","task":"t1"}`},
		{"empty turn", `{"type":"seal","task":"t1","turn":""}`},
		{"no task", `{"type":"seal","turn":"m1"}`},
		{"at with an offset", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2026-12-01T11:00:00.000000000+01:00"}`},
		{"at without nine digits", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2026-12-01T10:00:00.25Z"}`},
		{"at that is no time", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"yesterday"}`},
		{"unknown verdict", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"done","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`},
		{"verdict and state disagree", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_FAILED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`},
		{"incomplete with a settled state", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"incomplete","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`},
		{"a reply with a failure", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_FAILED","verdict":"failed","reply":"42","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`},
		{"an interrupt with a completion", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","interrupt":{"question":"?"},"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`},
		{"a negative counter", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{"applied":-1,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`},
		{"fallback without an ordinal", `{"type":"block","task":"t1","turn":"m1","id":"msg:m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","reason":"no_envelope"}`},
		{"projection without an ordinal", `{"type":"block","task":"t1","turn":"m1","streamKey":"ri:b1:c","seq":1,"id":"ri:b1:c:1","kind":"tool_call","status":"running","payload":{"tool":"t"},"source":"projection"}`},
		{"fallback without a reason", `{"type":"block","task":"t1","turn":"m1","id":"msg:m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","ordinal":1}`},
		{"fallback with an empty reason", `{"type":"block","task":"t1","turn":"m1","id":"msg:m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","reason":"","ordinal":1}`},
		{"fallback with an unknown reason", `{"type":"block","task":"t1","turn":"m1","id":"msg:m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","reason":"gremlins","ordinal":1}`},
		{"fallback with the reason extra_envelope", `{"type":"block","task":"t1","turn":"m1","id":"msg:m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","reason":"extra_envelope","ordinal":1}`},
		{"at before 1678", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"1677-12-31T23:59:59.999999999Z"}`},
		{"at of Go's zero time", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"0001-01-01T00:00:00.000000000Z"}`},
		{"at after 2261", `{"type":"block","task":"t1","turn":"m1","seq":1,"kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2262-01-01T00:00:00.000000000Z"}`},
		{"result without counters", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed"}`},
		{"result with null counters", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":null}`},
		{"result with empty counters", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{}}`},
		{"result with an unknown fallback counter", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0,"fallbacks":{"gremlins":1}}}`},
		{"a result field of the wrong type", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":7}`},
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

var at0 = time.Date(2026, 12, 1, 10, 0, 0, 250_000_000, time.UTC)

// The two fields a2a-tail adds to its result line (exitCode,
// schemaVersion) are known to the decoder, and ignored.
func TestOpJSONCarrierFields(t *testing.T) {
	var op Op
	in := `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_CANCELED","verdict":"canceled","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0},"exitCode":3,"schemaVersion":1}`
	if err := json.Unmarshal([]byte(in), &op); err != nil {
		t.Fatal(err)
	}
	want := Op{Type: OpResult, Task: "t1", Turn: "m1", Result: &Result{State: "TASK_STATE_CANCELED", Verdict: VerdictCanceled}}
	if d := cmp.Diff(want, op); d != "" {
		t.Errorf("op (-want +got):\n%s", d)
	}
}

// Keys match exactly, once each, and a key the op form does not name is
// an error — where encoding/json alone would read "SEQ", "ſeq" (U+017F) or
// "Kind" (the Kelvin sign) as seq and kind, let a second seq override
// the first, and ignore the rest.
func TestOpJSONStrictKeys(t *testing.T) {
	const counters = `"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0`
	block := func(extra string) string {
		return `{"type":"block","task":"t1","turn":"m1","streamKey":"k","seq":1,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"` + extra + `}`
	}
	tests := []struct{ name, in, want string }{
		{"upper-case key", block(`,"SEQ":2`), `schema: bad op: op: unknown key "SEQ" (keys match exactly: "seq")`},
		{"long s key", `{"type":"seal","task":"t1","turn":"m1","ſtatus":"done"}`, `schema: bad op: op: unknown key "ſtatus" (keys match exactly: "status")`},
		{"Kelvin sign key", `{"type":"seal","task":"t1","turn":"m1","Kind":"text"}`, `schema: bad op: op: unknown key "Kind" (keys match exactly: "kind")`},
		{"unknown key", block(`,"colour":"red"`), `schema: bad op: op: unknown key "colour"`},
		{"duplicate key", block(`,"seq":2`), `schema: bad op: op: duplicate key "seq"`},
		{"duplicate key by escape", block(`,"seq":2`), `schema: bad op: op: duplicate key "seq"`},
		{"duplicate key in a field not looked into", `{"type":"seal","task":"t1","turn":"m1","exitCode":{"a":[{"b":1,"b":2}]}}`,
			`schema: bad op: op.exitCode.a: duplicate key "b"`},
		{"unknown payload key", `{"type":"block","task":"t1","turn":"m1","streamKey":"k","seq":1,"id":"","kind":"text","status":"running","payload":{"text":"a","Text":"b"},"source":"envelope"}`,
			`schema: bad op: payload: unknown key "Text" (keys match exactly: "text")`},
		{"duplicate payload key", `{"type":"block","task":"t1","turn":"m1","streamKey":"k","seq":1,"id":"","kind":"tool_call","status":"running","payload":{"tool":"a","tool":"b"},"source":"envelope"}`,
			`schema: bad op: op.payload: duplicate key "tool"`},
		{"unknown counter", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_CANCELED","verdict":"canceled",` + counters + `,"Applied":1}}`,
			`schema: bad op: counters: unknown key "Applied" (keys match exactly: "applied")`},
		{"duplicate fallback counter", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_CANCELED","verdict":"canceled",` + counters + `,"fallbacks":{"bad_json":1,"bad_json":2}}}`,
			`schema: bad op: counters.fallbacks: duplicate key "bad_json"`},
		{"unknown artifact key", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","artifacts":[{"id":"a","text":"x"},{"id":"b","Name":"n","text":"y"}],` + counters + `}}`,
			`schema: bad op: artifact: unknown key "Name" (keys match exactly: "name")`},
		{"unknown interrupt item key", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_INPUT_REQUIRED","verdict":"input-required","interrupt":{"question":"?","items":[{"toolCallID":"c"}]},` + counters + `}}`,
			`schema: bad op: interrupt item: unknown key "toolCallID" (keys match exactly: "toolCallId")`},
		{"seq 2^63", block(`,"after":9223372036854775808`), `schema: bad op: after: number 9223372036854775808 is not an int64 (an integer in plain decimal within int64)`},
		{"counter of the wrong type", `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_CANCELED","verdict":"canceled",` + counters + `,"fallbacks":{"bad_json":1e3}}}`,
			`schema: bad op: counters.fallbacks: number 1e3 is not an int64 (an integer in plain decimal within int64)`},
		{"payload field of the wrong type", `{"type":"block","task":"t1","turn":"m1","streamKey":"k","seq":1,"id":"","kind":"text","status":"running","payload":{"text":3},"source":"envelope"}`,
			`schema: bad op: payload.text: number is not string`},
		{"seq 1.0", `{"type":"block","task":"t1","turn":"m1","streamKey":"k","seq":1.0,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
			`schema: bad op: seq: number 1.0 is not an int64 (an integer in plain decimal within int64)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var op Op
			err := json.Unmarshal([]byte(tt.in), &op)
			if !errors.Is(err, ErrBadOp) {
				t.Fatalf("Unmarshal(%s) = %v, want an error wrapping ErrBadOp", tt.in, err)
			}
			if d := cmp.Diff(tt.want, err.Error()); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
	// The same rule for a block alone (a view's blocks).
	var b Block
	err := json.Unmarshal([]byte(`{"streamKey":"k","seq":1,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","type":"block"}`), &b)
	if d := cmp.Diff(`schema: bad op: block: unknown key "type"`, fmt.Sprint(err)); d != "" {
		t.Errorf("Block error (-want +got):\n%s", d)
	}
}

// A seq is exact over the whole int64 range: 2^53+1, which a float64
// reader rounds to 2^53, stays 2^53+1.
func TestOpJSONExactSeq(t *testing.T) {
	var op Op
	in := `{"type":"block","task":"t1","turn":"m1","streamKey":"k","seq":9007199254740993,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`
	if err := json.Unmarshal([]byte(in), &op); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(int64(1<<53+1), op.Block.Key.Seq); d != "" {
		t.Errorf("seq (-want +got):\n%s", d)
	}
}

func TestFormatAt(t *testing.T) {
	got := []string{
		formatAt(time.Time{}),
		formatAt(time.Date(2026, 12, 1, 11, 0, 0, 5, time.FixedZone("CET", 3600))),
		formatAt(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	want := []string{"", "2026-12-01T10:00:00.000000005Z", "9999-12-31T23:59:59.999999999Z"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("formatAt (-want +got):\n%s", d)
	}
}

func TestVerdictOf(t *testing.T) {
	var got []Verdict
	for _, s := range []string{"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_REJECTED", "TASK_STATE_CANCELED",
		"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_WORKING", "", "completed"} {
		got = append(got, VerdictOf(s))
	}
	want := []Verdict{VerdictCompleted, VerdictFailed, VerdictRejected, VerdictCanceled, VerdictInputRequired,
		VerdictAuthRequired, VerdictIncomplete, VerdictIncomplete, VerdictIncomplete}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("VerdictOf (-want +got):\n%s", d)
	}
}

func think(s string) envelope.Thinking { return envelope.Thinking{Text: s} }
func text(s string) envelope.Text      { return envelope.Text{Text: s} }
func chunk(tool, s string) envelope.ToolOutputAppend {
	return envelope.ToolOutputAppend{Tool: tool, Chunk: s}
}

// A view with no blocks and no tool calls writes [] for both, never null
// (PROTOCOL.md §4.5), whether its lists are nil or empty (merge's
// TestReceiverEmptyViewJSON checks the view a new receiver gives).
func TestViewJSONEmptyLists(t *testing.T) {
	want := `{"task":"t1","turn":"","blocks":[],"toolCalls":[],"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0},"sealed":false}`
	for _, v := range []View{{Task: "t1"}, {Task: "t1", Blocks: []Block{}, ToolCalls: []ToolCall{}}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, string(b)); d != "" {
			t.Errorf("view JSON (-want +got):\n%s", d)
		}
	}
}

// BenchmarkOpUnmarshal decodes a block op and a result op: the whole
// decoder, and encoding/json alone into the same wire struct (what the
// decoder did before it checked keys), side by side.
func BenchmarkOpUnmarshal(b *testing.B) {
	lines := map[string][]byte{
		"block":  []byte(`{"type":"block","task":"t1","turn":"m1","streamKey":"call-1","seq":42,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"search","chunk":"a.go:3: func main()\n","tool_call_id":"call-1"},"source":"envelope","at":"2026-12-01T10:00:00.250000000Z"}`),
		"result": []byte(`{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"done","artifacts":[{"id":"a1","name":"report","text":"all good"}],"context":"c1","counters":{"applied":3,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0,"fallbacks":{"no_envelope":1}}}`),
	}
	for _, name := range []string{"block", "result"} {
		line := lines[name]
		b.Run(name+"/Op.UnmarshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var op Op
				if err := op.UnmarshalJSON(line); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/encoding-json-alone", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var w anyOpJSON
				if err := json.Unmarshal(line, &w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/checkKeys", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := checkKeys(line, opKeys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
