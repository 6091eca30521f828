package merge

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// under is r nested under the call parent (PROTOCOL.md §10).
func under(parent string, r envelope.Reading) envelope.Reading {
	r.Envelope.Parent = parent
	return r
}

// depths maps each call of v to its Parent and Depth.
func depths(v schema.View) map[string][2]string {
	m := make(map[string][2]string)
	for _, c := range v.ToolCalls {
		m[c.Key] = [2]string{c.Parent, strconv.Itoa(c.Depth)}
	}
	return m
}

func TestNestDepth(t *testing.T) {
	deep := []envelope.Reading{run("k0", 1, call("t"))}
	for i := 1; i <= MaxDepth+1; i++ {
		deep = append(deep, under("k"+strconv.Itoa(i-1), run("k"+strconv.Itoa(i), int64(i+1), call("t"))))
	}
	deepWant := map[string][2]string{"k0": {"", "0"}}
	for i := 1; i <= MaxDepth+1; i++ {
		d := strconv.Itoa(i)
		if i > MaxDepth {
			d = "0" // its chain is longer than MaxDepth: top level
		}
		deepWant["k"+strconv.Itoa(i)] = [2]string{"k" + strconv.Itoa(i-1), d}
	}
	tests := []struct {
		name string
		in   []envelope.Reading
		want map[string][2]string
	}{
		{
			name: "a chain A→B→C: C's call under B's call",
			in: []envelope.Reading{
				run("ask", 1, call("ask_colleague")),
				under("ask", run("", 2, text("B thinks"))),
				under("ask", run("fw:ask:c1", 3, call("search"))),
				under("ask", run("fw:ask:c1", 4, chunk("search", "hit\n"))),
				under("fw:ask:c1", run("fw:ask:c1/x", 5, call("grep"))),
				under("ask", env("fw:ask:c1", 6, done, call("search"))),
				env("ask", 7, done, call("ask_colleague")),
			},
			want: map[string][2]string{"ask": {"", "0"}, "fw:ask:c1": {"ask", "1"}, "fw:ask:c1/x": {"fw:ask:c1", "2"}},
		},
		{
			name: "the child before its parent: the same tree",
			in: []envelope.Reading{
				under("fw:ask:c1", run("fw:ask:c1/x", 5, call("grep"))),
				under("ask", run("fw:ask:c1", 3, call("search"))),
				run("ask", 1, call("ask_colleague")),
			},
			want: map[string][2]string{"ask": {"", "0"}, "fw:ask:c1": {"ask", "1"}, "fw:ask:c1/x": {"fw:ask:c1", "2"}},
		},
		{
			name: "a parent that is no call: top level",
			in:   []envelope.Reading{under("gone", run("c1", 1, call("t")))},
			want: map[string][2]string{"c1": {"gone", "0"}},
		},
		{
			name: "a loop: both at the top level",
			in: []envelope.Reading{
				under("b", run("a", 1, call("t"))),
				under("a", run("b", 2, call("t"))),
			},
			want: map[string][2]string{"a": {"b", "0"}, "b": {"a", "0"}},
		},
		{
			name: "the parent comes from the block that names the call",
			in: []envelope.Reading{
				under("p2", run("c1", 3, chunk("t", "x"))),
				under("p1", run("c1", 2, call("t"))),
				run("p1", 1, call("t")),
				under("p1", run("p2", 4, call("t"))),
			},
			want: map[string][2]string{"c1": {"p1", "1"}, "p1": {"", "0"}, "p2": {"p1", "1"}},
		},
		{name: "deeper than MaxDepth", in: deep, want: deepWant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn("t1", "m1", Caps{})
			var ops []schema.Op
			for _, r := range tt.in {
				ch := turn.Apply(r)
				if ch.Effect != Applied {
					t.Fatalf("Apply: %v", ch.Effect)
				}
				ops = append(ops, ch.Op)
			}
			v := turn.View()
			if d := cmp.Diff(tt.want, depths(v)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			// Any order, through JSON, in a Receiver: the same view.
			rng := rand.New(rand.NewPCG(1, 2))
			for range 20 {
				rx := NewReceiver("t1", Caps{})
				for _, i := range rng.Perm(len(ops)) {
					b, err := json.Marshal(ops[i])
					if err != nil {
						t.Fatal(err)
					}
					var op schema.Op
					if err := json.Unmarshal(b, &op); err != nil {
						t.Fatal(err)
					}
					rx.Apply(op)
				}
				// Late is the receiver's own observation of the arrival order.
				if d := cmp.Diff(v, rx.View(), cmpopts.IgnoreFields(schema.Counters{}, "Late")); d != "" {
					t.Fatalf("Receiver view (-turn +receiver):\n%s", d)
				}
			}
		})
	}
}

// A block's parent is content: the same identity with another parent is a
// conflict, and the first arrival stays.
func TestNestParentIsContent(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{})
	turn.Apply(under("ask", run("c1", 1, call("t"))))
	if got := turn.Apply(under("ask", run("c1", 1, call("t")))).Effect; got != Duplicate {
		t.Errorf("same parent: %v, want Duplicate", got)
	}
	if got := turn.Apply(under("other", run("c1", 1, call("t")))).Effect; got != Conflict {
		t.Errorf("other parent: %v, want Conflict", got)
	}
	if got := turn.Apply(run("c1", 1, call("t"))).Effect; got != Conflict {
		t.Errorf("no parent: %v, want Conflict", got)
	}
	if got := turn.View().Blocks[0].Parent; got != "ask" {
		t.Errorf("Parent = %q, want ask", got)
	}
}

// The caps cover the whole tree: a parent is an identifier (envelope.MaxIdentBytes),
// and forwarded blocks count against the turn's blocks.
func TestNestCaps(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{MaxBlocks: 2})
	long := strings.Repeat("p", envelope.MaxIdentBytes+1)
	if got := turn.Apply(under(long, run("", 1, text("x")))).Effect; got != DroppedCap {
		t.Errorf("parent over envelope.MaxIdentBytes: %v, want DroppedCap", got)
	}
	turn.Apply(run("ask", 2, call("ask_colleague")))
	turn.Apply(under("ask", run("", 3, text("sub"))))
	if got := turn.Apply(under("ask", run("", 4, text("more")))).Effect; got != DroppedCap {
		t.Errorf("past MaxBlocks: %v, want DroppedCap", got)
	}
}

func TestNestOpJSON(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{})
	op := turn.Apply(under("ask", run("", 2, text("sub")))).Op
	b, err := json.Marshal(op)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":2,"id":"","kind":"text","status":"running","payload":{"text":"sub"},"source":"envelope","parent":"ask"}`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, tc := range []struct{ name, in string }{
		{"parent on a fallback", `{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":0,"id":"msg:1","kind":"text","status":"running","payload":{"text":"x"},"source":"fallback","reason":"no_envelope","ordinal":1,"parent":"ask"}`},
		{"parent is its own call", `{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":1,"id":"","kind":"tool_call","status":"running","payload":{"tool":"t"},"source":"envelope","parent":"c1"}`},
		{"parent not a string", `{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":1,"id":"","kind":"text","status":"running","payload":{"text":"x"},"source":"envelope","parent":1}`},
	} {
		var op schema.Op
		if err := json.Unmarshal([]byte(tc.in), &op); !errors.Is(err, schema.ErrBadOp) {
			t.Errorf("%s: %v, want ErrBadOp", tc.name, err)
		}
	}
}

// The same mix as ApplyInOrder, every block forwarded: keys in a call's
// namespace and a parent on each (PROTOCOL.md §10). Beside ApplyInOrder
// it gives what nesting costs per event.
func BenchmarkApplyNested(b *testing.B) {
	rs := benchTrajectory(DefaultMaxBlocks)
	for i := range rs {
		e := &rs[i].Envelope
		e.Parent = "ask"
		if e.StreamKey != "" {
			e.StreamKey = envelope.ForwardKey("ask", e.StreamKey)
		}
	}
	benchApply(b, rs)
}

// View of a full nested turn: the depth of every call is computed.
func BenchmarkViewNested(b *testing.B) {
	turn := NewTurn("t1", "m1", Caps{})
	turn.Apply(run("ask", 1, call("ask_colleague")))
	for i, r := range benchTrajectory(DefaultMaxBlocks - 1) {
		r.Envelope.Seq = int64(i) + 2
		r.Envelope.Parent = "ask"
		if r.Envelope.StreamKey != "" {
			r.Envelope.StreamKey = envelope.ForwardKey("ask", r.Envelope.StreamKey)
		}
		turn.Apply(r)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = turn.View()
	}
}
