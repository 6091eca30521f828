package merge

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

func TestCapsDefaults(t *testing.T) {
	for _, caps := range []Caps{{}, {MaxTurnBytes: -1, MaxBlocks: -1, MaxStreamKeys: -1, MaxOutputBytes: -1, MaxTextBytes: -1}} {
		if d := cmp.Diff(DefaultCaps(), caps.withDefaults()); d != "" {
			t.Errorf("%+v.withDefaults() (-want +got):\n%s", caps, d)
		}
	}
	if d := cmp.Diff(Caps{MaxTurnBytes: 32 << 20, MaxBlocks: 5, MaxStreamKeys: 10000, MaxOutputBytes: 262144, MaxTextBytes: 8192}, (Caps{MaxBlocks: 5}).withDefaults()); d != "" {
		t.Errorf("one field set (-want +got):\n%s", d)
	}
}

// Each cap: what is refused or cut, and where it is counted.
func TestCaps(t *testing.T) {
	long := strings.Repeat("k", envelope.MaxIdentBytes+1)
	tests := []struct {
		name    string
		caps    Caps
		in      []envelope.Reading
		want    []Effect
		counts  schema.Counters
		blocks  []string
		outputs []toolOutput
	}{
		{
			name: "MaxBlocks: new identities are dropped, duplicates still recognised",
			caps: Caps{MaxBlocks: 2},
			in: []envelope.Reading{run("", 1, text("a")), fallback("msg:1", "f", envelope.ReasonNoEnvelope),
				run("", 2, text("b")), fallback("msg:2", "g", envelope.ReasonNoEnvelope), run("", 1, text("a"))},
			want:   []Effect{Applied, Applied, DroppedCap, DroppedCap, Duplicate},
			counts: schema.Counters{Applied: 2, Duplicates: 1, DroppedByCap: 2, Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 1}},
			blocks: []string{"1", "msg:1"},
		},
		{
			name:    "MaxBlocks counts chunks",
			caps:    Caps{MaxBlocks: 2},
			in:      []envelope.Reading{run("c1", 1, chunk("t", "a")), run("c1", 2, chunk("t", "b")), run("c1", 3, chunk("t", "c"))},
			want:    []Effect{Applied, Applied, DroppedCap},
			counts:  schema.Counters{Applied: 2, DroppedByCap: 1},
			outputs: []toolOutput{{Key: "c1", Output: "ab", Status: schema.ToolRunning}},
		},
		{
			name: "MaxStreamKeys: a new key with tool state is dropped; plain text on it is not",
			caps: Caps{MaxStreamKeys: 1},
			in: []envelope.Reading{run("c1", 1, call("grep")), run("c2", 2, call("ls")), run("c2", 3, text("progress")),
				env("c2", 4, done, text("closing")), env("c1", 5, done, text("closing"))},
			want:    []Effect{Applied, DroppedCap, Applied, DroppedCap, Applied},
			counts:  schema.Counters{Applied: 3, DroppedByCap: 2, Gaps: 2},
			blocks:  []string{"c1:1", "c2:3", "c1:5"},
			outputs: []toolOutput{{Key: "c1", Status: schema.ToolDone}},
		},
		{
			name: "MaxOutputBytes: the newest bytes are kept",
			caps: Caps{MaxOutputBytes: 10},
			in: []envelope.Reading{run("c1", 1, chunk("t", "aaaa\n")), run("c1", 2, chunk("t", "bbbb\n")),
				run("c1", 3, chunk("t", "cccc\n"))},
			want:    []Effect{Applied, Applied, Applied},
			counts:  schema.Counters{Applied: 3},
			outputs: []toolOutput{{Key: "c1", Output: "bbbb\ncccc\n", Truncated: 5, Status: schema.ToolRunning}},
		},
		{
			name: "MaxOutputBytes: the cut may fall inside a chunk",
			caps: Caps{MaxOutputBytes: 7},
			in: []envelope.Reading{run("c1", 3, chunk("t", "cccc\n")), run("c1", 1, chunk("t", "aaaa\n")),
				run("c1", 2, chunk("t", "bbbb\n"))},
			want:    []Effect{Applied, Applied, Applied},
			counts:  schema.Counters{Applied: 3, Late: 2},
			outputs: []toolOutput{{Key: "c1", Output: "b\ncccc\n", Truncated: 8, Status: schema.ToolRunning}},
		},
		{
			name:    "MaxOutputBytes: never inside a rune",
			caps:    Caps{MaxOutputBytes: 4},
			in:      []envelope.Reading{run("c1", 1, chunk("t", "ééé"))}, // 6 bytes; keeping 4 would start mid-rune
			want:    []Effect{Applied},
			counts:  schema.Counters{Applied: 1},
			outputs: []toolOutput{{Key: "c1", Output: "éé", Truncated: 2, Status: schema.ToolRunning}},
		},
		{
			// The evicted text is gone, so a copy of an evicted chunk is
			// compared by status and length: "AAAA\n" passes for a
			// duplicate, "AAA\n" is a conflict.
			name: "MaxOutputBytes: a late chunk older than the window only adds to Truncated",
			caps: Caps{MaxOutputBytes: 5},
			in: []envelope.Reading{run("c1", 2, chunk("t", "bbbb\n")), run("c1", 3, chunk("t", "cccc\n")),
				run("c1", 1, chunk("t", "aaaa\n")), run("c1", 1, chunk("t", "aaaa\n")), run("c1", 1, chunk("t", "AAAA\n")),
				run("c1", 1, chunk("t", "AAA\n"))},
			want:    []Effect{Applied, Applied, Applied, Duplicate, Duplicate, Conflict},
			counts:  schema.Counters{Applied: 3, Late: 1, Duplicates: 2, Conflicts: 1},
			outputs: []toolOutput{{Key: "c1", Output: "cccc\n", Truncated: 10, Status: schema.ToolRunning}},
		},
		{
			name: "MaxTextBytes: the head of the text is kept, at a rune boundary",
			caps: Caps{MaxTextBytes: 2},
			in: []envelope.Reading{run("", 1, text("héllo")), run("", 2, think("ok")),
				fallback("msg:1", "ßig", envelope.ReasonBadJSON), run("", 1, text("héllo"))},
			want:   []Effect{Applied, Applied, Applied, Duplicate},
			counts: schema.Counters{Applied: 3, Duplicates: 1, Fallbacks: map[envelope.Reason]int64{envelope.ReasonBadJSON: 1}},
			blocks: []string{"1", "2", "msg:1"},
		},
		{
			name: "envelope.MaxIdentBytes: a block with a longer identifier is dropped",
			in: []envelope.Reading{run(long, 1, text("a")), fallback("msg:"+long, "f", envelope.ReasonBadJSON),
				run("c1", 2, call(long)), run("", 3, envelope.ToolOutputAppend{Tool: "t", ToolCallID: long, Chunk: "x"})},
			want:   []Effect{DroppedCap, DroppedCap, DroppedCap, DroppedCap},
			counts: schema.Counters{DroppedByCap: 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn("t1", "m1", tt.caps)
			got := results(turn, tt.in)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			v := turn.View()
			if d := cmp.Diff(tt.counts, v.Counters); d != "" {
				t.Errorf("counters (-want +got):\n%s", d)
			}
			if tt.blocks != nil {
				if d := cmp.Diff(tt.blocks, order(v)); d != "" {
					t.Errorf("blocks (-want +got):\n%s", d)
				}
			}
			if d := cmp.Diff(tt.outputs, toolOutputs(v)); d != "" {
				t.Errorf("tool outputs (-want +got):\n%s", d)
			}
		})
	}
}

func TestMaxTextBytesMarksTheCut(t *testing.T) {
	v := applyAll(Caps{MaxTextBytes: 2}, run("", 1, text("héllo")), run("", 2, errp("boom")), run("", 3, think("ok"))).View()
	type cut struct {
		Payload   envelope.Payload
		Truncated int64
	}
	var got []cut
	for _, b := range v.Blocks {
		got = append(got, cut{b.Payload, b.Truncated})
	}
	want := []cut{{text("h"), 5}, {errp("bo"), 2}, {think("ok"), 0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cut blocks (-want +got):\n%s", d)
	}
}

// The output cap bounds memory: evicted chunks release their text, and the
// call keeps only the chunks of its window.
func TestOutputCapBoundsMemory(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{MaxOutputBytes: 4096, MaxBlocks: 20000})
	line := strings.Repeat("x", 1023) + "\n"
	for seq := range int64(10000) {
		turn.Apply(run("c1", seq, chunk("tail", line)))
	}
	st := turn.streams[0]
	if len(st.heap) > 5 {
		t.Errorf("%d chunks retained, want at most 5 (4 KiB window of 1 KiB chunks)", len(st.heap))
	}
	held := 0
	for i := range int32(turn.envelopes.n) {
		if turn.envelopes.at(i).payload.(envelope.ToolOutputAppend).Chunk != "" {
			held++
		}
	}
	if held != len(st.heap) {
		t.Errorf("%d recs still hold chunk text, want %d", held, len(st.heap))
	}
	tc := turn.View().ToolCalls[0]
	if len(tc.Output) != 4096 || tc.Truncated != 10000*1024-4096 {
		t.Errorf("output %d bytes, truncated %d; want 4096 and %d", len(tc.Output), tc.Truncated, 10000*1024-4096)
	}
}

// A text cut by MaxTextBytes must let go of the rest of the string: a
// hostile peer's 1 MiB fallback texts would otherwise stay whole in memory
// behind their 8 KiB heads.
func TestMaxTextBytesReleasesTheRest(t *testing.T) {
	const n, size = 64, 1 << 20
	before := heapAfterGC()
	turn := NewTurn("t", "", DefaultCaps())
	for i := range n {
		text := strings.Repeat(string(rune('a'+i%26)), size)
		msg := &a2a.Message{ID: fmt.Sprintf("m%d", i), Parts: a2a.ContentParts{a2a.NewTextPart(text)}}
		if c := turn.Apply(envelope.FromMessage(msg)); c.Effect != Applied {
			t.Fatalf("block %d: %v", i, c.Effect)
		}
	}
	grown := heapAfterGC() - before
	runtime.KeepAlive(turn)
	if limit := uint64(n * 4 * DefaultMaxTextBytes); grown > limit {
		t.Errorf("%d texts of 1 MiB cut to %d bytes keep %d KiB alive, want under %d KiB", n, DefaultMaxTextBytes, grown>>10, limit>>10)
	}
}

// The output cap bounds memory, not just the rendered output: chunks it
// drops must be freed although their blocks' keys stay for duplicate
// detection.
func TestMaxOutputBytesReleasesDroppedChunks(t *testing.T) {
	const n, size = 200, 60 << 10
	before := heapAfterGC()
	turn := NewTurn("t", "", DefaultCaps())
	for i := range n {
		e := envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "call-1", Seq: int64(i + 1),
			Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "cat", Chunk: strings.Repeat("x", size-1) + "\n"}}
		p, err := envelope.NewPart(e, "")
		if err != nil {
			t.Fatal(err)
		}
		// Read back from the wire form, as a caller does.
		if c := turn.Apply(envelope.FromMessage(&a2a.Message{ID: "m", Parts: a2a.ContentParts{p}})); c.Effect != Applied {
			t.Fatalf("chunk %d: %v", i, c.Effect)
		}
	}
	grown := heapAfterGC() - before
	runtime.KeepAlive(turn)
	if limit := uint64(4 * DefaultMaxOutputBytes); grown > limit {
		t.Errorf("%d chunks of %d KiB under a %d KiB output cap keep %d KiB alive, want under %d KiB",
			n, size>>10, DefaultMaxOutputBytes>>10, grown>>10, limit>>10)
	}
}

// heapAfterGC is the live heap, after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
