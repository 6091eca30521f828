package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// -o json writes its document in pieces (render.go), byte for byte as
// json.Encoder with a two-space indent writes it whole: views with blocks
// and tool calls, empty, and with empty non-nil slices.
func TestJSONDocSameAsEncoder(t *testing.T) {
	tr := merge.NewTurn("t1", "m1", merge.Caps{})
	tr.ApplyAt(envelope.Reading{Part: 0, Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "a<b>\u2028"}}}, time.Unix(5, 0))
	tr.ApplyAt(envelope.Reading{Part: 0, Envelope: envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: "k", Seq: 2, Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "sh"}}}, time.Time{})
	tr.ApplyAt(envelope.Reading{Part: 0, Envelope: envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "k", Seq: 3, Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "sh", Chunk: "x\n"}}}, time.Time{})
	for _, v := range []schema.View{tr.View(), merge.NewTurn("t", "", merge.Caps{}).View(), {Blocks: []schema.Block{}, ToolCalls: []schema.ToolCall{}}} {
		var got bytes.Buffer
		s := &jsonSink{w: &got}
		if err := s.finish(v, terminal.Outcome{}, nil); err != nil {
			t.Fatal(err)
		}
		res, _ := resultLine(nil, v, terminal.Outcome{}, nil)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			View    schema.View     `json:"view"`
			Outcome json.RawMessage `json:"outcome"`
		}{v, res})
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("(-encoder +pieces):\n%s", diff)
		}
	}
}
