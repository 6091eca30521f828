package client

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

func blockTexts(v schema.View) []string {
	var out []string
	for _, b := range v.Blocks {
		if t, ok := b.Payload.(envelope.Text); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

// A frame over a2a-go's 10 MiB SSE line cap fails the stream with a clear
// error; the client resumes past it, and memory stays bounded.
func TestGiantFrame(t *testing.T) {
	giant := working(2, "giant")
	giant.Status.Message.Parts = append(giant.Status.Message.Parts, a2a.NewTextPart(strings.Repeat("x", 11<<20)))
	frame := renderFrame(giant) // rendered before measuring: the server shares the process
	a := newRawAgent(t,
		func(w *sseWriter) {
			w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
			w.event(working(1, "one"))
			w.rawBytes(frame)
			w.event(completed("never read"))
		},
		func(w *sseWriter) {
			// The snapshot's history has the giant update in a real agent;
			// here a sane copy of it, so that it is backfilled.
			w.event(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one"), envMsg(2, "giant")))
			w.event(completed("done"))
		})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st, _ := a.client(t).SendText(testCtx(t), "go")
	r := collect(t, st)
	runtime.ReadMemStats(&after)
	if r.err != nil || r.out.Reply != "done" {
		t.Fatalf("stream %v, outcome %q %v", r.err, r.out.Reply, r.outErr)
	}
	var cause error
	for _, u := range r.updates {
		if u.Type == UpdateReconnect {
			cause = u.Err
		}
	}
	// a2a-go's reader refuses the line, the fast path's the event: both
	// are the client's one error.
	if !errors.Is(cause, ErrEventTooLarge) {
		t.Errorf("reconnect cause = %v, want ErrEventTooLarge", cause)
	}
	if got := blockTexts(r.view); strings.Join(got, ",") != "one,giant" {
		t.Errorf("blocks = %q", got)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MiB to refuse an 11 MiB frame", alloc>>20)
	if alloc > 64<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
}

// A frame under the cap whose envelope is too large to parse: the update
// falls back to its text, which the merge caps — the view stays small.
func TestHugeEnvelopeFallsBackAndIsCapped(t *testing.T) {
	t.Parallel()
	huge := working(2, "")
	// Just over what is parsed, and a text eight times what the merge
	// keeps: larger costs seconds under -race and checks nothing more.
	p, _ := envelope.NewPart(envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 2, Status: envelope.StatusRunning,
		Payload: envelope.Text{Text: strings.Repeat("y", envelope.MaxEnvelopeBytes)}}, strings.Repeat("z", 8*merge.DefaultMaxTextBytes))
	huge.Status.Message.Parts = a2a.ContentParts{p}
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		w.event(huge)
		w.event(completed("done"))
	})
	st, _ := a.client(t).SendText(testCtx(t), "go")
	r := collect(t, st)
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got *Update
	for i := range r.updates {
		if r.updates[i].Type == UpdateProgress {
			got = &r.updates[i]
		}
	}
	if got == nil || !got.Reading.Fallback || got.Reading.Reason != envelope.ReasonEnvelopeTooLarge {
		t.Fatalf("reading = %+v, want a fallback for an envelope too large", got)
	}
	if len(r.view.Blocks) != 1 || r.view.Blocks[0].Truncated == 0 {
		t.Errorf("view blocks = %+v, want one truncated fallback", r.view.Blocks)
	}
	if n := len(r.view.Blocks[0].Payload.(envelope.Text).Text); n > merge.DefaultMaxTextBytes {
		t.Errorf("retained %d bytes of text", n)
	}
}

// Malformed frames — not JSON, an unknown event type — fail the stream
// with a clear error and are resumed past; a malformed envelope is a
// fallback with its reason.
func TestMalformedFrames(t *testing.T) {
	t.Parallel()
	badEnv := working(3, "")
	badEnv.Status.Message.Parts = a2a.ContentParts{{Content: a2a.Text("three"), Metadata: map[string]any{envelope.MetadataKey: `{"v":1,"kind":`}}}
	a := newRawAgent(t,
		func(w *sseWriter) {
			w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
			w.event(working(1, "one"))
			w.raw(`{not json`)
		},
		func(w *sseWriter) {
			w.raw(`{"jsonrpc":"2.0","id":"1","result":{"bogusUpdate":{}}}`)
		},
		func(w *sseWriter) {
			w.event(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one"), envMsg(2, "two")))
			w.event(badEnv)
			w.event(completed("done"))
		})
	a.setTask(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one")))
	st, _ := a.client(t).SendText(testCtx(t), "go")
	r := collect(t, st)
	if r.err != nil || r.out.Reply != "done" {
		t.Fatalf("stream %v, outcome %q", r.err, r.out.Reply)
	}
	var causes []string
	var fallback *envelope.Reading
	for _, u := range r.updates {
		switch u.Type {
		case UpdateReconnect:
			causes = append(causes, u.Err.Error())
		case UpdateProgress:
			if u.Reading.Fallback {
				fallback = &u.Reading
			}
		}
	}
	if len(causes) != 2 {
		t.Errorf("reconnect causes = %q, want 2", causes)
	}
	if fallback == nil || fallback.Reason != envelope.ReasonBadJSON {
		t.Errorf("malformed envelope reading = %+v, want a bad_json fallback", fallback)
	}
	if got := strings.Join(blockTexts(r.view), ","); got != "one,two,three" {
		t.Errorf("blocks = %q", got)
	}
}

// Events in a wrong order: envelopes late and duplicated, another task's
// update, a stray Message — diagnosed, merged in seq order, and the
// verdict still comes from the terminal state.
func TestEventsOutOfOrder(t *testing.T) {
	t.Parallel()
	other := working(9, "other task")
	other.TaskID = "t2"
	art := &a2a.TaskArtifactUpdateEvent{TaskID: rawTask, ContextID: "c1", Artifact: &a2a.Artifact{ID: "a1", Parts: a2a.ContentParts{a2a.NewTextPart("report")}}}
	errBlock := working(5, "")
	p, _ := envelope.NewPart(envelope.Envelope{V: 1, Kind: envelope.KindError, Seq: 5, Status: envelope.StatusAborted,
		Payload: envelope.ErrorPayload{Message: "everything failed"}}, "FAILED")
	errBlock.Status.Message.Parts = a2a.ContentParts{p}
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(working(3, "three")) // no Task first
		w.event(working(1, "one"))
		w.event(other)
		w.event(working(2, "two"))
		w.event(art)
		w.event(&a2a.Message{ID: "stray", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("stray")}})
		w.event(working(2, "two"))
		w.event(errBlock)
		w.event(completed("all good"))
		w.event(working(4, "after the end"))
	})
	st, _ := a.client(t).SendText(testCtx(t), "go")
	r := collect(t, st)
	if r.err != nil || r.outErr != nil || r.out.Reply != "all good" {
		t.Fatalf("stream %v, outcome %q %v: an error block must not change the verdict", r.err, r.out.Reply, r.outErr)
	}
	var ignored []error
	for _, u := range r.updates {
		if u.Type == UpdateIgnored {
			ignored = append(ignored, u.Err)
		}
	}
	if len(ignored) != 2 || !errors.Is(ignored[0], errOtherTask) || !errors.Is(ignored[1], errStray) {
		t.Errorf("ignored = %v, want another task's update and a stray message", ignored)
	}
	if got := strings.Join(blockTexts(r.view), ","); got != "one,two,three" {
		t.Errorf("blocks = %q, want seq order", got)
	}
	if c := r.view.Counters; c.Late != 2 || c.Duplicates != 1 {
		t.Errorf("counters = %+v, want 2 late, 1 duplicate", c)
	}
	if len(r.out.Artifacts) != 1 || r.count(UpdateArtifact) != 1 {
		t.Errorf("artifacts: %d in the outcome, %d updates", len(r.out.Artifacts), r.count(UpdateArtifact))
	}
}

// Silence longer than the idle timeout is a cut.
func TestIdleTimeoutIsACut(t *testing.T) {
	t.Parallel()
	a := newRawAgent(t,
		func(w *sseWriter) {
			w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
			w.event(working(1, "one"))
			w.hang()
		},
		func(w *sseWriter) {
			w.event(taskEv(a2a.TaskStateWorking, userMsg(), envMsg(1, "one")))
			w.event(working(2, "two"))
			w.event(completed("done"))
		})
	st, _ := a.client(t, WithIdleTimeout(1500*time.Millisecond)).SendText(testCtx(t), "go")
	r := collect(t, st)
	if r.err != nil || r.out.Reply != "done" {
		t.Fatalf("stream %v, outcome %q", r.err, r.out.Reply)
	}
	n := 0
	for _, u := range r.updates {
		if u.Type == UpdateReconnect {
			n++
			if !errors.Is(u.Err, errIdle) {
				t.Errorf("cause = %v, want idle", u.Err)
			}
		}
	}
	if n != 1 || strings.Join(blockTexts(r.view), ",") != "one,two" {
		t.Errorf("%d reconnects, blocks %q", n, blockTexts(r.view))
	}
}

// keepAliveIdle is TestKeepAliveIsNotIdle's idle timeout.
const keepAliveIdle = 1500 * time.Millisecond

// SSE keep-alive comments are bytes: a stream that only keeps alive for
// longer than the idle timeout is not cut (the bytes are watched, not the
// events, which a2a-go's parser never shows for comments).
func TestKeepAliveIsNotIdle(t *testing.T) {
	t.Parallel()
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		w.event(working(1, "one"))
		// Comments 100 ms apart for twice the idle timeout without an
		// event: each gap a fifteenth of it, room for a loaded machine.
		for start := time.Now(); time.Since(start) < 2*keepAliveIdle; {
			time.Sleep(100 * time.Millisecond) // the peer's pace, not synchronisation
			w.comment()
		}
		w.event(completed("done"))
	})
	st, _ := a.client(t, WithIdleTimeout(keepAliveIdle)).SendText(testCtx(t), "go")
	r := collect(t, st)
	if r.err != nil || r.out.Reply != "done" || r.count(UpdateReconnect) != 0 {
		t.Fatalf("stream %v, outcome %q, %d reconnects", r.err, r.out.Reply, r.count(UpdateReconnect))
	}
}

// Following a task nobody knows ends at once: the subscription and GetTask
// both say it does not exist, and the stream says so — not incomplete.
func TestFollowUnknownTask(t *testing.T) {
	t.Parallel()
	a := newRawAgent(t)
	st, _ := a.client(t).Follow(testCtx(t), "nope")
	r := collect(t, st)
	if errors.Is(r.err, ErrIncomplete) || !errors.Is(r.err, a2a.ErrTaskNotFound) {
		t.Fatalf("err = %v, want ErrTaskNotFound and not ErrIncomplete", r.err)
	}
	if got := strings.Join(a.calls(), ","); got != "SubscribeToTask,GetTask" {
		t.Errorf("calls = %s", got)
	}
}

// The seam for peers that send progress in the artifact channel (PROTOCOL.md §5.1):
// such artifacts are merged as progress and kept out of the outcome.
func TestArtifactProgressSeam(t *testing.T) {
	t.Parallel()
	progress := func(seq int) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{TaskID: rawTask, ContextID: "c1", Artifact: &a2a.Artifact{ID: a2a.ArtifactID("p" + string(rune('0'+seq))),
			Parts: a2a.ContentParts{{Content: a2a.Text("RUNNING"), Metadata: map[string]any{"_remote_invocation": map[string]any{"sequence": float64(seq)}}}}}}
	}
	reply := &a2a.TaskArtifactUpdateEvent{TaskID: rawTask, ContextID: "c1", Artifact: &a2a.Artifact{ID: "out", Parts: a2a.ContentParts{a2a.NewTextPart("the answer")}}}
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(taskEv(a2a.TaskStateSubmitted, userMsg()))
		w.event(progress(1))
		w.event(reply)
		w.event(progress(2))
		w.event(completed("done"))
	})
	seam := WithArtifactProgress(func(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
		if len(ev.Artifact.Parts) == 0 || ev.Artifact.Parts[0].Metadata["_remote_invocation"] == nil {
			return envelope.Reading{}, false
		}
		inv := ev.Artifact.Parts[0].Metadata["_remote_invocation"].(map[string]any)
		return envelope.Reading{Part: 0, Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, StreamKey: "remote",
			Seq: int64(inv["sequence"].(float64)), Status: envelope.StatusRunning, Payload: envelope.Text{Text: ev.Artifact.Parts[0].Text()}}}, true
	})
	// Compat would claim these frames before the seam; the seam is what is
	// tested here.
	st, _ := a.client(t, seam, WithCompat(false)).SendText(testCtx(t), "go")
	r := collect(t, st)
	if r.err != nil || r.outErr != nil {
		t.Fatal(r.err, r.outErr)
	}
	if len(r.out.Artifacts) != 1 || r.out.Artifacts[0].ID != "out" {
		t.Errorf("outcome artifacts = %+v, want only the reply", r.out.Artifacts)
	}
	if r.count(UpdateProgress) != 2 || r.count(UpdateArtifact) != 1 || len(r.view.Blocks) != 2 {
		t.Errorf("%d progress, %d artifact updates, %d blocks", r.count(UpdateProgress), r.count(UpdateArtifact), len(r.view.Blocks))
	}
}

// Output beyond the merge caps: refused blocks are reported per update and
// counted, tool output keeps its newest bytes, the verdict is untouched.
func TestOutputBeyondCaps(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	// 100 updates: twice the block cap, more dropped than applied; the
	// view is the same as at 300, without the cost of a2asrv's history
	// copies, quadratic in the updates sent.
	s.Register(agenttest.Trajectory(100, agenttest.Named("flood"), agenttest.Oversize()))
	cl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1}, WithCaps(merge.Caps{MaxBlocks: 50, MaxOutputBytes: 32}))
	st, _ := cl.SendText(testCtx(t), "flood")
	r := collect(t, st)
	if r.err != nil || r.outErr != nil {
		t.Fatal(r.err, r.outErr)
	}
	dropped, tooLarge := 0, 0
	for _, u := range r.updates {
		if u.Change.Effect == merge.DroppedCap {
			dropped++
		}
		if u.Reading.Reason == envelope.ReasonChunkTooLarge {
			tooLarge++
		}
	}
	if dropped == 0 || int64(dropped) != r.view.Counters.DroppedByCap {
		t.Errorf("%d dropped updates, counter %d", dropped, r.view.Counters.DroppedByCap)
	}
	if r.view.Counters.Applied != 50 {
		t.Errorf("applied %d, want the cap of 50", r.view.Counters.Applied)
	}
	if tooLarge == 0 {
		t.Error("the oversize chunk did not fall back")
	}
	truncated := false
	for _, tc := range r.view.ToolCalls {
		if len(tc.Output) > 32+len("[gap: 1 seq missing]\n")*tc.Gaps+64 {
			t.Errorf("tool %s retains %d bytes", tc.Key, len(tc.Output))
		}
		truncated = truncated || tc.Truncated > 0
	}
	if !truncated {
		t.Error("no tool output was truncated")
	}
}

// Canceling the context stops the stream promptly, with the context's
// error; nothing is left running (goleak checks at the end).
func TestContextCancelStops(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(gated(agenttest.Trajectory(10), "cancel", 5, "never"))
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			cl := newForced(t, s, c)
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			st, _ := cl.SendText(ctx, "cancel")
			var err error
			n := 0
			for u, e := range st.Updates() {
				if e != nil {
					err = e
					break
				}
				if u.Type == UpdateProgress {
					n++
					if n == 5 {
						cancel() // the callee now waits at a gate that never opens
					}
				}
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if _, oerr := st.Outcome(); !errors.Is(oerr, context.Canceled) {
				t.Errorf("Outcome err = %v", oerr)
			}
		})
	}
}

// Run: an error from the callback stops the stream and is returned.
func TestRunCallbackError(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	cl := newForced(t, s, combo{a2a.TransportProtocolGRPC, agenttest.V1})
	st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
	stop := errors.New("enough")
	n := 0
	_, err := st.Run(func(u Update) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Run = %v, want the callback's error", err)
	}
	if _, err := st.Outcome(); !errors.Is(err, ErrNotFinished) {
		t.Errorf("Outcome = %v, want ErrNotFinished", err)
	}
}

func TestStreamUsedTwice(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	cl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V0})
	st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
	if _, err := st.Run(func(Update) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, err := range st.Updates() {
		if !errors.Is(err, ErrStreamUsed) {
			t.Fatalf("err = %v", err)
		}
	}
}

// Dispatch to an agent that answers with a Message: there is no task.
func TestDispatchMessageReply(t *testing.T) {
	t.Parallel()
	a := newRawAgent(t)
	_, err := a.client(t).Dispatch(testCtx(t), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi")))
	if !errors.Is(err, ErrNoTask) {
		t.Fatalf("err = %v, want ErrNoTask", err)
	}
}

// A direct Message reply on a stream completes the turn.
func TestSendMessageReply(t *testing.T) {
	t.Parallel()
	a := newRawAgent(t, func(w *sseWriter) {
		w.event(&a2a.Message{ID: "r1", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("hi there")}})
	})
	st, _ := a.client(t).SendText(testCtx(t), "hi")
	r := collect(t, st)
	if r.err != nil || r.outErr != nil || r.out.Reply != "hi there" || r.count(UpdateMessage) != 1 || !r.view.Sealed {
		t.Fatalf("stream %v, outcome %q %v, %d message updates", r.err, r.out.Reply, r.outErr, r.count(UpdateMessage))
	}
}
