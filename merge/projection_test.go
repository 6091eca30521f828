package merge

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// proj builds the reading of a projection block: member key, the member's
// own sequence, and the identity "<key>:<seq>".
func proj(key string, seq int64, status envelope.Status, p envelope.Payload) envelope.Reading {
	r := env(key, seq, status, p)
	r.ID = fmt.Sprintf("%s:%d", key, seq)
	return r
}

func pcall(tool, id string) envelope.ToolCall { return envelope.ToolCall{Tool: tool, ToolCallID: id} }

// pblock is the block a projection reading becomes at a placement.
func pblock(r envelope.Reading, anchored bool, after, ordinal int64) schema.Block {
	e := r.Envelope
	return schema.Block{Key: schema.Key{StreamKey: e.StreamKey, Seq: e.Seq, ID: r.ID}, Kind: e.Kind, Status: e.Status,
		Payload: e.Payload, Source: schema.SourceProjection, Anchored: anchored, After: after, Ordinal: ordinal}
}

func eblock(r envelope.Reading) schema.Block {
	e := r.Envelope
	return schema.Block{Key: schema.Key{StreamKey: e.StreamKey, Seq: e.Seq}, Kind: e.Kind, Status: e.Status, Payload: e.Payload, Source: schema.SourceEnvelope}
}

func TestProjections(t *testing.T) {
	const m1, m2 = "ri:b1:call-1", "ri:b1:call-2"
	e100 := run("", 100, text("thinking"))
	e101 := run("c", 101, call("grep"))
	e103 := env("c", 103, envelope.StatusDone, call("grep"))
	p1 := proj(m1, 1, envelope.StatusRunning, pcall("expense-review", "call-1"))
	p2 := proj(m1, 2, envelope.StatusRunning, text("awaiting input"))
	p3 := proj(m1, 3, envelope.StatusDone, pcall("expense-review", "call-1"))
	q1 := proj(m2, 1, envelope.StatusRunning, pcall("audit", "call-2"))
	q2 := proj(m2, 2, envelope.StatusAborted, errp("TIMED_OUT"))

	tests := []struct {
		name    string
		in      []envelope.Reading
		results []Effect
		want    schema.View
	}{
		{
			name: "per-member seqs beside envelope seqs: no gaps, nothing late, placed by arrival",
			in:   []envelope.Reading{e100, p1, e101, q1, p2, e103, p3, q2},
			want: schema.View{Task: "t1", Turn: "m1",
				Blocks: []schema.Block{eblock(e100), pblock(p1, true, 100, 1), eblock(e101), pblock(q1, true, 101, 2),
					pblock(p2, true, 101, 3), eblock(e103), pblock(p3, true, 103, 4), pblock(q2, true, 103, 5)},
				ToolCalls: []schema.ToolCall{
					{Key: m1, Tool: "expense-review", ToolCallID: "call-1", Status: schema.ToolDone, Started: true, FirstSeq: 1},
					{Key: "c", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 101},
					{Key: m2, Tool: "audit", ToolCallID: "call-2", Status: schema.ToolAborted, Started: true, FirstSeq: 1},
				},
				// 102 is the only missing envelope seq; the members' 1..3
				// are not seqs of the turn.
				Counters: schema.Counters{Applied: 8, Gaps: 1}},
		},
		{
			name:    "two members with the same sequence do not collide; a repeat is a duplicate, other content a conflict",
			in:      []envelope.Reading{p1, q1, p1, proj(m1, 1, envelope.StatusRunning, pcall("other", "call-1"))},
			results: []Effect{Applied, Applied, Duplicate, Conflict},
			want: schema.View{Task: "t1", Turn: "m1",
				Blocks: []schema.Block{pblock(p1, false, 0, 1), pblock(q1, false, 0, 2)},
				ToolCalls: []schema.ToolCall{
					{Key: m1, Tool: "expense-review", ToolCallID: "call-1", Status: schema.ToolRunning, Started: true, FirstSeq: 1},
					{Key: m2, Tool: "audit", ToolCallID: "call-2", Status: schema.ToolRunning, Started: true, FirstSeq: 1},
				},
				Counters: schema.Counters{Applied: 2, Duplicates: 1, Conflicts: 1}},
		},
		{
			name: "a member's own seqs decide its status, whatever the arrival",
			in:   []envelope.Reading{p3, p1, p2},
			want: schema.View{Task: "t1", Turn: "m1",
				Blocks:    []schema.Block{pblock(p3, false, 0, 1), pblock(p1, false, 0, 2), pblock(p2, false, 0, 3)},
				ToolCalls: []schema.ToolCall{{Key: m1, Tool: "expense-review", ToolCallID: "call-1", Status: schema.ToolDone, Started: true, FirstSeq: 1}},
				Counters:  schema.Counters{Applied: 3}},
		},
		{
			name: "an envelope stream key equal to a member key is another call",
			in:   []envelope.Reading{run(m1, 7, call("local")), p1},
			want: schema.View{Task: "t1", Turn: "m1",
				Blocks: []schema.Block{eblock(run(m1, 7, call("local"))), pblock(p1, true, 7, 1)},
				ToolCalls: []schema.ToolCall{
					{Key: m1, Tool: "local", Status: schema.ToolRunning, Started: true, FirstSeq: 7},
					{Key: m1, Tool: "expense-review", ToolCallID: "call-1", Status: schema.ToolRunning, Started: true, FirstSeq: 1},
				},
				Counters: schema.Counters{Applied: 2}},
		},
		{
			name: "chunks, an empty key and bad placement are invalid",
			in: []envelope.Reading{
				proj(m1, 4, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "x", Chunk: "y"}),
				proj("", 4, envelope.StatusRunning, pcall("x", "")),
			},
			results: []Effect{Invalid, Invalid},
			want:    schema.View{Task: "t1", Turn: "m1", Counters: schema.Counters{Invalid: 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn("t1", "m1", Caps{})
			got := results(turn, tt.in)
			if tt.results != nil {
				if diff := cmp.Diff(tt.results, got); diff != "" {
					t.Errorf("results (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.want, turn.View()); diff != "" {
				t.Errorf("view (-want +got):\n%s", diff)
			}
		})
	}
}

// The honest property of projections: adding them to a turn, anywhere and
// in any order, leaves everything the envelopes make — their blocks' order,
// gaps, lateness, their tool calls — exactly as without them; and a
// Receiver fed the ops in any order, through JSON, rebuilds the view.
func TestPropertyProjectionsLeaveEnvelopesAlone(t *testing.T) {
	for seed := uint64(1); seed <= propertyTrajectories*2/5; seed++ { // 200; 40 under -race
		rng := rand.New(rand.NewPCG(seed, 0xb10c))
		traj, caps := genTrajectory(rng)
		caps.MaxOutputBytes = 0 // the output cap is not under test here
		var projs []envelope.Reading
		for m := range 1 + rng.IntN(3) {
			key := fmt.Sprintf("ri:b%d:call-%d", seed, m)
			n := 1 + rng.IntN(4)
			for s := 1; s <= n; s++ {
				st, p := envelope.StatusRunning, envelope.Payload(pcall("remote", key))
				switch {
				case s == n && rng.IntN(2) == 0:
					st = envelope.StatusDone
				case s == n:
					st, p = envelope.StatusAborted, errp("FAILED")
				case rng.IntN(3) == 0:
					p = text("awaiting input")
				}
				projs = append(projs, proj(key, int64(s), st, p))
			}
		}
		rng.Shuffle(len(projs), func(i, j int) { projs[i], projs[j] = projs[j], projs[i] })
		mixed := slices.Clone(traj)
		for _, p := range projs {
			at := rng.IntN(len(mixed) + 1)
			mixed = slices.Insert(mixed, at, p)
		}

		alone, with := NewTurn("t1", "m1", caps), NewTurn("t1", "m1", caps)
		for _, r := range traj {
			alone.Apply(r)
		}
		var ops []schema.Op
		for _, r := range mixed {
			if ch := with.Apply(r); ch.Effect == Applied {
				ops = append(ops, ch.Op)
			}
		}
		va, vw := alone.View(), with.View()
		if diff := cmp.Diff(withoutProjections(va), withoutProjections(vw)); diff != "" {
			t.Fatalf("seed %d: projections changed the envelopes' view (-alone +with):\n%s", seed, diff)
		}
		if got, want := vw.Counters.Applied, va.Counters.Applied+int64(len(projs)); got != want {
			t.Fatalf("seed %d: applied %d, want %d", seed, got, want)
		}

		rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		recv := NewReceiver("t1", caps)
		for _, op := range ops {
			b, err := json.Marshal(op)
			if err != nil {
				t.Fatal(err)
			}
			var back schema.Op
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("seed %d: %s: %v", seed, b, err)
			}
			recv.Apply(back)
		}
		if diff := cmp.Diff(transportFree(vw), transportFree(recv.View())); diff != "" {
			t.Fatalf("seed %d: receiver view (-turn +receiver):\n%s", seed, diff)
		}
	}
}

// withoutProjections keeps what envelopes and fallbacks make of a view;
// fallback placement is compared by position, not by ordinal, which counts
// projections too.
func withoutProjections(v schema.View) schema.View {
	out := schema.View{Task: v.Task, Sealed: v.Sealed, Counters: v.Counters}
	out.Counters.Applied = 0
	for _, b := range v.Blocks {
		if b.Source != schema.SourceProjection {
			b.Ordinal = 0
			out.Blocks = append(out.Blocks, b)
		}
	}
	for _, tc := range v.ToolCalls {
		if !isMemberKey(tc) {
			out.ToolCalls = append(out.ToolCalls, tc)
		}
	}
	return out
}

func isMemberKey(tc schema.ToolCall) bool {
	return len(tc.Key) > 3 && tc.Key[:3] == "ri:" && tc.Tool == "remote"
}
