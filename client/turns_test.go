package client

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// forwarded returns the ops a front end gets from r: what Update.Op hands.
func forwarded(r result) []schema.Op {
	var ops []schema.Op
	for _, u := range r.updates {
		if op, ok := u.Op(); ok {
			ops = append(ops, op)
		}
	}
	return ops
}

// sendAs sends text in a user message with the given id (and task, for an
// answer) and collects the turn.
func sendAs(t *testing.T, cl *Client, id string, task a2a.TaskID, text string) (*Stream, result) {
	t.Helper()
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	m.ID, m.TaskID = id, task
	st, err := cl.Send(testCtx(t), m)
	if err != nil {
		t.Fatal(err)
	}
	if st.Turn() != id {
		t.Errorf("Turn before the iteration = %q, want the message's id %q", st.Turn(), id)
	}
	return st, collect(t, st)
}

// receiverFree zeroes what a Receiver counts about the ops it got rather
// than about the turn.
func receiverFree(v schema.View) schema.View {
	v.Counters.Duplicates, v.Counters.Conflicts, v.Counters.Late, v.Counters.DroppedAfterSeal, v.Counters.DroppedByCap = 0, 0, 0, 0, 0
	return v
}

// An interrupt answered on the same task is a second turn whose seqs start
// again. Its ops name it — the answering message's id — so one Receiver
// fed both turns' ops, shuffled together, keeps two views equal to the
// streams' own, with nothing of turn 2 taken for a duplicate or a conflict
// of turn 1. A second process that follows the task names the turns alike.
func TestTwoTurnsOneReceiver(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(5, agenttest.Named("tt-ask"), agenttest.StartSeq(10), agenttest.EndIn(a2a.TaskStateInputRequired)))
	s.Register(agenttest.Trajectory(8, agenttest.Named("tt-answer"), agenttest.StartSeq(10), agenttest.PlainText(2)))
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			cl := newForced(t, s, c, fastRetry)
			id1, id2 := "ask-"+c.String(), "answer-"+c.String()
			st1, r1 := sendAs(t, cl, id1, "", "tt-ask")
			if r1.out.Interrupt == nil {
				t.Fatalf("turn 1: %s %v, want an interrupt", r1.out.State, r1.outErr)
			}
			task := st1.TaskID()
			_, r2 := sendAs(t, cl, id2, task, "tt-answer")
			if r2.outErr != nil {
				t.Fatalf("turn 2: %v", r2.outErr)
			}
			ops1, ops2 := forwarded(r1), forwarded(r2)
			checkTurnOps(t, ops1, string(task), id1, schema.VerdictInputRequired)
			checkTurnOps(t, ops2, string(task), id2, schema.VerdictCompleted)
			if !sharesKey(ops1, ops2) {
				t.Fatal("the turns share no (streamKey, seq): the test does not restart seqs")
			}

			all := append(append([]schema.Op(nil), ops1...), ops2...)
			rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			rcv := merge.NewReceiver(string(task), merge.DefaultCaps())
			for _, op := range all {
				if res := rcv.Apply(op); res != merge.Applied {
					t.Errorf("op %s of turn %s: %v, want applied", op.Type, op.Turn, res)
				}
			}
			if d := cmp.Diff([]string{id1, id2}, sortedTurns(rcv, id1)); d != "" {
				t.Errorf("receiver turns (-want +got):\n%s", d)
			}
			for _, tc := range []struct {
				id   string
				want schema.View
			}{{id1, r1.view}, {id2, r2.view}} {
				got, ok := rcv.TurnView(tc.id)
				if !ok {
					t.Fatalf("TurnView(%s): not kept", tc.id)
				}
				if d := cmp.Diff(receiverFree(tc.want), receiverFree(got)); d != "" {
					t.Errorf("turn %s: receiver view (-stream +receiver):\n%s", tc.id, d)
				}
				if got.Counters.Duplicates != 0 || got.Counters.Conflicts != 0 {
					t.Errorf("turn %s: %d duplicates, %d conflicts; want none", tc.id, got.Counters.Duplicates, got.Counters.Conflicts)
				}
			}

			// Another process follows the settled task: GetTask's history
			// names the current turn by its opening message, like ours.
			other := newForced(t, s, c, fastRetry)
			for name, open := range map[string]func() (*Stream, error){
				"Follow": func() (*Stream, error) { return other.Follow(testCtx(t), task) },
				"Poll":   func() (*Stream, error) { return other.Poll(testCtx(t), task, time.Millisecond) },
			} {
				st, err := open()
				if err != nil {
					t.Fatal(err)
				}
				r := collect(t, st)
				if st.Turn() != id2 {
					t.Errorf("%s: Turn = %q, want %q", name, st.Turn(), id2)
				}
				checkTurnOps(t, forwarded(r), string(task), id2, schema.VerdictCompleted)
			}
		})
	}
}

// sortedTurns returns the receiver's turns with first (whose ops may have
// arrived second after the shuffle) first.
func sortedTurns(r *merge.Receiver, first string) []string {
	ts := r.Turns()
	if len(ts) == 2 && ts[1] == first {
		ts[0], ts[1] = ts[1], ts[0]
	}
	return ts
}

// checkTurnOps checks a turn's forwarded ops: every op names the task and
// the turn, every block has its at, and the last two are the seal and the
// result with the given verdict.
func checkTurnOps(t *testing.T, ops []schema.Op, task, turn string, verdict schema.Verdict) {
	t.Helper()
	if len(ops) < 3 {
		t.Fatalf("%d ops, want blocks, a seal and a result", len(ops))
	}
	for _, op := range ops {
		if op.Task != task || op.Turn != turn {
			t.Fatalf("op %s names task %q turn %q, want %q %q", op.Type, op.Task, op.Turn, task, turn)
		}
		if op.Type == schema.OpBlock && (op.At.IsZero() || !op.At.Equal(op.Block.At)) {
			t.Fatalf("block op %v: at %v (block %v), want a time", op.Block.Key, op.At, op.Block.At)
		}
	}
	seal, res := ops[len(ops)-2], ops[len(ops)-1]
	if seal.Type != schema.OpSeal || res.Type != schema.OpResult || res.Result.Verdict != verdict {
		t.Errorf("last ops %s, %s (%+v), want seal, result %s", seal.Type, res.Type, res.Result, verdict)
	}
}

func sharesKey(a, b []schema.Op) bool {
	keys := map[schema.Key]bool{}
	for _, op := range a {
		if op.Type == schema.OpBlock {
			keys[op.Block.Key] = true
		}
	}
	for _, op := range b {
		if op.Type == schema.OpBlock && keys[op.Block.Key] {
			return true
		}
	}
	return false
}

// A block op's at is its event's status timestamp when the event has one,
// else the time it arrived; the seal and the result ops carry none.
func TestBlockAt(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(6, agenttest.Named("at"), agenttest.PlainText(1)))
	cl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1}, WithEvents(true)) // the events' timestamps
	before := time.Now()
	st, _ := cl.SendText(testCtx(t), "at")
	r := collect(t, st)
	var stamped int
	for _, u := range r.updates {
		op, ok := u.Op()
		if !ok || op.Type != schema.OpBlock {
			if ok && !op.At.IsZero() {
				t.Errorf("%s op with at %v", op.Type, op.At)
			}
			continue
		}
		ev, _ := u.Event.(*a2a.TaskStatusUpdateEvent)
		switch {
		case ev != nil && ev.Status.Timestamp != nil:
			stamped++
			if !op.At.Equal(*ev.Status.Timestamp) || op.At.Location() != time.UTC {
				t.Errorf("block %v: at %v, want the status timestamp %v in UTC", op.Block.Key, op.At, *ev.Status.Timestamp)
			}
		case op.At.Before(before) || op.At.After(time.Now()):
			t.Errorf("block %v: at %v, want its arrival time", op.Block.Key, op.At)
		}
	}
	if stamped == 0 {
		t.Error("no status update carried a timestamp: the test checks nothing")
	}
}

// The turn of a followed, polled or replayed stream is read from its first
// Task snapshot: the last user message of the history. Without one — no
// Task first, no history, a history without a user message — it is
// "task:" + the task id (merge.NewTurn's default).
func TestTurnFromHistory(t *testing.T) {
	t.Parallel()
	user := func(id string) *a2a.Message {
		m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("q"))
		m.ID = id
		return m
	}
	agent := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("working"))
	completed := &a2a.TaskStatusUpdateEvent{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
	snapshot := func(history ...*a2a.Message) *a2a.Task {
		return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}, History: history}
	}
	tests := []struct {
		name   string
		events []a2a.Event
		want   string
	}{
		{"the last user message opened the turn", []a2a.Event{snapshot(user("u-1"), agent, user("u-2"), agent), completed}, "u-2"},
		{"no task snapshot first", []a2a.Event{completed}, "task:t-1"},
		{"no history", []a2a.Event{snapshot(), completed}, "task:t-1"},
		{"no user message in the history", []a2a.Event{snapshot(agent), completed}, "task:t-1"},
		{"a user message without an id", []a2a.Event{snapshot(user("")), completed}, "task:t-1"},
		{"an id longer than a receiver takes", []a2a.Event{snapshot(user(strings.Repeat("x", envelope.MaxIdentBytes+1))), completed}, "task:t-1"},
		{"a later snapshot does not rename the turn", []a2a.Event{snapshot(user("u-1")), snapshot(user("u-1"), user("u-9")), completed}, "u-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Replay(context.Background(), events(tt.events...))
			r := collect(t, st)
			got := []string{st.Turn(), r.view.Turn}
			for _, op := range forwarded(r) {
				got = append(got, op.Turn)
			}
			// Turn, the view, and every op (at least the seal and the result).
			want := []string{tt.want, tt.want, tt.want, tt.want}
			for len(want) < len(got) {
				want = append(want, tt.want)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("turn (-want +got):\n%s", d)
			}
		})
	}
}

func events(evs ...a2a.Event) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// A turn that cannot be brought to an end still gets a result op — verdict
// incomplete, no seal (the task may still be running) — right before the
// stream's error.
func TestIncompleteResult(t *testing.T) {
	t.Parallel()
	working := &a2a.TaskStatusUpdateEvent{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking,
		Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("still at it"))}}
	st := Replay(context.Background(), events(working))
	var ops []schema.Op
	var types []UpdateType
	var last error
	for u, err := range st.Updates() {
		if err != nil {
			last = err
			break
		}
		types = append(types, u.Type)
		if op, ok := u.Op(); ok {
			ops = append(ops, op)
		}
	}
	if d := cmp.Diff([]UpdateType{UpdateState, UpdateProgress, UpdateResult}, types); d != "" {
		t.Errorf("updates (-want +got):\n%s", d)
	}
	if last == nil {
		t.Fatal("no stream error")
	}
	want := schema.Op{Type: schema.OpResult, Task: "t-1", Turn: "task:t-1", Result: &schema.Result{State: "TASK_STATE_WORKING",
		Verdict: schema.VerdictIncomplete, Error: last.Error(), Context: "c-1", Counters: schema.Counters{Applied: 1,
			Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 1}}}}
	if d := cmp.Diff(want, ops[len(ops)-1], cmpopts.EquateEmpty()); d != "" {
		t.Errorf("result op (-want +got):\n%s", d)
	}
	if len(ops) != 2 || ops[0].Type != schema.OpBlock {
		t.Errorf("ops = %v, want the block and the result (no seal)", fmt.Sprint(ops))
	}
}
