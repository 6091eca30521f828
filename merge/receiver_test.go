package merge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

func TestReceiver(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{})
	a := turn.Apply(run("c1", 1, call("grep"))).Op
	b := turn.Apply(fallback("msg:1", "x", envelope.ReasonNoEnvelope)).Op
	seal := turn.Seal()
	badFallback := b
	badFallback.Block.Ordinal = 0
	badBlock := a
	badBlock.Block.Kind = envelope.KindText
	placedEnvelope := a
	placedEnvelope.Block.Ordinal = 3

	tests := []struct {
		name string
		ops  []schema.Op
		want schema.View
	}{
		{
			name: "a block after the seal is still applied",
			ops:  []schema.Op{seal, b, a, a},
			want: schema.View{Task: "t1", Turn: "m1", Sealed: true, Blocks: []schema.Block{a.Block, b.Block},
				ToolCalls: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolUnfinished, Started: true, FirstSeq: 1}},
				Counters:  schema.Counters{Applied: 2, Duplicates: 1, Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 1}}},
		},
		{
			name: "ops of another task, unknown types and bad blocks are counted, not applied",
			ops:  []schema.Op{{Type: schema.OpSeal, Task: "t2"}, {Type: "rewind", Task: "t1"}, badFallback, badBlock, placedEnvelope},
			want: schema.View{Task: "t1", Counters: schema.Counters{Invalid: 5}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReceiver("t1", Caps{})
			for _, op := range tt.ops {
				r.Apply(op)
			}
			if d := cmp.Diff(tt.want, r.View()); d != "" {
				t.Errorf("View (-want +got):\n%s", d)
			}
		})
	}
}

// An interrupt answered on the same task opens a second turn whose seqs
// start again: a receiver keeps it apart, so nothing of turn 2 is a
// duplicate or a conflict of turn 1.
func TestReceiverTwoTurnsSeqsRestart(t *testing.T) {
	t1 := NewTurn("t1", "m1", Caps{})
	t2 := NewTurn("t1", "m2", Caps{})
	var ops []schema.Op
	for _, r := range []envelope.Reading{run("c1", 1, call("grep")), env("c1", 2, envelope.StatusDone, chunk("grep", "a\n"))} {
		ops = append(ops, t1.Apply(r).Op)
	}
	ops = append(ops, t1.Seal(), t1.ResultOp(schema.Result{State: "TASK_STATE_INPUT_REQUIRED", Verdict: schema.VerdictInputRequired,
		Interrupt: &schema.Interrupt{Question: "go on?"}}))
	// The same seqs and stream key, other content.
	for _, r := range []envelope.Reading{run("c1", 1, call("sed")), run("c1", 2, chunk("sed", "b\n"))} {
		ops = append(ops, t2.Apply(r).Op)
	}
	ops = append(ops, t2.Seal(), t2.ResultOp(schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "ok"}))

	r := NewReceiver("t1", Caps{})
	var got []Effect
	for _, op := range ops {
		got = append(got, r.Apply(op))
	}
	if d := cmp.Diff([]Effect{Applied, Applied, Applied, Applied, Applied, Applied, Applied, Applied}, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"m1", "m2"}, r.Turns()); d != "" {
		t.Errorf("Turns (-want +got):\n%s", d)
	}
	v1, ok := r.TurnView("m1")
	if !ok {
		t.Fatal("TurnView(m1): not kept")
	}
	want1 := schema.View{Task: "t1", Turn: "m1", Sealed: true,
		Blocks:    []schema.Block{{Key: schema.Key{StreamKey: "c1", Seq: 1}, Kind: envelope.KindToolCall, Status: envelope.StatusRunning, Payload: call("grep"), Source: schema.SourceEnvelope}},
		ToolCalls: []schema.ToolCall{{Key: "c1", Tool: "grep", Status: schema.ToolDone, Started: true, FirstSeq: 1, Output: "a\n", Chunks: 1, Bytes: 2}},
		Counters:  schema.Counters{Applied: 2}}
	if d := cmp.Diff(want1, v1); d != "" {
		t.Errorf("TurnView(m1) (-want +got):\n%s", d)
	}
	want2 := schema.View{Task: "t1", Turn: "m2", Sealed: true,
		Blocks:    []schema.Block{{Key: schema.Key{StreamKey: "c1", Seq: 1}, Kind: envelope.KindToolCall, Status: envelope.StatusRunning, Payload: call("sed"), Source: schema.SourceEnvelope}},
		ToolCalls: []schema.ToolCall{{Key: "c1", Tool: "sed", Status: schema.ToolUnfinished, Started: true, FirstSeq: 1, Output: "b\n", Chunks: 1, Bytes: 2}},
		Counters:  schema.Counters{Applied: 2}}
	if d := cmp.Diff(want2, r.View()); d != "" {
		t.Errorf("View, the latest turn (-want +got):\n%s", d)
	}
	if d := cmp.Diff(&schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "ok", Counters: schema.Counters{Applied: 2}}, r.Result()); d != "" {
		t.Errorf("Result (-want +got):\n%s", d)
	}
	// A straggler of turn 1 goes to turn 1, and the latest stays turn 2.
	straggler := NewTurn("t1", "m1", Caps{}).Apply(run("c1", 3, text("late"))).Op
	if res := r.Apply(straggler); res != Applied {
		t.Errorf("straggler: %v, want applied", res)
	}
	if got := r.View().Turn; got != "m2" {
		t.Errorf("View().Turn after a straggler of m1 = %q, want m2", got)
	}
}

func TestReceiverApplyResults(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{})
	a := turn.Apply(run("c1", 1, call("grep"))).Op
	conflict := a
	conflict.Block.Payload = call("sed")
	seal := turn.Seal()
	done := turn.ResultOp(schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "yes"})
	other := turn.ResultOp(schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "no"})
	badResult := turn.ResultOp(schema.Result{State: "TASK_STATE_WORKING", Verdict: schema.VerdictCompleted})
	noTurn := a
	noTurn.Turn = ""
	longTurn := a
	longTurn.Turn = strings.Repeat("m", envelope.MaxIdentBytes+1)
	nilResult := schema.Op{Type: schema.OpResult, Task: "t1", Turn: "m1"}

	r := NewReceiver("t1", Caps{})
	var got []Effect
	for _, op := range []schema.Op{a, a, conflict, seal, seal, done, done, other, badResult, noTurn, nilResult, longTurn} {
		got = append(got, r.Apply(op))
	}
	want := []Effect{Applied, Duplicate, Conflict, Applied, Duplicate, Applied, Duplicate, Conflict, Invalid, Invalid, Invalid, Invalid}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	if d := cmp.Diff("yes", r.Result().Reply); d != "" {
		t.Errorf("the first result stands (-want +got):\n%s", d)
	}
	if got := r.View().Counters; got.Duplicates != 1 || got.Conflicts != 1 || got.Invalid != 4 {
		t.Errorf("counters = %+v, want 1 duplicate, 1 conflict (blocks only), 4 invalid", got)
	}
}

func TestReceiverTurnCap(t *testing.T) {
	r := NewReceiver("t1", Caps{})
	for i := range MaxReceiverTurns + 1 {
		turn := NewTurn("t1", fmt.Sprintf("m%02d", i), Caps{})
		if res := r.Apply(turn.Apply(run("", 1, text("hi"))).Op); res != Applied {
			t.Fatalf("turn %d: %v", i, res)
		}
	}
	var want []string
	for i := 1; i <= MaxReceiverTurns; i++ {
		want = append(want, fmt.Sprintf("m%02d", i))
	}
	if d := cmp.Diff(want, r.Turns()); d != "" {
		t.Errorf("Turns (-want +got):\n%s", d)
	}
	// The evicted turn is not opened again as the latest.
	late := NewTurn("t1", "m00", Caps{}).Apply(run("", 2, text("late"))).Op
	if res := r.Apply(late); res != DroppedCap {
		t.Errorf("op of an evicted turn: %v, want dropped_cap", res)
	}
	if r.Refused() != 1 || r.View().Turn != want[len(want)-1] {
		t.Errorf("Refused = %d, View().Turn = %q; want 1 and %q", r.Refused(), r.View().Turn, want[len(want)-1])
	}
	if _, ok := r.TurnView("m00"); ok || r.Ops("m00") != nil {
		t.Error("the evicted turn is still reported")
	}
}

// A block's at is informational: a later copy with another at is a
// duplicate, and the first arrival's at stays — in the Turn and in the
// Receiver.
func TestAtFirstArrivalStays(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{})
	first := turn.ApplyAt(run("c1", 1, call("grep")), at0)
	again := turn.ApplyAt(run("c1", 1, call("grep")), at0.Add(time.Hour))
	if first.Effect != Applied || again.Effect != Duplicate {
		t.Fatalf("results %v, %v; want applied, duplicate", first.Effect, again.Effect)
	}
	if d := cmp.Diff(at0, turn.View().Blocks[0].At); d != "" {
		t.Errorf("Turn: at (-want +got):\n%s", d)
	}
	r := NewReceiver("t1", Caps{})
	later := first.Op
	later.At = at0.Add(time.Hour)
	got := []Effect{r.Apply(first.Op), r.Apply(later)}
	if d := cmp.Diff([]Effect{Applied, Duplicate}, got); d != "" {
		t.Errorf("Receiver: results (-want +got):\n%s", d)
	}
	if d := cmp.Diff(at0, r.View().Blocks[0].At); d != "" {
		t.Errorf("Receiver: at (-want +got):\n%s", d)
	}
}

// Ops is a snapshot that rebuilds a turn: every block in view order with
// its placement and at, then the seal, then the result.
func TestReceiverOps(t *testing.T) {
	turn := NewTurn("t1", "m1", Caps{})
	var ops []schema.Op
	for i, r := range []envelope.Reading{
		run("c1", 5, chunk("grep", "b\n")),
		fallback("msg:1", "hm", envelope.ReasonNoEnvelope),
		run("c1", 3, call("grep")),
		run("c1", 4, chunk("grep", "a\n")),
	} {
		ops = append(ops, turn.ApplyAt(r, at0.Add(time.Duration(i)*time.Second)).Op)
	}
	ops = append(ops, turn.Seal(), turn.ResultOp(schema.Result{State: "TASK_STATE_FAILED", Verdict: schema.VerdictFailed, Error: "quota"}))
	r := NewReceiver("t1", Caps{})
	for i := len(ops) - 1; i >= 0; i-- {
		r.Apply(ops[i])
	}
	want := []schema.Op{ops[2], ops[3], ops[0], ops[1], ops[4], ops[5]}
	if d := cmp.Diff(want, r.Ops("m1")); d != "" {
		t.Errorf("Ops (-want +got):\n%s", d)
	}
	rebuilt := NewReceiver("t1", Caps{})
	for _, op := range r.Ops("m1") {
		rebuilt.Apply(op)
	}
	if d := cmp.Diff(transportFree(turn.View()), transportFree(rebuilt.View())); d != "" {
		t.Errorf("rebuilt view (-turn +rebuilt):\n%s", d)
	}
	if r.Ops("m9") != nil {
		t.Error("Ops of an unknown turn is not nil")
	}
}

// A snapshot gives a chunk whose text the output cap dropped as a stub —
// no text, its size in truncated — so a receiver rebuilds the call exactly:
// its name, status, bytes, truncation and gaps. A stub and the full chunk
// are the same block.
func TestReceiverOpsStubs(t *testing.T) {
	caps := Caps{MaxOutputBytes: 4}
	turn := NewTurn("t1", "m1", caps)
	var ops []schema.Op
	for _, r := range []envelope.Reading{
		run("", 1, chunk("first-name", "aaaa")), // names the call, then is evicted
		env("", 2, envelope.StatusDone, chunk("grep", "bbbb")),
		run("", 4, chunk("grep", "cc")),
		run("", 5, chunk("grep", "dd")),
	} {
		ops = append(ops, turn.Apply(r).Op)
	}
	src := NewReceiver("t1", caps)
	for _, op := range ops {
		src.Apply(op)
	}
	snap := src.Ops("m1")
	stub := func(seq int64, status envelope.Status, tool string, n int64) schema.Op {
		return schema.Op{Type: schema.OpBlock, Task: "t1", Turn: "m1", Block: schema.Block{Key: schema.Key{Seq: seq}, Kind: envelope.KindToolOutputAppend,
			Status: status, Payload: chunk(tool, ""), Source: schema.SourceEnvelope, Truncated: n}}
	}
	want := []schema.Op{stub(1, envelope.StatusRunning, "first-name", 4), stub(2, envelope.StatusDone, "grep", 4), ops[2], ops[3]}
	if d := cmp.Diff(want, snap); d != "" {
		t.Fatalf("Ops (-want +got):\n%s", d)
	}
	for _, op := range snap {
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		var back schema.Op
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if d := cmp.Diff(op, back); d != "" {
			t.Errorf("JSON round trip (-want +got):\n%s", d)
		}
	}
	rebuilt := NewReceiver("t1", caps)
	for i := len(snap) - 1; i >= 0; i-- {
		rebuilt.Apply(snap[i])
	}
	wantCall := []schema.ToolCall{{Key: "", Tool: "first-name", Status: schema.ToolDone, FirstSeq: 1, Output: "ccdd",
		Truncated: 8, Chunks: 4, Bytes: 12}}
	if d := cmp.Diff(wantCall, rebuilt.View().ToolCalls); d != "" {
		t.Errorf("rebuilt call (-want +got):\n%s", d)
	}
	if d := cmp.Diff(transportFree(turn.View()), transportFree(rebuilt.View())); d != "" {
		t.Errorf("rebuilt view (-turn +rebuilt):\n%s", d)
	}
	// The full chunk after its stub, and the stub after the full chunk
	// (retained or evicted): duplicates.
	got := []Effect{rebuilt.Apply(ops[0]), src.Apply(snap[0]), rebuilt.Apply(snap[3])}
	if d := cmp.Diff([]Effect{Duplicate, Duplicate, Duplicate}, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	// A stub of another size, or with text, is not the block.
	other := snap[0]
	other.Block.Truncated = 3
	withText := snap[0]
	withText.Block.Payload = chunk("first-name", "a")
	if got := []Effect{rebuilt.Apply(other), rebuilt.Apply(withText)}; !cmp.Equal([]Effect{Conflict, Invalid}, got) {
		t.Errorf("results = %v, want conflict, invalid", got)
	}
}

// A new receiver's view writes [] for no blocks and no tool calls, never
// null (PROTOCOL.md §4.5).
func TestReceiverEmptyViewJSON(t *testing.T) {
	b, err := json.Marshal(NewReceiver("t1", Caps{}).View())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"task":"t1","turn":"","blocks":[],"toolCalls":[],"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0},"sealed":false}`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("view JSON (-want +got):\n%s", d)
	}
}
