package schema_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/schematest"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// The JSON Schemas of this directory (PROTOCOL.md §7) are checked against
// the Go values of the wire forms: the views of a Turn and a Receiver, ops
// of every sort, result ops of every verdict, and envelopes as a callee
// sends them — and a broken document must fail, in the schema and in the
// Go decoder alike. (The a2a-tail tests check the CLI's output against
// them too.)
//
// The validator is github.com/santhosh-tekuri/jsonschema/v6: a maintained
// implementation of draft 2020-12 (if/then/else, $ref across documents,
// $defs) that passes the official JSON-Schema-Test-Suite, with no
// dependencies of its own beyond golang.org/x/text. Writing a validator for
// these keywords by hand would be a second implementation of the very
// contract under test; a test-only dependency is the smaller risk.

// richTurn applies a bit of everything: envelopes of every kind, a late
// one, a gap, a duplicate, a conflict, fallbacks before and after
// envelopes, a projection, a capped text, an over-soft chunk; then seals.
func richTurn() (*merge.Turn, []schema.Op) {
	t := merge.NewTurn("task-1", "msg-1", merge.Caps{MaxTextBytes: 8})
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	env := func(key string, seq int64, st envelope.Status, p envelope.Payload) envelope.Reading {
		return envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: p.Kind(), StreamKey: key, Seq: seq, Status: st, Payload: p}}
	}
	fb := func(id, text string, reason envelope.Reason) envelope.Reading {
		return envelope.Reading{Fallback: true, Reason: reason, ID: id, Part: -1, Envelope: envelope.Envelope{V: 1,
			Kind: envelope.KindText, Status: envelope.StatusRunning, Payload: envelope.Text{Text: text}}}
	}
	big := envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "c1", Seq: 6,
		Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "grep", Chunk: strings.Repeat("x", envelope.SoftChunkLimit+1)}},
		OverSoftLimit: true}
	proj := env("ri:b1:call-9", 1, envelope.StatusDone, envelope.ToolCall{Tool: "expense-review", ToolCallID: "call-9"})
	proj.ID = "ri:b1:call-9:1"
	var ops []schema.Op
	for i, r := range []envelope.Reading{
		fb("msg:m0", "starting", envelope.ReasonNoEnvelope),
		env("", 1, envelope.StatusRunning, envelope.Thinking{Text: "a long thought, cut"}),
		env("c1", 2, envelope.StatusRunning, envelope.ToolCall{Tool: "grep", ToolCallID: "c1"}),
		env("c1", 4, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "b\n"}),
		env("c1", 3, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "a\n"}),
		env("c1", 3, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "a\n"}),
		env("c1", 3, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "other\n"}),
		fb("msg:m1", "plain", envelope.ReasonBadField),
		big,
		proj,
		env("", 9, envelope.StatusAborted, envelope.ErrorPayload{Message: "killed"}),
		env("", 10, envelope.StatusRunning, envelope.Text{Text: "done"}),
	} {
		if ch := t.ApplyAt(r, at.Add(time.Duration(i)*time.Millisecond)); ch.Effect == merge.Applied {
			ops = append(ops, ch.Op)
		}
	}
	return t, append(ops, t.Seal())
}

func TestSchemasAgainstViewsAndOps(t *testing.T) {
	sc := schematest.Compile(t, ".")
	turn, ops := richTurn()
	for _, op := range ops {
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		schematest.MustValidate(t, sc["op"], "op", b)
	}
	rcv := merge.NewReceiver("task-1", merge.Caps{MaxTextBytes: 8})
	for _, op := range ops {
		rcv.Apply(op)
	}
	// A snapshot, with stubs of the chunks a small output cap dropped.
	small := merge.NewReceiver("task-1", merge.Caps{MaxOutputBytes: 4})
	for _, op := range ops {
		small.Apply(op)
	}
	stubs := 0
	for _, op := range small.Ops("msg-1") {
		if op.Block.Kind == envelope.KindToolOutputAppend && op.Block.Truncated > 0 {
			stubs++
		}
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		schematest.MustValidate(t, sc["op"], "snapshot op", b)
	}
	if stubs == 0 {
		t.Error("the snapshot has no stub: the test checks none")
	}
	for what, v := range map[string]schema.View{"Turn view": turn.View(), "Receiver view": rcv.View(),
		"empty Receiver view": merge.NewReceiver("task-1", merge.Caps{}).View(), "empty Turn view": merge.NewTurn("task-1", "m", merge.Caps{}).View()} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		schematest.MustValidate(t, sc["view"], what, b)
	}

	msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("text"))
	for _, out := range []terminal.Outcome{
		{TaskID: "task-1", ContextID: "c1", State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted, Message: msg, Reply: "text",
			Artifacts: []*a2a.Artifact{{ID: "a1", Name: "n", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}},
		{State: a2a.TaskStateFailed, Verdict: schema.VerdictFailed, Err: &terminal.VerdictError{State: a2a.TaskStateFailed, Reason: "quota"}},
		{State: a2a.TaskStateRejected, Verdict: schema.VerdictRejected, Err: &terminal.VerdictError{State: a2a.TaskStateRejected}},
		{State: a2a.TaskStateCanceled, Verdict: schema.VerdictCanceled, Err: &terminal.VerdictError{State: a2a.TaskStateCanceled}},
		{State: a2a.TaskStateInputRequired, Verdict: schema.VerdictInputRequired, Reply: "?", Interrupt: &schema.Interrupt{Question: "?",
			Items: []schema.InterruptItem{{ToolCallID: "c", ToolName: "n", Message: "?"}}}},
		{State: a2a.TaskStateAuthRequired, Verdict: schema.VerdictAuthRequired, Interrupt: &schema.Interrupt{Question: "log in"}},
		{State: a2a.TaskStateWorking, Err: &terminal.CutError{LastState: a2a.TaskStateWorking}},
		{Err: &terminal.CutError{}},
	} {
		b, err := json.Marshal(turn.ResultOp(out.Result()))
		if err != nil {
			t.Fatal(err)
		}
		schematest.MustValidate(t, sc["op"], "result op", b)
	}

	for _, s := range agenttest.Realistic().Steps {
		if s.Envelope == nil {
			continue
		}
		w, err := envelope.Marshal(*s.Envelope)
		if err != nil {
			t.Fatal(err)
		}
		schematest.MustValidate(t, sc["envelope"], "envelope", []byte(w))
	}
}

// A broken document fails validation: each case breaks one rule of a valid
// op (or envelope).
func TestSchemasRefuseBrokenDocuments(t *testing.T) {
	sc := schematest.Compile(t, ".")
	block := `{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":1,"id":"","kind":"tool_call","status":"running","payload":{"tool":"grep"},"source":"envelope","at":"2026-12-01T10:00:00.000000000Z"}`
	fallback := `{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":0,"id":"msg:1","kind":"text","status":"running","payload":{"text":"x"},"source":"fallback","reason":"no_envelope","ordinal":1}`
	result := `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"ok","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`
	env := `{"v":1,"kind":"tool_call","streamKey":"c1","seq":42,"status":"running","payload":{"tool":"grep"}}`
	for name, doc := range map[string]string{"block": block, "fallback": fallback, "result": result} {
		schematest.MustValidate(t, sc["op"], "the valid "+name, []byte(doc))
	}
	schematest.MustValidate(t, sc["envelope"], "the valid envelope", []byte(env))

	broken := []struct {
		name, schema, doc string
	}{
		{"op without a turn", "op", strings.Replace(block, `"turn":"m1",`, "", 1)},
		{"op with an empty task", "op", strings.Replace(block, `"task":"t1"`, `"task":""`, 1)},
		{"unknown op type", "op", strings.Replace(block, `"type":"block"`, `"type":"rewind"`, 1)},
		{"at with an offset", "op", strings.Replace(block, `00.000000000Z`, `00.000000000+01:00`, 1)},
		{"at with three digits", "op", strings.Replace(block, `00.000000000Z`, `00.000Z`, 1)},
		{"tool_call without its tool", "op", strings.Replace(block, `{"tool":"grep"}`, `{}`, 1)},
		{"seq that is a fraction", "op", strings.Replace(block, `"seq":1`, `"seq":1.5`, 1)},
		{"unknown status", "op", strings.Replace(block, `"running"`, `"paused"`, 1)},
		{"envelope block with an id", "op", strings.Replace(block, `"id":""`, `"id":"x"`, 1)},
		{"fallback without its ordinal", "op", strings.Replace(fallback, `,"ordinal":1`, "", 1)},
		{"fallback with a seq", "op", strings.Replace(fallback, `"seq":0`, `"seq":3`, 1)},
		{"fallback with an unknown reason", "op", strings.Replace(fallback, `no_envelope`, `gremlins`, 1)},
		{"fallback with an empty reason", "op", strings.Replace(fallback, `no_envelope`, ``, 1)},
		{"fallback without a reason", "op", strings.Replace(fallback, `"reason":"no_envelope",`, ``, 1)},
		{"at before 1678", "op", strings.Replace(block, `2026-12-01T10:00:00.000000000Z`, `1677-12-31T23:59:59.999999999Z`, 1)},
		{"at after 2261", "op", strings.Replace(block, `2026-12-01T10:00:00.000000000Z`, `2262-01-01T00:00:00.000000000Z`, 1)},
		{"verdict and state disagree", "op", strings.Replace(result, `"state":"TASK_STATE_COMPLETED"`, `"state":"TASK_STATE_FAILED"`, 1)},
		{"a reply with a failure", "op", strings.Replace(strings.Replace(result, `"verdict":"completed"`, `"verdict":"failed"`, 1), "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", 1)},
		{"incomplete with a settled state", "op", strings.Replace(strings.Replace(result, `"verdict":"completed"`, `"verdict":"incomplete"`, 1), `"reply":"ok",`, "", 1)},
		{"result without counters", "op", result[:strings.Index(result, `,"counters"`)] + "}"},
		{"result without one counter", "op", strings.Replace(result, `"late":0,`, ``, 1)},
		{"result with an unknown fallback counter", "op", strings.Replace(result, `"droppedByCap":0`, `"droppedByCap":0,"fallbacks":{"gremlins":1}`, 1)},
		{"a negative counter", "op", strings.Replace(result, `"applied":0`, `"applied":-1`, 1)},
		{"stub with text", "op", `{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":2,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"x"},"source":"envelope","truncated":4}`},
		{"envelope of version 2", "envelope", strings.Replace(env, `"v":1`, `"v":2`, 1)},
		{"envelope with a string seq", "envelope", strings.Replace(env, `"seq":42`, `"seq":"42"`, 1)},
		{"envelope of an unknown kind", "envelope", strings.Replace(env, `"tool_call"`, `"video"`, 1)},
		{"fallback with a parent", "op", strings.Replace(fallback, `"ordinal":1`, `"ordinal":1,"parent":"c1"`, 1)},
		{"a parent that is no string", "op", strings.Replace(block, `"source":"envelope"`, `"source":"envelope","parent":7`, 1)},
		{"envelope with a parent that is no string", "envelope", strings.Replace(env, `"seq":42`, `"seq":42,"parent":["c0"]`, 1)},
	}
	for _, tc := range broken {
		t.Run(tc.name, func(t *testing.T) {
			if err := schematest.Validate(sc[tc.schema], []byte(tc.doc)); err == nil {
				t.Errorf("%s validates against %s, want an error:\n%s", tc.name, tc.schema, tc.doc)
			}
			// The Go decoder refuses what the schema refuses.
			var op schema.Op
			err := json.Unmarshal([]byte(tc.doc), &op)
			if tc.schema == "op" && err == nil {
				t.Errorf("schema.Op decodes %s without an error", tc.name)
			}
		})
	}
}
