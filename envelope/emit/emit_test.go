package emit_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/envelope/emit"
)

// recorder is the yield of a fake execution: it keeps every event and
// returns false once stopAfter events were taken (never when 0).
type recorder struct {
	mu        sync.Mutex
	events    []a2a.Event
	stopAfter int
	ended     bool // set by the test when "Execute" has returned
	lateCalls int
}

func (r *recorder) yield(ev a2a.Event, err error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		r.lateCalls++
	}
	if err != nil {
		panic(err)
	}
	if r.stopAfter > 0 && len(r.events) >= r.stopAfter {
		return false
	}
	r.events = append(r.events, ev)
	return true
}

func newExec() *a2asrv.ExecutorContext {
	return &a2asrv.ExecutorContext{TaskID: "task-1", ContextID: "ctx-1",
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))}
}

// block is what the test compares of a working update: its envelope and
// the text fallback of the same Part.
type block struct {
	Env  envelope.Envelope
	Text string
}

// blocks reads the working updates of events the way a caller does; it
// fails the test on any update that is not one envelope in one Part.
func blocks(t *testing.T, events []a2a.Event) []block {
	t.Helper()
	var out []block
	for _, ev := range events {
		su, ok := ev.(*a2a.TaskStatusUpdateEvent)
		if !ok || su.Status.State != a2a.TaskStateWorking {
			continue
		}
		r := envelope.FromMessage(su.Status.Message)
		if r.Fallback || len(su.Status.Message.Parts) != 1 {
			t.Fatalf("update %v: want one Part with an envelope, got %d parts, reason %q", su.Status.Message.ID, len(su.Status.Message.Parts), r.Reason)
		}
		if su.TaskID != "task-1" || su.Status.Message.TaskID != "task-1" || su.Status.Message.Role != a2a.MessageRoleAgent {
			t.Errorf("update for task %q, message task %q, role %q", su.TaskID, su.Status.Message.TaskID, su.Status.Message.Role)
		}
		out = append(out, block{Env: r.Envelope, Text: su.Status.Message.Parts[0].Text()})
	}
	return out
}

func env(seq int64, key string, status envelope.Status, p envelope.Payload) envelope.Envelope {
	return envelope.Envelope{V: envelope.Version, Kind: p.Kind(), StreamKey: key, Seq: seq, Status: status, Payload: p}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTurn(t *testing.T) {
	const run, done, aborted = envelope.StatusRunning, envelope.StatusDone, envelope.StatusAborted
	for _, tc := range []struct {
		name  string
		opts  []emit.Option
		play  func(t *testing.T, em *emit.Emitter)
		want  []block
		final a2a.TaskState
	}{
		{
			name: "every kind, seqs from 1",
			play: func(t *testing.T, em *emit.Emitter) {
				must(t, em.Thinking("plan"))
				call, err := em.ToolStart("search", "")
				must(t, err)
				must(t, call.Output("row 1\nrow 2\n"))
				must(t, call.Error("slow"))
				must(t, call.Done())
				must(t, em.Error("retrying"))
				must(t, em.Text("found it"))
				must(t, em.Finish(a2a.TaskStateCompleted, "the reply"))
			},
			want: []block{
				{env(1, "", run, envelope.Thinking{Text: "plan"}), "thinking: plan"},
				{env(2, "call-1", run, envelope.ToolCall{Tool: "search", ToolCallID: "call-1"}), "calling tool search"},
				{env(3, "call-1", run, envelope.ToolOutputAppend{Tool: "search", ToolCallID: "call-1", Chunk: "row 1\nrow 2\n"}), "row 1\nrow 2\n"},
				{env(4, "call-1", run, envelope.ErrorPayload{Message: "slow"}), "error: slow"},
				{env(5, "call-1", done, envelope.ToolCall{Tool: "search", ToolCallID: "call-1"}), "tool search done"},
				{env(6, "", run, envelope.ErrorPayload{Message: "retrying"}), "error: retrying"},
				{env(7, "", run, envelope.Text{Text: "found it"}), "found it"},
			},
			final: a2a.TaskStateCompleted,
		},
		{
			name: "start seq, own ids, aborted, output split by the chunk limit",
			opts: []emit.Option{emit.WithStartSeq(100), emit.WithChunkLimit(8)},
			play: func(t *testing.T, em *emit.Emitter) {
				a, err := em.ToolStart("fetch", "call-1")
				must(t, err)
				b, err := em.ToolStart("fetch", "") // call-1 is taken
				must(t, err)
				must(t, a.Output("aaa\nbbbbbbbbbbcc\n"))
				must(t, a.Output(""))
				must(t, b.Aborted())
				must(t, a.Done())
				must(t, em.Finish(a2a.TaskStateInputRequired, "which one?"))
			},
			want: []block{
				{env(100, "call-1", run, envelope.ToolCall{Tool: "fetch", ToolCallID: "call-1"}), "calling tool fetch"},
				{env(101, "call-2", run, envelope.ToolCall{Tool: "fetch", ToolCallID: "call-2"}), "calling tool fetch"},
				{env(102, "call-1", run, envelope.ToolOutputAppend{Tool: "fetch", ToolCallID: "call-1", Chunk: "aaa\n"}), "aaa\n"},
				{env(103, "call-1", run, envelope.ToolOutputAppend{Tool: "fetch", ToolCallID: "call-1", Chunk: "bbbbbbbb"}), "bbbbbbbb"},
				{env(104, "call-1", run, envelope.ToolOutputAppend{Tool: "fetch", ToolCallID: "call-1", Chunk: "bbcc\n"}), "bbcc\n"},
				{env(105, "call-2", aborted, envelope.ToolCall{Tool: "fetch", ToolCallID: "call-2"}), "tool fetch aborted"},
				{env(106, "call-1", done, envelope.ToolCall{Tool: "fetch", ToolCallID: "call-1"}), "tool fetch done"},
			},
			final: a2a.TaskStateInputRequired,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			em := emit.New(newExec(), r.yield, tc.opts...)
			tc.play(t, em)
			if _, ok := r.events[0].(*a2a.Task); !ok {
				t.Errorf("first event is %T, want the submitted *a2a.Task", r.events[0])
			}
			if diff := cmp.Diff(tc.want, blocks(t, r.events)); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
			last, ok := r.events[len(r.events)-1].(*a2a.TaskStatusUpdateEvent)
			if !ok || last.Status.State != tc.final {
				t.Errorf("last event %#v, want a %s status", r.events[len(r.events)-1], tc.final)
			}
		})
	}
}

func TestContinuedTaskSendsNoSubmittedTask(t *testing.T) {
	r := &recorder{}
	ec := newExec()
	ec.StoredTask = &a2a.Task{ID: ec.TaskID, ContextID: ec.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired}}
	em := emit.New(ec, r.yield)
	must(t, em.Text("again"))
	if len(r.events) != 1 {
		t.Fatalf("%d events, want 1 (no submitted Task for a stored task)", len(r.events))
	}
	if diff := cmp.Diff([]block{{env(1, "", envelope.StatusRunning, envelope.Text{Text: "again"}), "again"}}, blocks(t, r.events)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRefusals(t *testing.T) {
	r := &recorder{}
	em := emit.New(newExec(), r.yield)
	call, err := em.ToolStart("t", "x")
	must(t, err)

	_, err = em.ToolStart("t", "x")
	if !errors.Is(err, emit.ErrDuplicateToolCall) {
		t.Errorf("reused id: %v, want ErrDuplicateToolCall", err)
	}
	_, err = em.ToolStart("", "y")
	if !errors.Is(err, envelope.ReasonBadField) {
		t.Errorf("no tool name: %v, want envelope.ReasonBadField", err)
	}
	err = em.Text(strings.Repeat("\x00", envelope.MaxEnvelopeBytes/6+1))
	if !errors.Is(err, envelope.ReasonEnvelopeTooLarge) {
		t.Errorf("text over the envelope cap: %v, want envelope.ReasonEnvelopeTooLarge", err)
	}
	must(t, call.Done())
	for name, err := range map[string]error{"Output": call.Output("x"), "Error": call.Error("x"), "Done": call.Done(), "Aborted": call.Aborted()} {
		if !errors.Is(err, emit.ErrToolEnded) {
			t.Errorf("%s after Done: %v, want ErrToolEnded", name, err)
		}
	}
	// The refused envelopes used no seq.
	must(t, em.Text("next"))
	got := blocks(t, r.events)
	if seq := got[len(got)-1].Env.Seq; seq != 3 {
		t.Errorf("seq after the refusals = %d, want 3", seq)
	}

	em.Close()
	em.Close()
	if err := em.Thinking("late"); !errors.Is(err, emit.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if err := em.Finish(a2a.TaskStateCompleted, ""); !errors.Is(err, emit.ErrClosed) {
		t.Errorf("Finish after Close: %v, want ErrClosed", err)
	}
}

func TestStopped(t *testing.T) {
	r := &recorder{stopAfter: 2} // the submitted Task and one update
	em := emit.New(newExec(), r.yield)
	must(t, em.Text("one"))
	if err := em.Text("two"); !errors.Is(err, emit.ErrStopped) {
		t.Fatalf("a2asrv refused the event: %v, want ErrStopped", err)
	}
	if err := em.Send(a2a.NewStatusUpdateEvent(newExec(), a2a.TaskStateFailed, nil)); !errors.Is(err, emit.ErrStopped) {
		t.Errorf("Send after the stop: %v, want ErrStopped", err)
	}
	if n := len(r.events); n != 2 {
		t.Errorf("%d events taken, want 2", n)
	}
}

// TestConcurrent: goroutines of one execution emit at once. Seqs are
// unique and increase in the order a2asrv gets them, the chunks of one
// Output call are consecutive, and nothing reaches yield after Close.
func TestConcurrent(t *testing.T) {
	const workers, calls = 8, 25
	r := &recorder{}
	em := emit.New(newExec(), r.yield, emit.WithChunkLimit(16))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for c := range calls {
				call, err := em.ToolStart("work", fmt.Sprintf("w%d-c%d", w, c))
				if err != nil {
					t.Error(err)
					return
				}
				out := strings.Repeat(fmt.Sprintf("w%d c%d line\n", w, c), 5)
				if err := call.Output(out); err != nil {
					t.Error(err)
				}
				if err := em.Text(call.ID()); err != nil {
					t.Error(err)
				}
				if err := call.Done(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	em.Close()
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	if err := em.Text("after"); !errors.Is(err, emit.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}

	got := blocks(t, r.events)
	// Every line is 11 or 12 bytes: a 16-byte limit gives a chunk per line.
	if want := workers * calls * (1 + 5 + 1 + 1); len(got) != want {
		t.Errorf("%d blocks, want %d", len(got), want)
	}
	output := map[string]string{}
	chunkSeqs := map[string][]int64{}
	for i, b := range got {
		if want := int64(i + 1); b.Env.Seq != want {
			t.Fatalf("block %d has seq %d, want %d: seqs must be consecutive in arrival order", i, b.Env.Seq, want)
		}
		if p, ok := b.Env.Payload.(envelope.ToolOutputAppend); ok {
			output[b.Env.StreamKey] += p.Chunk
			chunkSeqs[b.Env.StreamKey] = append(chunkSeqs[b.Env.StreamKey], b.Env.Seq)
		}
	}
	for key, seqs := range chunkSeqs {
		// One Output call per tool call: its chunks are consecutive.
		if n := int64(len(seqs)); seqs[n-1]-seqs[0] != n-1 {
			t.Errorf("%s: chunks at seqs %v, want consecutive", key, seqs)
		}
	}
	for w := range workers {
		for c := range calls {
			key := fmt.Sprintf("w%d-c%d", w, c)
			if want := strings.Repeat(fmt.Sprintf("w%d c%d line\n", w, c), 5); output[key] != want {
				t.Errorf("%s output %q, want %q", key, output[key], want)
			}
		}
	}
	if r.lateCalls != 0 {
		t.Errorf("yield called %d times after Close", r.lateCalls)
	}
}

// TestEnvelopeCap: the largest text whose envelope fits
// envelope.MaxEnvelopeBytes is sent and read back whole; one byte more is
// refused before it uses a seq.
func TestEnvelopeCap(t *testing.T) {
	r := &recorder{}
	em := emit.New(newExec(), r.yield)
	overhead := len(`{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":""}}`)
	largest := strings.Repeat("x", envelope.MaxEnvelopeBytes-overhead)
	if err := em.Text(largest + "x"); !errors.Is(err, envelope.ReasonEnvelopeTooLarge) {
		t.Fatalf("one byte over: %v, want envelope.ReasonEnvelopeTooLarge", err)
	}
	must(t, em.Text(largest))
	got := blocks(t, r.events)
	if len(got) != 1 || got[0].Env.Seq != 1 || got[0].Env.Payload != (envelope.Text{Text: largest}) {
		t.Errorf("at the cap: %d blocks, want one text block of %d bytes with seq 1", len(got), len(largest))
	}
}
