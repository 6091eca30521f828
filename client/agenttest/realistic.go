package agenttest

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
)

// RealisticName is the Name of [Realistic] and the script a server plays
// for a message that names no registered script.
const RealisticName = "realistic"

// RealisticReply is the text of the completed status message of [Realistic].
const RealisticReply = "Order 42 has shipped; all 3 items are in stock."

// Realistic is the demo trajectory: a thinking block, two tool calls with
// output chunks (tool_output_append), progress text, one error block, one
// envelope sent out of order (seq 109 before 108) and one sent twice (seq
// 109 again), then completed with a reply message and a reply artifact.
// Seqs start at 100 (the spec leaves the start value free). Steps do not
// pause; see [Script.WithPause].
func Realistic() Script {
	env := func(kind envelope.Kind, key string, seq int64, status envelope.Status, p envelope.Payload) *envelope.Envelope {
		return &envelope.Envelope{V: envelope.Version, Kind: kind, StreamKey: key, Seq: seq, Status: status, Payload: p}
	}
	const (
		search = "search_orders"
		stock  = "check_stock"
	)
	return Script{
		Name: RealisticName,
		Steps: []Step{
			{Envelope: env(envelope.KindThinking, "", 100, envelope.StatusRunning,
				envelope.Thinking{Text: "The user asks about order 42: look it up, then check stock."})},
			{Envelope: env(envelope.KindToolCall, "call-1", 101, envelope.StatusRunning,
				envelope.ToolCall{Tool: search, ToolCallID: "call-1"})},
			{Envelope: env(envelope.KindToolOutputAppend, "call-1", 102, envelope.StatusRunning,
				envelope.ToolOutputAppend{Tool: search, ToolCallID: "call-1", Chunk: "order 42: 3 items\n"})},
			{Envelope: env(envelope.KindToolOutputAppend, "call-1", 103, envelope.StatusRunning,
				envelope.ToolOutputAppend{Tool: search, ToolCallID: "call-1", Chunk: "status: shipped 2026-11-28\n"})},
			{Envelope: env(envelope.KindToolCall, "call-1", 104, envelope.StatusDone,
				envelope.ToolCall{Tool: search, ToolCallID: "call-1"})},
			{Envelope: env(envelope.KindText, "", 105, envelope.StatusRunning,
				envelope.Text{Text: "Order found. Checking stock."})},
			{Envelope: env(envelope.KindToolCall, "call-2", 106, envelope.StatusRunning,
				envelope.ToolCall{Tool: stock, ToolCallID: "call-2"})},
			{Envelope: env(envelope.KindError, "call-2", 107, envelope.StatusRunning,
				envelope.ErrorPayload{Message: "warehouse API timed out; retrying"})},
			// Out of order: 109 arrives before 108.
			{Envelope: env(envelope.KindToolOutputAppend, "call-2", 109, envelope.StatusRunning,
				envelope.ToolOutputAppend{Tool: stock, ToolCallID: "call-2", Chunk: "sku B: 1 in stock\nsku C: 7 in stock\n"})},
			// Duplicated: 108 is delivered twice.
			{Envelope: env(envelope.KindToolOutputAppend, "call-2", 108, envelope.StatusRunning,
				envelope.ToolOutputAppend{Tool: stock, ToolCallID: "call-2", Chunk: "sku A: 12 in stock\n"}), Repeat: 1},
			{Envelope: env(envelope.KindToolCall, "call-2", 110, envelope.StatusDone,
				envelope.ToolCall{Tool: stock, ToolCallID: "call-2"})},
			{Envelope: env(envelope.KindText, "", 111, envelope.StatusRunning,
				envelope.Text{Text: "Writing the reply."})},
		},
		Artifacts: []*a2a.Artifact{{
			ID:    "reply",
			Name:  "reply",
			Parts: a2a.ContentParts{a2a.NewTextPart(RealisticReply)},
		}},
		Final:     a2a.TaskStateCompleted,
		FinalText: RealisticReply,
	}
}
