package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/terminal"

	"github.com/tfrs/a2a-progress/schema"
)

// screenWriter is a vt that signals when a line of its screen contains a
// string.
type screenWriter struct {
	mu      sync.Mutex
	vt      vt
	want    string
	matched chan int // the screen row, once
	once    sync.Once
}

func (w *screenWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.vt.Write(p)
	for i, l := range w.vt.screen() {
		if w.want != "" && strings.Contains(l, w.want) {
			w.once.Do(func() { w.matched <- i })
		}
	}
	return n, err
}

func (w *screenWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.vt.screen(), "\n")
}

func (w *screenWriter) screen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.vt.screen()
}

// TestLiveViewToolTurnsDoneInPlace drives the TTY renderer against a fake
// terminal: a running tool call is drawn with a spinner, then the same
// screen line turns "done" once the callee finishes the call.
func TestLiveViewToolTurnsDoneInPlace(t *testing.T) {
	t.Parallel()
	env := func(kind envelope.Kind, seq int64, status envelope.Status, p envelope.Payload) *envelope.Envelope {
		return &envelope.Envelope{V: 1, Kind: kind, StreamKey: "call-1", Seq: seq, Status: status, Payload: p}
	}
	script := agenttest.Script{
		Name: "live",
		Steps: []agenttest.Step{
			{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindThinking, Seq: 1, Status: envelope.StatusRunning,
				Payload: envelope.Thinking{Text: "first the logs\nthen the fix"}}},
			{Envelope: env(envelope.KindToolCall, 2, envelope.StatusRunning, envelope.ToolCall{Tool: "grep_logs", ToolCallID: "call-1"})},
			{Envelope: env(envelope.KindToolOutputAppend, 3, envelope.StatusRunning,
				envelope.ToolOutputAppend{Tool: "grep_logs", ToolCallID: "call-1", Chunk: "line 1\nline 2\nline 3\nline 4\n"})},
			{Gate: "finish"},
			{Envelope: env(envelope.KindToolCall, 4, envelope.StatusDone, envelope.ToolCall{Tool: "grep_logs", ToolCallID: "call-1"})},
			{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindError, Seq: 5, Status: envelope.StatusRunning,
				Payload: envelope.ErrorPayload{Message: "retrying the upload"}}},
		},
		Final:     a2a.TaskStateCompleted,
		FinalText: "fixed",
	}
	srv := startCallee(t, script)
	out := &screenWriter{want: "grep_logs [call-1] running", matched: make(chan int, 1)}
	a := newApp(strings.NewReader(""), out, &lockedBuffer{})
	a.isTTY = func(io.Writer) bool { return true }
	a.size = func() (int, int) { return 60, 40 }
	var clock sync.Mutex
	now := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	a.now = func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		now = now.Add(500 * time.Millisecond)
		return now
	}
	a.color = "never"

	done := make(chan int, 1)
	go func() { done <- a.run(context.Background(), []string{"send", srv.CardURL(agenttest.V1), "live"}) }()
	var row int
	select {
	case row = <-out.matched:
	case <-time.After(testdep.Budget(10 * time.Second)):
		t.Fatalf("the running tool call never showed; screen:\n%s", out.String())
	}
	running := out.screen()
	if !strings.HasPrefix(running[row], "⠋") && !strings.ContainsAny(running[row][:3], strings.Join(spinner, "")) {
		t.Errorf("running line %q does not start with a spinner", running[row])
	}
	srv.Release("finish")
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, a.stderr.(*lockedBuffer).String())
	}
	final := out.screen()
	if !strings.HasPrefix(final[row], "✓  grep_logs [call-1] done") {
		t.Errorf("row %d is %q after the call finished, want it done in place\nscreen:\n%s", row, final[row], strings.Join(final, "\n"))
	}
	// The whole final screen, elapsed times excluded (they come from the
	// fake clock, but the spinner ticker reads it too).
	for i := range final {
		if j := strings.Index(final[i], " done "); j >= 0 {
			final[i] = final[i][:j+len(" done")]
		}
	}
	if !strings.HasPrefix(final[0], "task ") || !strings.Contains(final[0], " · completed · 5 b") {
		t.Errorf("header %q, want the task, its state and the blocks", final[0])
	}
	final[0] = "header"
	want := []string{
		"header",
		"💭 first the logs…",
		"✓  grep_logs [call-1] done",
		"   │ line 2",
		"   │ line 3",
		"   │ line 4",
		"✗  error: retrying the upload",
		"✓ completed: fixed",
	}
	if diff := cmp.Diff(want, final); diff != "" {
		t.Errorf("final screen (-want +got):\n%s", diff)
	}
	if len(out.vt.unknowns()) > 0 {
		t.Errorf("escape sequences the test terminal does not know: %q", out.vt.unknowns())
	}
}

// liveFeed drives a liveSink with envelopes through a merge.Turn, whose
// view the sink reads, as the client does.
type liveFeed struct {
	t    *testing.T
	mu   sync.Mutex // the sink's ticker reads the turn's view
	turn *merge.Turn
	sink *liveSink
}

func newLiveFeed(t *testing.T, term io.Writer, cols, rows int) *liveFeed {
	now := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	f := &liveFeed{t: t, turn: merge.NewTurn("task-1", "", merge.DefaultCaps())}
	f.sink = newLiveSink(term, f.view, false, false, func() time.Time { return now }, func() (int, int) { return cols, rows })
	return f
}

func (f *liveFeed) view() schema.View {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.turn.View()
}

func (f *liveFeed) send(e envelope.Envelope) {
	f.t.Helper()
	e.V = envelope.Version
	if e.Status == "" {
		e.Status = envelope.StatusRunning
	}
	f.mu.Lock()
	ch := f.turn.Apply(envelope.Reading{Envelope: e})
	f.mu.Unlock()
	if err := f.sink.update(client.Update{Type: client.UpdateProgress, State: a2a.TaskStateWorking, Change: ch}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *liveFeed) finish(reply string) {
	f.t.Helper()
	f.mu.Lock()
	f.turn.Seal()
	f.mu.Unlock()
	out := terminal.Outcome{TaskID: "task-1", State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted, Reply: reply}
	if err := f.sink.finish(f.view(), out, nil); err != nil {
		f.t.Fatal(err)
	}
}

// TestLiveViewNarrowTerminal: wide runes (CJK, emoji), tabs and the peer's
// escape sequences on a 24-column terminal. The live view counts one screen
// row per line when it moves the cursor back up, so no line may wrap:
// otherwise every redraw leaves the top of the previous frame behind.
func TestLiveViewNarrowTerminal(t *testing.T) {
	term := &vt{cols: 24, rows: 40}
	f := newLiveFeed(t, term, 24, 40)
	f.send(envelope.Envelope{Kind: envelope.KindThinking, Seq: 1, Payload: envelope.Thinking{Text: "先查日志，再检查库存，然后回答用户"}})
	f.send(envelope.Envelope{Kind: envelope.KindToolCall, StreamKey: "c1", Seq: 2, Payload: envelope.ToolCall{Tool: "查询订单"}})
	f.send(envelope.Envelope{Kind: envelope.KindToolOutputAppend, StreamKey: "c1", Seq: 3,
		Payload: envelope.ToolOutputAppend{Tool: "查询订单", Chunk: "订单\t42\t已发货，共三件商品，全部有货\n\x1b[2J\x1b]0;pwned\x07ok\n"}})
	f.send(envelope.Envelope{Kind: envelope.KindText, Seq: 4, Payload: envelope.Text{Text: "🚚🚚🚚🚚🚚🚚🚚🚚🚚🚚🚚🚚🚚"}})
	f.send(envelope.Envelope{Kind: envelope.KindToolCall, StreamKey: "c1", Seq: 5, Status: envelope.StatusDone, Payload: envelope.ToolCall{Tool: "查询订单"}})
	f.finish("已发货")
	want := []string{
		"task task-1 · completed…",
		"💭 先查日志，再检查库存…",
		"✓  查询订单 [c1] done 0s",
		"   │ 订单    42      已…",
		"   │ ^[[2J^[]0;pwned^Gok",
		"·  🚚🚚🚚🚚🚚🚚🚚🚚🚚🚚…",
		"✓ completed: 已发货",
	}
	if diff := cmp.Diff(want, term.screen()); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
	if len(term.unknowns()) > 0 {
		t.Errorf("escape sequences the test terminal does not know: %q", term.unknowns())
	}
}

// TestLiveViewTallFrame: a frame taller than the terminal shows its last
// lines while live (the cursor cannot move above the screen), and the
// final frame is written whole.
func TestLiveViewTallFrame(t *testing.T) {
	term := &vt{cols: 40, rows: 5}
	f := newLiveFeed(t, term, 40, 5)
	for i := range int64(8) {
		f.send(envelope.Envelope{Kind: envelope.KindText, Seq: i + 1, Payload: envelope.Text{Text: fmt.Sprintf("step %d", i+1)}})
	}
	f.finish("done")
	screen := term.screen()
	want := []string{"·  step 1", "·  step 2", "·  step 3", "·  step 4", "·  step 5", "·  step 6", "·  step 7", "·  step 8", "✓ completed: done"}
	if len(screen) < len(want) {
		t.Fatalf("screen too short:\n%s", strings.Join(screen, "\n"))
	}
	if diff := cmp.Diff(want, screen[len(screen)-len(want):]); diff != "" {
		t.Errorf("last lines (-want +got):\n%s", diff)
	}
}

// TestLiveViewReplyNotClipped: the live view clips its lines to the
// terminal, but the verdict — the authoritative reply — is written whole.
func TestLiveViewReplyNotClipped(t *testing.T) {
	var out lockedBuffer
	f := newLiveFeed(t, &out, 20, 10)
	f.send(envelope.Envelope{Kind: envelope.KindText, Seq: 1, Payload: envelope.Text{Text: "working on a long answer"}})
	reply := "Order 42 has shipped; all 3 items are in stock.\nSecond line of the reply."
	f.finish(reply)
	if !strings.Contains(out.String(), "✓ completed: "+reply+"\n") {
		t.Errorf("the reply was not written whole:\n%q", out.String())
	}
}

// TestLiveViewBackfilledCallNoDuration: a call first seen settled (a cut's
// backfill, a settled task's history) ran for a time nobody saw: its line
// shows no duration, not "done 0s"; a call seen running shows its own.
func TestLiveViewBackfilledCallNoDuration(t *testing.T) {
	term := &vt{cols: 60, rows: 20}
	f := newLiveFeed(t, term, 60, 20)
	f.send(envelope.Envelope{Kind: envelope.KindToolCall, StreamKey: "old", Seq: 1, Status: envelope.StatusDone, Payload: envelope.ToolCall{Tool: "fetch"}})
	f.send(envelope.Envelope{Kind: envelope.KindToolCall, StreamKey: "new", Seq: 2, Payload: envelope.ToolCall{Tool: "build"}})
	f.sink.mu.Lock() // the ticker reads the clock too
	f.sink.now = func() time.Time { return time.Date(2026, 11, 30, 5, 0, 2, 0, time.UTC) }
	f.sink.mu.Unlock()
	f.send(envelope.Envelope{Kind: envelope.KindToolCall, StreamKey: "new", Seq: 3, Status: envelope.StatusDone, Payload: envelope.ToolCall{Tool: "build"}})
	f.finish("ok")
	want := []string{
		"task task-1 · completed · 3 blocks",
		"✓  fetch [old] done",
		"✓  build [new] done 2s",
		"✓ completed: ok",
	}
	if diff := cmp.Diff(want, term.screen()); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

// The test terminal reads an output cut anywhere — inside an escape
// sequence, inside a rune — as it reads it whole (a loaded machine splits
// a pty's output at any byte).
func TestVTCutAnywhere(t *testing.T) {
	t.Parallel()
	out := "a2a-tail: task t1\n\x1b[1m·\x1b[0m  héllo 世界\n\x1b[2F\x1b[J·  again\x1b[K\n"
	var whole vt
	_, _ = whole.Write([]byte(out))
	if len(whole.unknowns()) > 0 {
		t.Fatalf("unknown: %q", whole.unknowns())
	}
	for cut := 1; cut < len(out); cut++ {
		var v vt
		_, _ = v.Write([]byte(out[:cut]))
		_, _ = v.Write([]byte(out[cut:]))
		if d := cmp.Diff(whole.screen(), v.screen()); d != "" || len(v.unknowns()) > 0 {
			t.Errorf("cut at %d: unknown %q, screen (-whole +cut):\n%s", cut, v.unknowns(), d)
		}
	}
	var v vt
	_, _ = v.Write([]byte("x\x1b["))
	if d := cmp.Diff([]string{`cut at the end: "\x1b["`}, v.unknowns()); d != "" {
		t.Errorf("an escape cut at the end (-want +got):\n%s", d)
	}
}
