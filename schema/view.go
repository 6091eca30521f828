package schema

import (
	"encoding/json"

	"github.com/tfrs/a2a-progress/envelope"
)

// View is an immutable snapshot of a turn: blocks in order, tool calls,
// counters. A View shares nothing mutable with its Turn; later Applies never
// change it. It marshals to JSON and back.
type View struct {
	// Task is the A2A taskId of the turn.
	Task string `json:"task"`
	// Turn is the turn's id (see merge.Turn).
	Turn string `json:"turn"`
	// Blocks are the applied blocks in order (see [Block] for the rule).
	// tool_output_append blocks are not listed: their chunks are folded
	// into ToolCalls[i].Output.
	Blocks []Block `json:"blocks"`
	// ToolCalls are the tool calls of the turn, ordered by FirstSeq, then
	// Key; a projection's call (SourceProjection) stands where its first
	// tool_call block was placed.
	ToolCalls []ToolCall `json:"toolCalls"`
	// Counters count what the turn saw.
	Counters Counters `json:"counters"`
	// Sealed is true once the turn's verdict arrived.
	Sealed bool `json:"sealed"`
}

// ToolStatus is the state of a tool call.
type ToolStatus string

// The states of a tool call.
const (
	// ToolRunning: started (or seen through its output), not closed yet.
	ToolRunning ToolStatus = "running"
	// ToolDone: a block with status done closed the call.
	ToolDone ToolStatus = "done"
	// ToolAborted: a block with status aborted closed the call.
	ToolAborted ToolStatus = "aborted"
	// ToolUnfinished: the turn was sealed while the call was running.
	ToolUnfinished ToolStatus = "unfinished"
)

// ToolCall is one tool call of a turn: every tool_call and
// tool_output_append block with the same key, and the done/aborted blocks of
// any kind with that key.
type ToolCall struct {
	// Key is the streamKey, or the tool_call_id when the streamKey is empty.
	Key string `json:"key"`
	// Tool is the tool name of the lowest-seq tool_call block, or of the
	// lowest-seq chunk while no tool_call block has been seen.
	Tool string `json:"tool"`
	// ToolCallID is taken from the same block as Tool.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Status is running, done, aborted or unfinished. The lowest-seq
	// done/aborted block of the key decides, whatever its kind.
	Status ToolStatus `json:"status"`
	// Started is true when a tool_call block was seen (false: only output
	// or a close so far).
	Started bool `json:"started"`
	// FirstSeq is the lowest seq of the call's tool_call and chunk blocks:
	// where the call begins among the turn's blocks. For a projection's
	// call it is a seq of the projection's own space.
	FirstSeq int64 `json:"firstSeq"`
	// Output is the call's chunks concatenated in seq order, with a gap
	// marker line, "[gap: N seqs missing]", between two chunks where the
	// turn misses seqs, cut to the newest Caps.MaxOutputBytes bytes of
	// chunk text. Only View fills it.
	Output string `json:"output"`
	// Truncated counts the chunk bytes dropped from the head by
	// Caps.MaxOutputBytes. Only View fills it.
	Truncated int64 `json:"truncated,omitempty"`
	// Gaps counts the gap markers in Output. Only View fills it.
	Gaps int `json:"gaps,omitempty"`
	// Chunks counts the chunks applied to the call. Only View fills it.
	Chunks int `json:"chunks"`
	// Bytes counts the chunk bytes applied to the call, truncated or not.
	// Only View fills it.
	Bytes int64 `json:"bytes"`
	// Parent is the nesting extension (PROTOCOL.md §10): the parent
	// named by the block that names the call (the same block as Tool);
	// "" for a top-level call.
	Parent string `json:"parent,omitempty"`
	// Depth is how deep the call nests (PROTOCOL.md §10.3): 1 under a
	// top-level call, 2 under one of depth 1, … up to merge.MaxDepth. It is 0
	// for a call shown at the top level: one without a Parent, one whose
	// Parent is no call of the view, and one whose chain of parents is
	// longer than MaxDepth or loops. Only View fills it.
	Depth int `json:"depth,omitempty"`
}

// Counters count what a turn saw. A merge.Receiver computes Applied, Gaps and
// Fallbacks from its blocks, exactly as the Turn does; the other counters are
// the receiver's own observations of the ops it got (ops do not carry the
// Turn's).
type Counters struct {
	// Applied counts the blocks applied (chunks and fallbacks included).
	Applied int64 `json:"applied"`
	// Duplicates counts arrivals of an applied identity with equal content.
	Duplicates int64 `json:"duplicates"`
	// Conflicts counts arrivals of an applied identity with different
	// content.
	Conflicts int64 `json:"conflicts"`
	// Late counts envelopes applied after a higher seq.
	Late int64 `json:"late"`
	// Gaps counts the seqs missing inside the range of applied seqs.
	Gaps int64 `json:"gaps"`
	// DroppedAfterSeal counts readings that arrived after the seal.
	DroppedAfterSeal int64 `json:"droppedAfterSeal"`
	// DroppedByCap counts blocks refused by a cap.
	DroppedByCap int64 `json:"droppedByCap"`
	// Invalid counts blocks that were not valid (see [Invalid]).
	Invalid int64 `json:"invalid,omitempty"`
	// Fallbacks counts the applied fallbacks by reason; nil when there is
	// none.
	Fallbacks map[envelope.Reason]int64 `json:"fallbacks,omitempty"`
}

// MarshalJSON writes the view's JSON form (PROTOCOL.md §4.5), with [] for
// no blocks or no tool calls, never null: a front end iterates both without
// a check.
func (v View) MarshalJSON() ([]byte, error) {
	type plain View // the struct tags without this method
	p := plain(v)
	if p.Blocks == nil {
		p.Blocks = []Block{}
	}
	if p.ToolCalls == nil {
		p.ToolCalls = []ToolCall{}
	}
	return json.Marshal(p)
}
