package merge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

const (
	done    = envelope.StatusDone
	aborted = envelope.StatusAborted
)

// Each tolerance case of the spec, and the rules around it. The readings are
// in arrival order.
func TestToolCalls(t *testing.T) {
	tests := []struct {
		name   string
		in     []envelope.Reading
		seal   bool
		want   []schema.ToolCall
		blocks int // len(View.Blocks)
	}{
		{
			name: "start, output, done",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				run("c1", 2, chunk("grep", "a\n")),
				run("c1", 3, chunk("grep", "b\n")),
				env("c1", 4, done, call("grep")),
			},
			want: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 1,
				Output: "a\nb\n", Chunks: 2, Bytes: 4}},
			blocks: 2, // chunks are folded into the call
		},
		{
			name: "output before tool_call: the chunk opens the call, the start names it later",
			in: []envelope.Reading{
				run("c1", 2, chunk("grep-from-chunk", "a\n")),
				run("c1", 1, call("grep")),
			},
			want: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolRunning, Started: true, FirstSeq: 1,
				Output: "a\n", Chunks: 1, Bytes: 2}},
			blocks: 1,
		},
		{
			name: "output and no tool_call at all: named by its lowest-seq chunk",
			in: []envelope.Reading{
				run("c1", 3, chunk("late-name", "b\n")),
				run("c1", 2, chunk("grep", "a\n")),
			},
			want: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolRunning, FirstSeq: 2,
				Output: "a\nb\n", Chunks: 2, Bytes: 4}},
		},
		{
			name: "done before start (arrival): the call is done, the start names it",
			in: []envelope.Reading{
				env("c1", 5, done, call("grep")),
				run("c1", 1, call("grep")),
			},
			want:   []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 1}},
			blocks: 2,
		},
		{
			name: "done before start (seq): still done",
			in: []envelope.Reading{
				env("c1", 1, done, text("closing early")),
				run("c1", 2, call("grep")),
			},
			want:   []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 2}},
			blocks: 2,
		},
		{
			name: "repeated done: the first by seq counts, the rest change nothing",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				env("c1", 3, done, call("grep")),
				env("c1", 4, done, call("grep")),
				env("c1", 3, done, call("grep")), // a duplicate, too
			},
			want:   []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 1}},
			blocks: 3,
		},
		{
			name: "done and aborted: the lower seq decides, whatever arrives first",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				env("c1", 4, done, call("grep")),
				env("c1", 3, aborted, call("grep")),
			},
			want:   []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolAborted, Started: true, FirstSeq: 1}},
			blocks: 3,
		},
		{
			name: "chunks after done are still output; the call stays done",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				run("c1", 2, chunk("grep", "a\n")),
				env("c1", 3, done, call("grep")),
				run("c1", 4, chunk("grep", "flushed late\n")),
			},
			want: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 1,
				Output: "a\nflushed late\n", Chunks: 2, Bytes: 15}},
			blocks: 2,
		},
		{
			name: "done on any kind closes its streamKey",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				env("c1", 2, aborted, errp("killed")),
			},
			want:   []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolAborted, Started: true, FirstSeq: 1}},
			blocks: 2,
		},
		{
			name: "a chunk with status done carries output and closes",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				env("c1", 2, done, chunk("grep", "last\n")),
			},
			want: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 1,
				Output: "last\n", Chunks: 1, Bytes: 5}},
			blocks: 1,
		},
		{
			name: "no streamKey: the tool_call_id is the key",
			in: []envelope.Reading{
				run("", 1, envelope.ToolCall{Tool: "grep", ToolCallID: "id-1"}),
				run("", 2, envelope.ToolOutputAppend{Tool: "grep", ToolCallID: "id-1", Chunk: "a\n"}),
				run("", 3, envelope.ToolCall{Tool: "ls", ToolCallID: "id-2"}),
				env("id-1", 4, done, text("grep done")),
			},
			want: []schema.ToolCall{
				{Key: "id-1", Tool: "grep", ToolCallID: "id-1", Status: schema.ToolDone, Started: true, FirstSeq: 1,
					Output: "a\n", Chunks: 1, Bytes: 2},
				{Key: "id-2", Tool: "ls", ToolCallID: "id-2", Status: schema.ToolRunning, Started: true, FirstSeq: 3},
			},
			blocks: 3,
		},
		{
			name: "a done text on a key without a tool block is not a tool call",
			in: []envelope.Reading{
				env("notes", 1, done, text("all written")),
			},
			want:   nil,
			blocks: 1,
		},
		{
			name: "seal: a running call becomes unfinished, a closed one stays closed",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				run("c2", 2, call("ls")),
				env("c2", 3, done, call("ls")),
			},
			seal: true,
			want: []schema.ToolCall{
				{Key: "c1", Tool: "grep", Status: schema.ToolUnfinished, Started: true, FirstSeq: 1},
				{Key: "c2", Tool: "ls", Status: schema.ToolDone, Started: true, FirstSeq: 2},
			},
			blocks: 3,
		},
		{
			name: "gap marker where the turn misses seqs between two chunks",
			in: []envelope.Reading{
				run("c1", 1, chunk("tail", "one\n")),
				run("c1", 4, chunk("tail", "four\n")),
				run("c1", 5, chunk("tail", "five")), // no newline: the marker adds one
				run("c1", 7, chunk("tail", "seven\n")),
			},
			want: []schema.ToolCall{{Key: "c1", Tool: "tail", Status: schema.ToolRunning, FirstSeq: 1, Gaps: 2, Chunks: 4, Bytes: 19,
				Output: "one\n[gap: 2 seqs missing]\nfour\nfive\n[gap: 1 seq missing]\nseven\n"}},
		},
		{
			name: "seqs of other streams between chunks are not gaps",
			in: []envelope.Reading{
				run("c1", 1, chunk("tail", "one\n")),
				run("", 2, think("hm")),
				run("c2", 3, call("ls")),
				run("c1", 4, chunk("tail", "four\n")),
			},
			want: []schema.ToolCall{
				{Key: "c1", Tool: "tail", Status: schema.ToolRunning, FirstSeq: 1, Chunks: 2, Bytes: 9, Output: "one\nfour\n"},
				{Key: "c2", Tool: "ls", Status: schema.ToolRunning, Started: true, FirstSeq: 3},
			},
			blocks: 2,
		},
		{
			name: "a gap filled by a late arrival disappears",
			in: []envelope.Reading{
				run("c1", 1, chunk("tail", "one\n")),
				run("c1", 3, chunk("tail", "three\n")),
				run("", 2, text("late")),
			},
			want: []schema.ToolCall{{Key: "c1", Tool: "tail", Status: schema.ToolRunning, FirstSeq: 1, Chunks: 2, Bytes: 10,
				Output: "one\nthree\n"}},
			blocks: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := applyAll(Caps{}, tt.in...)
			if tt.seal {
				turn.Seal()
			}
			v := turn.View()
			if d := cmp.Diff(tt.want, v.ToolCalls); d != "" {
				t.Errorf("ToolCalls (-want +got):\n%s", d)
			}
			if len(v.Blocks) != tt.blocks {
				t.Errorf("len(Blocks) = %d, want %d", len(v.Blocks), tt.blocks)
			}
		})
	}
}

// What each Apply reports about the tool call it touched.
func TestChangeTool(t *testing.T) {
	type step struct {
		Result  Effect
		Late    bool
		Status  schema.ToolStatus // "" when Change.Tool is nil
		Changed bool
	}
	tests := []struct {
		name string
		in   []envelope.Reading
		want []step
	}{
		{
			name: "a call's life",
			in: []envelope.Reading{
				run("c1", 1, call("grep")),
				run("c1", 2, chunk("grep", "a")),
				env("c1", 3, done, call("grep")),
				env("c1", 4, done, call("grep")),
			},
			want: []step{
				{Applied, false, schema.ToolRunning, true},
				{Applied, false, schema.ToolRunning, false},
				{Applied, false, schema.ToolDone, true},
				{Applied, false, schema.ToolDone, false},
			},
		},
		{
			name: "blocks without tool state report no tool",
			in: []envelope.Reading{
				run("", 5, think("hm")),
				run("c1", 4, text("progress")),
				env("c1", 3, done, text("closing, but no tool yet")),
				run("c1", 1, call("grep")),
			},
			want: []step{
				{Applied, false, "", false},
				{Applied, true, "", false},
				{Applied, true, "", false},
				{Applied, true, schema.ToolDone, true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn("t1", "m1", Caps{})
			var got []step
			for _, r := range tt.in {
				ch := turn.Apply(r)
				s := step{Result: ch.Effect, Late: ch.Late, Changed: ch.ToolStatusChanged}
				if ch.Tool != nil {
					s.Status = ch.Tool.Status
					if ch.Tool.Output != "" {
						t.Errorf("Change.Tool.Output = %q, want it left to View", ch.Tool.Output)
					}
				}
				got = append(got, s)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}
