package emit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/envelope/emit"
)

// A sub-agent's blocks forwarded under a call: this turn's seqs, keys in
// the call's namespace, the call (or the forwarded parent) as parent, and
// a text fallback that names the call's tool.
func TestForward(t *testing.T) {
	var r recorder
	em := emit.New(newExec(), r.yield)
	call, err := em.ToolStart("ask_colleague", "ask")
	if err != nil {
		t.Fatal(err)
	}
	search := envelope.ToolCall{Tool: "search", ToolCallID: "s1"}
	for _, b := range []emit.Block{
		{Status: envelope.StatusRunning, Payload: envelope.Thinking{Text: "hmm"}},
		{Key: "s1", Status: envelope.StatusRunning, Payload: search},
		{Key: "s1", Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "search", ToolCallID: "s1", Chunk: "a:b\n"}},
		{Key: "fw:s1:d1", Parent: "s1", Status: envelope.StatusDone, Payload: envelope.ToolCall{Tool: "lookup"}},
	} {
		if err := call.Forward(b); err != nil {
			t.Fatalf("Forward(%+v): %v", b, err)
		}
	}
	if err := call.Done(); err != nil {
		t.Fatal(err)
	}
	env := func(key, parent string, seq int64, status envelope.Status, p envelope.Payload) envelope.Envelope {
		return envelope.Envelope{V: 1, Kind: p.Kind(), StreamKey: key, Seq: seq, Status: status, Payload: p, Parent: parent}
	}
	run := envelope.StatusRunning
	want := []block{
		{env("ask", "", 1, run, envelope.ToolCall{Tool: "ask_colleague", ToolCallID: "ask"}), "calling tool ask_colleague"},
		{env("", "ask", 2, run, envelope.Thinking{Text: "hmm"}), "ask_colleague › thinking: hmm"},
		{env("fw:ask:s1", "ask", 3, run, search), "ask_colleague › calling tool search"},
		{env("fw:ask:s1", "ask", 4, run, envelope.ToolOutputAppend{Tool: "search", ToolCallID: "s1", Chunk: "a:b\n"}), "a:b\n"},
		{env("fw:ask:fw%3As1%3Ad1", "fw:ask:s1", 5, envelope.StatusDone, envelope.ToolCall{Tool: "lookup"}), "ask_colleague › tool lookup done"},
		{env("ask", "", 6, envelope.StatusDone, envelope.ToolCall{Tool: "ask_colleague", ToolCallID: "ask"}), "tool ask_colleague done"},
	}
	got := blocks(t, r.events)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestForwardRefusals(t *testing.T) {
	var r recorder
	em := emit.New(newExec(), r.yield)
	call, err := em.ToolStart("ask_colleague", "ask")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("k", envelope.MaxIdentBytes)
	for _, tc := range []struct {
		name  string
		b     emit.Block
		field string
	}{
		{"a key past the identifier cap once forwarded", emit.Block{Key: long, Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "t"}}, "streamKey"},
		{"a parent past the identifier cap once forwarded", emit.Block{Parent: long, Status: envelope.StatusRunning, Payload: envelope.Text{}}, "streamKey"},
		{"its own call as parent", emit.Block{Key: "s1", Parent: "s1", Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "t"}}, "parent"},
		{"no payload", emit.Block{Status: envelope.StatusRunning}, "payload"},
		{"a bad status", emit.Block{Status: "paused", Payload: envelope.Text{}}, "status"},
	} {
		err := call.Forward(tc.b)
		ee, ok := errors.AsType[*envelope.Error](err)
		if !ok || ee.Reason != envelope.ReasonBadField || ee.Field != tc.field {
			t.Errorf("%s: %v, want bad_field %s", tc.name, err, tc.field)
		}
	}
	if err := call.Done(); err != nil {
		t.Fatal(err)
	}
	if err := call.Forward(emit.Block{Status: envelope.StatusRunning, Payload: envelope.Text{Text: "late"}}); !errors.Is(err, emit.ErrToolEnded) {
		t.Errorf("after Done: %v, want ErrToolEnded", err)
	}
	// Only the call's start and end were sent: a refused block uses no seq.
	if got := len(blocks(t, r.events)); got != 2 {
		t.Errorf("%d blocks sent, want 2", got)
	}
}
