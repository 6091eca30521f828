package agenttest

import (
	"context"
	"errors"
	"iter"
	"maps"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/tfrs/a2a-progress/envelope"
)

// silentEndKey marks, in the event metadata, the working status update that
// the executor sends after the steps of a script with Final == "". The
// stream filter swallows it and ends the stream there (see stream.go); it
// never reaches a caller. Its status has no message, which is how a later
// snapshot shows that the silent end has happened.
const silentEndKey = "calleeSilentEnd"

// errStopped is why a played script stops early.
var errStopped = errors.New("agenttest: execution stopped")

// executor is the a2asrv.AgentExecutor that plays scripts.
type executor struct{ s *Agent }

var (
	_ a2asrv.AgentExecutor         = executor{}
	_ a2asrv.AgentExecutionCleaner = executor{}
)

// Execute plays the script named by the message text.
func (x executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !x.s.track(ec) {
			yield(nil, errClosing)
			return
		}
		x.play(ctx, ec, x.s.script(envelope.MessageText(ec.Message)), yield)
	}
}

func (x executor) play(ctx context.Context, ec *a2asrv.ExecutorContext, sc Script, yield func(a2a.Event, error) bool) {
	if ec.StoredTask == nil {
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
	}
	// fail ends the turn when the script cannot go on (ctx canceled, server
	// closing): a2asrv needs a terminal state to end the execution.
	fail := func(err error) {
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(err.Error()))
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateFailed, msg), nil)
	}
	for _, st := range sc.Steps {
		if err := x.s.wait(ctx, st.Pause, st.Gate); err != nil {
			fail(err)
			return
		}
		ev, err := stepEvent(ec, st)
		if err != nil {
			fail(err)
			return
		}
		if ev == nil {
			continue
		}
		for r := range st.Repeat + 1 {
			if r > 0 {
				ev = cloneEvent(ev)
			}
			if !yield(ev, nil) {
				return
			}
		}
	}

	switch sc.Final {
	case "":
		x.s.markSilent(ec.TaskID)
		marker := a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil)
		marker.Metadata = map[string]any{silentEndKey: true}
		if !yield(marker, nil) {
			return
		}
		fail(x.s.park(ctx))
		return
	}
	for _, art := range sc.Artifacts {
		ev := &a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Artifact: cloneArtifact(art), LastChunk: true}
		if !yield(ev, nil) {
			return
		}
	}
	var msg *a2a.Message
	if sc.FinalText != "" || sc.FinalMeta != nil {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(sc.FinalText))
		msg.Metadata = cloneMeta(sc.FinalMeta)
	}
	if !yield(a2a.NewStatusUpdateEvent(ec, sc.Final, msg), nil) {
		return
	}
	if sc.Final == a2a.TaskStateAuthRequired {
		// a2asrv keeps an auth-required execution open; the stream filter
		// has closed the streams. Hold the task there until the end.
		fail(x.s.park(ctx))
	}
}

// Cleanup implements a2asrv.AgentExecutionCleaner. a2asrv calls it once
// the execution's events have all been processed and broadcast, which is
// the moment Close may tear the queues down.
func (x executor) Cleanup(_ context.Context, ec *a2asrv.ExecutorContext, _ a2a.SendMessageResult, _ error) {
	x.s.untrack(ec)
}

// Cancel answers a CancelTask with the canceled state.
func (x executor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// ownExecutor runs the executor of [WithExecutor], tracked as the player's
// executions are, so that Close waits for it.
type ownExecutor struct {
	s *Agent
	x a2asrv.AgentExecutor
}

var (
	_ a2asrv.AgentExecutor         = ownExecutor{}
	_ a2asrv.AgentExecutionCleaner = ownExecutor{}
)

// Execute runs the own executor's turn.
func (o ownExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !o.s.track(ec) {
			yield(nil, errClosing)
			return
		}
		for ev, err := range o.x.Execute(ctx, ec) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// Cleanup implements a2asrv.AgentExecutionCleaner, passing it on when the
// own executor is one too.
func (o ownExecutor) Cleanup(ctx context.Context, ec *a2asrv.ExecutorContext, res a2a.SendMessageResult, err error) {
	if c, ok := o.x.(a2asrv.AgentExecutionCleaner); ok {
		c.Cleanup(ctx, ec, res, err)
	}
	o.s.untrack(ec)
}

// Cancel runs the own executor's Cancel.
func (o ownExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return o.x.Cancel(ctx, ec)
}

// stepEvent builds the event of one step, or nil for a wait-only step.
func stepEvent(ec *a2asrv.ExecutorContext, st Step) (a2a.Event, error) {
	switch {
	case st.Envelope != nil:
		return envelope.NewStatusUpdate(ec, *st.Envelope, st.Text)
	case st.Raw != nil:
		m := cloneMessage(st.Raw)
		if m.ID == "" {
			m.ID = a2a.NewMessageID()
		}
		if m.Role == "" {
			m.Role = a2a.MessageRoleAgent
		}
		m.TaskID, m.ContextID = ec.TaskID, ec.ContextID
		return a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, m), nil
	case st.Artifact != nil:
		ev := *st.Artifact
		ev.TaskID, ev.ContextID = ec.TaskID, ec.ContextID
		ev.Artifact = cloneArtifact(st.Artifact.Artifact)
		ev.Metadata = cloneMeta(st.Artifact.Metadata)
		return &ev, nil
	case st.Text != "":
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(st.Text))
		return a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, msg), nil
	}
	return nil, nil
}

// cloneEvent copies ev for a repeated delivery: the same message (same
// messageId), but no memory shared with the event a2asrv is processing.
func cloneEvent(ev a2a.Event) a2a.Event {
	switch ev := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		c := *ev
		c.Status.Message = cloneMessage(ev.Status.Message)
		c.Metadata = cloneMeta(ev.Metadata)
		if ev.Status.Timestamp != nil {
			t := time.Now()
			c.Status.Timestamp = &t
		}
		return &c
	case *a2a.TaskArtifactUpdateEvent:
		c := *ev
		c.Artifact = cloneArtifact(ev.Artifact)
		c.Metadata = cloneMeta(ev.Metadata)
		return &c
	}
	return ev
}

func cloneMessage(m *a2a.Message) *a2a.Message {
	if m == nil {
		return nil
	}
	c := *m
	c.Parts = cloneParts(m.Parts)
	c.Metadata = cloneMeta(m.Metadata)
	return &c
}

func cloneArtifact(a *a2a.Artifact) *a2a.Artifact {
	if a == nil {
		return nil
	}
	c := *a
	c.Parts = cloneParts(a.Parts)
	c.Metadata = cloneMeta(a.Metadata)
	return &c
}

func cloneParts(ps a2a.ContentParts) a2a.ContentParts {
	if ps == nil {
		return nil
	}
	out := make(a2a.ContentParts, len(ps))
	for i, p := range ps {
		if p == nil {
			continue
		}
		c := *p
		c.Metadata = cloneMeta(p.Metadata)
		out[i] = &c
	}
	return out
}

// cloneMeta deep-copies JSON-native metadata.
func cloneMeta(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneMeta(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}
