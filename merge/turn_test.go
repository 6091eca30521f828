package merge

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// order lists a view's blocks as "seq" / "streamKey:seq" for envelopes and
// their ID for fallbacks.
func order(v schema.View) []string {
	var out []string
	for _, b := range v.Blocks {
		switch {
		case b.Source == schema.SourceFallback:
			out = append(out, b.Key.ID)
		case b.Key.StreamKey != "":
			out = append(out, fmt.Sprintf("%s:%d", b.Key.StreamKey, b.Key.Seq))
		default:
			out = append(out, fmt.Sprint(b.Key.Seq))
		}
	}
	return out
}

func TestOrder(t *testing.T) {
	fb := func(id string) envelope.Reading { return fallback(id, "plain "+id, envelope.ReasonNoEnvelope) }
	tests := []struct {
		name     string
		in       []envelope.Reading
		want     []string
		wantLate []bool
	}{
		{
			name:     "in order is delivered at once",
			in:       []envelope.Reading{run("", 1, text("a")), run("", 3, text("b")), run("", 10, text("c"))},
			want:     []string{"1", "3", "10"},
			wantLate: []bool{false, false, false},
		},
		{
			name:     "a late arrival is inserted in its place",
			in:       []envelope.Reading{run("", 1, text("a")), run("", 3, text("c")), run("", 2, text("b"))},
			want:     []string{"1", "2", "3"},
			wantLate: []bool{false, false, true},
		},
		{
			name:     "any start value, negative too",
			in:       []envelope.Reading{run("", -5, text("a")), run("", math.MinInt64, text("b")), run("", math.MaxInt64, text("c"))},
			want:     []string{"-9223372036854775808", "-5", "9223372036854775807"},
			wantLate: []bool{false, true, false},
		},
		{
			name:     "the same seq on two stream keys: two blocks, by streamKey",
			in:       []envelope.Reading{run("b", 1, text("x")), run("a", 1, text("y"))},
			want:     []string{"a:1", "b:1"},
			wantLate: []bool{false, false},
		},
		{
			name:     "a fallback before any envelope comes first",
			in:       []envelope.Reading{fb("msg:f"), run("", 1, text("a"))},
			want:     []string{"msg:f", "1"},
			wantLate: []bool{false, false},
		},
		{
			name:     "a fallback stays after the highest seq applied before it",
			in:       []envelope.Reading{run("", 1, text("a")), run("", 5, text("e")), fb("msg:f"), run("", 3, text("c")), run("", 6, text("f"))},
			want:     []string{"1", "3", "5", "msg:f", "6"},
			wantLate: []bool{false, false, false, true, false},
		},
		{
			name:     "fallbacks with the same anchor keep their arrival order",
			in:       []envelope.Reading{run("", 1, text("a")), fb("msg:z"), fb("msg:a"), run("", 2, text("b"))},
			want:     []string{"1", "msg:z", "msg:a", "2"},
			wantLate: []bool{false, false, false, false},
		},
		{
			name:     "an envelope at the anchor seq on another key goes before the fallback",
			in:       []envelope.Reading{run("b", 1, text("a")), fb("msg:f"), run("a", 1, text("b"))},
			want:     []string{"a:1", "b:1", "msg:f"},
			wantLate: []bool{false, false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn("t1", "m1", Caps{})
			var late []bool
			for _, r := range tt.in {
				ch := turn.Apply(r)
				if ch.Effect != Applied {
					t.Fatalf("Apply: %v, want applied", ch.Effect)
				}
				late = append(late, ch.Late)
			}
			v := turn.View()
			if d := cmp.Diff(tt.want, order(v)); d != "" {
				t.Errorf("order (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantLate, late); d != "" {
				t.Errorf("late (-want +got):\n%s", d)
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	tests := []struct {
		name    string
		in      []envelope.Reading
		want    []Effect
		payload envelope.Payload // of the one block
		counts  schema.Counters
	}{
		{
			name:    "duplicate: applied once",
			in:      []envelope.Reading{run("c1", 7, text("a")), run("c1", 7, text("a"))},
			want:    []Effect{Applied, Duplicate},
			payload: text("a"),
			counts:  schema.Counters{Applied: 1, Duplicates: 1},
		},
		{
			name:    "conflict: other content, first wins",
			in:      []envelope.Reading{run("c1", 7, text("a")), run("c1", 7, text("b")), env("c1", 7, done, text("a"))},
			want:    []Effect{Applied, Conflict, Conflict},
			payload: text("a"),
			counts:  schema.Counters{Applied: 1, Conflicts: 2},
		},
		{
			name: "fallback duplicate by ID",
			in: []envelope.Reading{fallback("msg:1", "x", envelope.ReasonBadJSON), fallback("msg:1", "x", envelope.ReasonBadJSON),
				fallback("msg:1", "other text", envelope.ReasonBadJSON)},
			want:    []Effect{Applied, Duplicate, Conflict},
			payload: text("x"),
			counts: schema.Counters{Applied: 1, Duplicates: 1, Conflicts: 1,
				Fallbacks: map[envelope.Reason]int64{envelope.ReasonBadJSON: 1}},
		},
		{
			name: "the same seq on two keys: two identities, the late one found too",
			in: []envelope.Reading{run("b", 5, text("a")), run("", 7, text("x")), run("a", 5, text("a")),
				run("b", 5, text("a")), run("a", 5, text("a")), run("a", 5, text("other")), run("c", 7, text("a"))},
			want:    []Effect{Applied, Applied, Applied, Duplicate, Duplicate, Conflict, Applied},
			payload: nil,
			counts:  schema.Counters{Applied: 4, Duplicates: 2, Conflicts: 1, Late: 1, Gaps: 1},
		},
		{
			name: "an invalid reading is counted, not applied",
			in: []envelope.Reading{run("c1", 1, text("a")), {Envelope: envelope.Envelope{V: 1, Kind: envelope.KindThinking,
				Seq: 2, Status: envelope.StatusRunning, Payload: text("kind and payload disagree")}}},
			want:    []Effect{Applied, Invalid},
			payload: text("a"),
			counts:  schema.Counters{Applied: 1, Invalid: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn("t1", "m1", Caps{})
			got := results(turn, tt.in)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			v := turn.View()
			if tt.payload != nil {
				if len(v.Blocks) != 1 {
					t.Fatalf("%d blocks, want 1", len(v.Blocks))
				}
				if d := cmp.Diff(tt.payload, v.Blocks[0].Payload); d != "" {
					t.Errorf("payload (-want +got):\n%s", d)
				}
			}
			if d := cmp.Diff(tt.counts, v.Counters); d != "" {
				t.Errorf("counters (-want +got):\n%s", d)
			}
		})
	}
}

func TestSeal(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{})
	turn.Apply(run("c1", 1, call("grep")))
	if d := cmp.Diff(schema.Op{Type: schema.OpSeal, Task: "t1", Turn: "m1"}, turn.Seal()); d != "" {
		t.Errorf("Seal op (-want +got):\n%s", d)
	}
	turn.Seal() // twice changes nothing
	got := []Effect{
		turn.Apply(run("c1", 2, chunk("grep", "late"))).Effect,
		turn.Apply(env("c1", 3, done, call("grep"))).Effect,
		turn.Apply(run("c1", 1, call("grep"))).Effect, // even a duplicate
	}
	if d := cmp.Diff([]Effect{DroppedSealed, DroppedSealed, DroppedSealed}, got); d != "" {
		t.Errorf("results after seal (-want +got):\n%s", d)
	}
	want := schema.View{
		Task:      "t1",
		Turn:      "m1",
		Sealed:    true,
		Blocks:    []schema.Block{{Key: schema.Key{StreamKey: "c1", Seq: 1}, Kind: envelope.KindToolCall, Status: envelope.StatusRunning, Payload: call("grep"), Source: schema.SourceEnvelope}},
		ToolCalls: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolUnfinished, Started: true, FirstSeq: 1}},
		Counters:  schema.Counters{Applied: 1, DroppedAfterSeal: 3},
	}
	if d := cmp.Diff(want, turn.View()); d != "" {
		t.Errorf("View (-want +got):\n%s", d)
	}
}

func TestCounters(t *testing.T) {
	turn := applyAll(Caps{},
		run("", 10, text("a")),
		run("", 14, text("b")), // 11..13 missing
		fallback("msg:1", "x", envelope.ReasonNoEnvelope),
		fallback("msg:2", "y", envelope.ReasonUnsupportedVersion),
		fallback("msg:3", "z", envelope.ReasonNoEnvelope),
		run("", 12, text("c")), // late, fills one
		run("", 12, text("c")),
	)
	want := schema.Counters{Applied: 6, Duplicates: 1, Late: 1, Gaps: 2,
		Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 2, envelope.ReasonUnsupportedVersion: 1}}
	if d := cmp.Diff(want, turn.View().Counters); d != "" {
		t.Errorf("Counters (-want +got):\n%s", d)
	}
	extreme := applyAll(Caps{}, run("", math.MinInt64, text("a")), run("", math.MaxInt64, text("b")))
	if got := extreme.View().Counters.Gaps; got != math.MaxInt64 {
		t.Errorf("Gaps over the whole int64 range = %d, want MaxInt64 (saturated)", got)
	}
}

// A View is a snapshot: later Applies do not change it, and changing it does
// not change the turn.
func TestViewIsASnapshot(t *testing.T) {
	turn := applyAll(Caps{}, run("c1", 2, call("grep")), run("c1", 3, chunk("grep", "a\n")),
		fallback("msg:1", "x", envelope.ReasonNoEnvelope))
	v := turn.View()
	want := turn.View()
	turn.Apply(run("c1", 1, text("late")))
	turn.Apply(run("c1", 4, chunk("grep", "b\n")))
	turn.Apply(fallback("msg:2", "y", envelope.ReasonNoEnvelope))
	turn.Seal()
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("old view changed (-want +got):\n%s", d)
	}
	v.Blocks[0].Payload = text("scribbled")
	v.Counters.Fallbacks[envelope.ReasonBadJSON] = 99
	v.ToolCalls[0].Output = "scribbled"
	again := turn.View()
	if again.Blocks[1].Payload != call("grep") || again.Counters.Fallbacks[envelope.ReasonBadJSON] != 0 ||
		again.ToolCalls[0].Output != "a\nb\n" {
		t.Errorf("changing a view changed the turn: %+v", again)
	}
}

// TestSameSeqTiesStayCheap: many envelopes sharing one seq (a producer
// bug, or a hostile peer) are still found in O(log n) plus one hash: the
// bisected index holds one rec per seq, so a lookup never scans the ties.
// Duplicates among the ties, in order and late, are still recognised.
func TestSameSeqTiesStayCheap(t *testing.T) {
	const n = 2000
	turn := NewTurn("t1", "m1", Caps{MaxBlocks: 2*n + 2})
	for i := range n {
		if r := turn.Apply(run(fmt.Sprintf("k%d", i), 5, text("x"))).Effect; r != Applied {
			t.Fatalf("tie %d: %v, want applied", i, r)
		}
	}
	turn.Apply(run("z", 9, text("y")))
	for i := range n {
		if ch := turn.Apply(run(fmt.Sprintf("late%d", i), 7, text("x"))); ch.Effect != Applied || !ch.Late {
			t.Fatalf("late tie %d: %+v, want applied late", i, ch)
		}
	}
	if got := len(turn.inOrder); got != 2 {
		t.Errorf("the bisected index holds %d recs, want 2 (one per distinct in-order seq)", got)
	}
	for i := range n {
		if r := turn.Apply(run(fmt.Sprintf("k%d", i), 5, text("x"))).Effect; r != Duplicate {
			t.Fatalf("again tie %d: %v, want duplicate", i, r)
		}
		if r := turn.Apply(run(fmt.Sprintf("late%d", i), 7, text("other"))).Effect; r != Conflict {
			t.Fatalf("again late tie %d: %v, want conflict", i, r)
		}
	}
	if r := turn.Apply(run("k0", 7, text("x"))).Effect; r != Applied {
		t.Errorf("a known key at another seq: %v, want applied", r)
	}
}
