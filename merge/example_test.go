package merge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

func reading(streamKey string, seq int64, status envelope.Status, p envelope.Payload) envelope.Reading {
	return envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: p.Kind(), StreamKey: streamKey, Seq: seq,
		Status: status, Payload: p}}
}

// A turn takes envelopes in any order and any number of times; the view is
// ordered by seq, the tool call's output assembled from its chunks.
func ExampleTurn() {
	t := merge.NewTurn("task-1", "", merge.Caps{})
	for _, r := range []envelope.Reading{
		reading("call-1", 10, envelope.StatusRunning, envelope.ToolCall{Tool: "grep"}),
		reading("call-1", 12, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "b.go:7\n"}),
		reading("call-1", 11, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "a.go:3\n"}),
		reading("call-1", 11, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "a.go:3\n"}),
		reading("call-1", 13, envelope.StatusDone, envelope.Text{Text: "grep finished"}),
	} {
		ch := t.Apply(r)
		fmt.Println(r.Envelope.Seq, ch.Effect, "late:", ch.Late)
	}
	v := t.View()
	tc := v.ToolCalls[0]
	fmt.Printf("%s %s %q\n", tc.Tool, tc.Status, tc.Output)
	fmt.Println("applied", v.Counters.Applied, "duplicates", v.Counters.Duplicates, "late", v.Counters.Late)
	// Output:
	// 10 applied late: false
	// 12 applied late: false
	// 11 applied late: true
	// 11 duplicate late: false
	// 13 applied late: false
	// grep done "a.go:3\nb.go:7\n"
	// applied 4 duplicates 1 late 1
}

// Missing seqs between two chunks show as a gap marker; sealing the turn
// marks a call that never finished.
func ExampleTurn_Seal() {
	t := merge.NewTurn("task-1", "", merge.Caps{})
	t.Apply(reading("call-1", 1, envelope.StatusRunning, envelope.ToolCall{Tool: "tail"}))
	t.Apply(reading("call-1", 2, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "tail", Chunk: "line 1\n"}))
	t.Apply(reading("call-1", 5, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "tail", Chunk: "line 4\n"}))
	t.Seal()
	ch := t.Apply(reading("call-1", 6, envelope.StatusDone, envelope.ToolCall{Tool: "tail"}))
	tc := t.View().ToolCalls[0]
	fmt.Println(ch.Effect, tc.Status, tc.Gaps)
	fmt.Print(tc.Output)
	// Output:
	// dropped_sealed unfinished 1
	// line 1
	// [gap: 2 seqs missing]
	// line 4
}

// Ops carry each change to a front end as NDJSON; a Receiver applying them
// in any order ends with the turn's view.
func ExampleReceiver() {
	t := merge.NewTurn("task-1", "msg-1", merge.Caps{})
	at := time.Date(2026, 12, 1, 10, 0, 0, 250_000_000, time.UTC)
	var ops []schema.Op
	for i, r := range []envelope.Reading{
		reading("call-1", 41, envelope.StatusRunning, envelope.ToolCall{Tool: "search"}),
		{Fallback: true, Reason: envelope.ReasonNoEnvelope, ID: "msg:m7", Part: -1,
			Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, Status: envelope.StatusRunning,
				Payload: envelope.Text{Text: "still searching"}}},
		reading("", 42, envelope.StatusRunning, envelope.Thinking{Text: "found it"}),
	} {
		if ch := t.ApplyAt(r, at.Add(time.Duration(i)*time.Second)); ch.Effect == merge.Applied {
			ops = append(ops, ch.Op)
		}
	}
	ops = append(ops, t.Seal())

	enc := json.NewEncoder(os.Stdout)
	rcv := merge.NewReceiver("task-1", merge.Caps{})
	for i := len(ops) - 1; i >= 0; i-- { // the reverse order, for the sake of it
		enc.Encode(ops[i])
		rcv.Apply(ops[i])
	}
	for _, b := range rcv.View().Blocks {
		fmt.Printf("%s %s seq=%d id=%q\n", b.Source, b.Kind, b.Key.Seq, b.Key.ID)
	}
	// Output:
	// {"type":"seal","task":"task-1","turn":"msg-1"}
	// {"type":"block","task":"task-1","turn":"msg-1","streamKey":"","seq":42,"id":"","kind":"thinking","status":"running","payload":{"text":"found it"},"source":"envelope","at":"2026-12-01T10:00:02.250000000Z"}
	// {"type":"block","task":"task-1","turn":"msg-1","streamKey":"","seq":0,"id":"msg:m7","kind":"text","status":"running","payload":{"text":"still searching"},"source":"fallback","reason":"no_envelope","after":41,"ordinal":1,"at":"2026-12-01T10:00:01.250000000Z"}
	// {"type":"block","task":"task-1","turn":"msg-1","streamKey":"call-1","seq":41,"id":"","kind":"tool_call","status":"running","payload":{"tool":"search"},"source":"envelope","at":"2026-12-01T10:00:00.250000000Z"}
	// envelope tool_call seq=41 id=""
	// fallback text seq=0 id="msg:m7"
	// envelope thinking seq=42 id=""
}

// A task whose turn ended on a question goes on in a new turn when the
// caller answers; its seqs may start again. The Receiver keeps one view per
// turn, so nothing of turn 2 is a duplicate of turn 1; View is the latest.
func ExampleReceiver_turns() {
	rcv := merge.NewReceiver("task-1", merge.Caps{})
	for _, turn := range []string{"msg-1", "msg-2"} {
		t := merge.NewTurn("task-1", turn, merge.Caps{})
		ops := []schema.Op{
			t.Apply(reading("", 1, envelope.StatusRunning, envelope.Text{Text: "working on " + turn})).Op,
			t.Seal(),
		}
		verdict := schema.Result{State: "TASK_STATE_INPUT_REQUIRED", Verdict: schema.VerdictInputRequired,
			Interrupt: &schema.Interrupt{Question: "Approve?"}}
		if turn == "msg-2" {
			verdict = schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "approved"}
		}
		ops = append(ops, t.ResultOp(verdict))
		for _, op := range ops {
			fmt.Println(turn, op.Type, rcv.Apply(op))
		}
	}
	v, _ := rcv.TurnView("msg-1")
	fmt.Println(rcv.Turns(), v.Blocks[0].Payload, rcv.View().Blocks[0].Payload, rcv.Result().Reply)
	// Output:
	// msg-1 block applied
	// msg-1 seal applied
	// msg-1 result applied
	// msg-2 block applied
	// msg-2 seal applied
	// msg-2 result applied
	// [msg-1 msg-2] {working on msg-1} {working on msg-2} approved
}

// A relay keeps a Receiver per task and brings a late subscriber up to
// date with a snapshot of each turn, before it forwards live ops; the
// subscriber ends with the same view, whatever the order.
func ExampleReceiver_Ops() {
	t := merge.NewTurn("task-1", "msg-1", merge.Caps{})
	relay := merge.NewReceiver("task-1", merge.Caps{})
	for _, r := range []envelope.Reading{
		reading("call-1", 1, envelope.StatusRunning, envelope.ToolCall{Tool: "grep"}),
		reading("call-1", 2, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "grep", Chunk: "a.go:3\n"}),
	} {
		relay.Apply(t.Apply(r).Op)
	}

	late := merge.NewReceiver("task-1", merge.Caps{}) // a page that connects now
	for _, turn := range relay.Turns() {
		for _, op := range relay.Ops(turn) {
			late.Apply(op)
		}
	}
	live := t.Apply(reading("call-1", 3, envelope.StatusDone, envelope.ToolCall{Tool: "grep"})).Op
	relay.Apply(live)
	late.Apply(live)

	v := late.View()
	fmt.Println(v.Turn, v.ToolCalls[0].Tool, v.ToolCalls[0].Status, fmt.Sprintf("%q", v.ToolCalls[0].Output))
	// Output:
	// msg-1 grep done "a.go:3\n"
}

// A caller that reports what a peer got wrong switches on the Effect of
// each apply: a block replayed with other content, a block no envelope
// could produce, a block after the turn was sealed.
func ExampleEffect() {
	t := merge.NewTurn("task-1", "", merge.Caps{})
	bogus := reading("s", 2, envelope.StatusRunning, envelope.Text{Text: "c"})
	bogus.Envelope.Kind = "bogus"
	for _, r := range []envelope.Reading{
		reading("s", 1, envelope.StatusRunning, envelope.Text{Text: "a"}),
		reading("s", 1, envelope.StatusRunning, envelope.Text{Text: "b"}),
		bogus,
	} {
		switch ch := t.Apply(r); ch.Effect {
		case merge.Conflict:
			fmt.Println(r.Envelope.Seq, "conflict: same block, other content; the first one stays")
		case merge.Invalid:
			fmt.Println(r.Envelope.Seq, "invalid: not a block an envelope makes")
		default:
			fmt.Println(r.Envelope.Seq, ch.Effect)
		}
	}
	t.Seal()
	if ch := t.Apply(reading("s", 3, envelope.StatusDone, envelope.Text{Text: "d"})); ch.Effect == merge.DroppedSealed {
		fmt.Println(3, "dropped: the turn is sealed")
	}
	fmt.Println(t.View().Counters.Conflicts, t.View().Counters.Invalid, t.View().Counters.DroppedAfterSeal)
	// Output:
	// 1 applied
	// 1 conflict: same block, other content; the first one stays
	// 2 invalid: not a block an envelope makes
	// 3 dropped: the turn is sealed
	// 1 1 1
}
