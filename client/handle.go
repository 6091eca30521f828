package client

import (
	"errors"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/fastframe"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/terminal"
)

// Reasons of an UpdateIgnored.
var (
	errOtherTask        = errors.New("event for another task")
	errStray            = errors.New("a Message after a task is not a reply")
	errConflict         = errors.New("a second, different terminal state (the first stands)")
	errIgnoredByVerdict = errors.New("event ignored by the verdict (after a terminal state, or invalid)")
)

// handle folds one event into the turn — verdict tracker first, then the
// merge — and emits its updates. It returns false when the consumer
// stopped. The per-event path allocates nothing beyond what the envelope
// reader and the merge need: no view copy, no goroutine.
func (s *Stream) handle(ev a2a.Event, emit emitFunc) bool {
	// A plain progress frame comes without its a2a-go message: the
	// tracker gets its status (its message is progress, never a verdict),
	// the merge its envelope, the caller no Event (WithEvents). When its
	// tfrs string is no valid envelope, the text fallback reads the whole
	// message: a2a-go's event, built from the frame.
	var (
		plain *envelope.Reading
		read  envelope.Reading
		out   = ev
	)
	if p, ok := ev.(*fastframe.Progress); ok {
		var valid bool
		if read, valid = envelope.FromTfrs(p.Tfrs); valid {
			ev, plain, out = &p.TaskStatusUpdateEvent, &read, nil
		} else {
			ev = p.Event()
			out = ev
		}
	}
	info := ev.TaskInfo()
	if id := s.taskID; id != "" && info.TaskID != "" && info.TaskID != id {
		u := s.fresh(UpdateIgnored)
		u.TaskID, u.ContextID, u.Event, u.Err = info.TaskID, info.ContextID, out, errOtherTask
		return emit(u)
	}
	prev := s.state
	obs := s.tracker.Observe(ev)
	if obs.Ignored {
		reason := errIgnoredByVerdict
		switch {
		case obs.Conflict:
			reason = errConflict
		case isMessage(ev):
			reason = errStray
		}
		u := s.fresh(UpdateIgnored)
		u.TaskID, u.Event, u.Err = s.taskID, out, reason
		return emit(u)
	}
	s.recordIDs(info, ev)
	s.state = obs.State
	base := Update{TaskID: s.taskID, ContextID: s.contextID, Timestamp: statusTime(ev), State: obs.State, Event: out}

	if obs.State != prev {
		if s.news.state(obs.State) {
			s.gained++
		}
		if !obs.Settled {
			if !emit(s.from(&base, UpdateState)) {
				return false
			}
		}
	}
	// obs.Settled is the class of the event's own state: the tracker has
	// just taken it.
	switch e := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		// No working update is discarded: its envelope, or its text as a
		// fallback, goes to the merge. A settling state's message is the
		// verdict, not progress.
		switch m := e.Status.Message; {
		case obs.Settled:
		case plain != nil:
			if !s.progress(&base, *plain, false, emit) {
				return false
			}
		case m != nil:
			if !s.progress(&base, envelope.FromMessage(m), false, emit) {
				return false
			}
		}
	case *a2a.Task:
		if !emit(s.from(&base, UpdateSnapshot)) || !s.backfill(&base, e, obs.Settled, emit) {
			return false
		}
	case *a2a.TaskArtifactUpdateEvent:
		if !obs.Progress {
			if s.news.artifact(e) {
				s.gained++
			}
			if !emit(s.from(&base, UpdateArtifact)) {
				return false
			}
		}
	case *a2a.Message:
		if !emit(s.from(&base, UpdateMessage)) {
			return false
		}
	}
	// Artifacts the progress seam routed away during Observe: a live
	// update, or the artifacts of a snapshot (a backfill).
	_, snapshot := ev.(*a2a.Task)
	for i := range obs.Routed {
		routed := base
		routed.Event = obs.Routed[i].Event
		if !s.progress(&routed, obs.Routed[i].Reading, snapshot, emit) {
			return false
		}
	}
	if obs.Settled {
		s.settled = true
		s.mu.Lock()
		op := s.turnLocked().Seal()
		s.mu.Unlock()
		u := s.from(&base, UpdateState)
		u.Change = merge.Change{Op: op}
		if !emit(u) {
			return false
		}
		u.Type = UpdateResult
		s.setResultOp(u)
		return emit(u)
	}
	return true
}

// setResultOp sets u.Change to the result op of the turn: the verdict of
// Stream.Outcome (an incomplete one when the turn did not settle) as a
// schema.Result, with the turn's counters. It writes through u so that
// no caller's frame holds the op (280 bytes): iterate calls it.
func (s *Stream) setResultOp(u *Update) {
	var o terminal.Outcome
	if s.settled {
		o, _ = s.tracker.Outcome()
	} else {
		o, _ = s.Outcome()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u.Change = merge.Change{Op: s.turnLocked().ResultOp(o.Result())}
}

// progress merges one reading and reports it. A backfill reports only
// what the merge did not already have: replaying a history is expected to
// be mostly duplicates.
//
// After a resubscription, until it brings news, a fallback whose text the
// turn already shows is the peer's replay of it under a fresh message id
// (its only identity) and is not merged again (PROTOCOL.md §3.2): the
// view does not grow by the same lines on every round. On a first stream,
// and once the resubscription brought news, a text repeated is shown as
// sent.
func (s *Stream) progress(base *Update, r envelope.Reading, backfill bool, emit emitFunc) bool {
	var ch merge.Change
	if s.replaying && s.gained == s.replayGained && s.news.replayed(r) {
		ch.Effect = merge.Duplicate
	} else {
		s.mu.Lock()
		ch = s.turnLocked().ApplyAt(r, base.Timestamp)
		s.mu.Unlock()
	}
	if s.news.reading(r, ch) {
		s.gained++
	}
	if ch.Effect == merge.DroppedCap && !s.capSaid {
		s.sayCap(ch.Cap)
	}
	if backfill && ch.Effect == merge.Duplicate {
		return true
	}
	u := s.from(base, UpdateProgress)
	u.Reading = r
	u.Change = ch
	u.Backfill = backfill
	return emit(u)
}

// sayCap logs (at info level: a caller that shows it, like a2a-tail,
// words its own notice), once per turn, that a cap started dropping
// blocks: which one; the view's counters (DroppedByCap) say how many in
// the end.
func (s *Stream) sayCap(c merge.Cap) {
	s.capSaid = true
	b := s.caps.Budget
	s.c.cfg.logger.LogAttrs(s.ctx, slog.LevelInfo, "a2a turn cap reached: newer blocks are dropped and counted (droppedByCap)",
		slog.String("task", string(s.TaskID())), slog.String("cap", string(c)),
		slog.Int64("budgetUsed", b.Used()), slog.Int64("budgetLimit", b.Limit()))
}

// backfill scans a Task — a resubscription's snapshot, a GetTask result —
// for the envelopes of this turn: the agent messages of its history after
// the last user message (earlier ones belong to earlier turns on the same
// task), then its current status message while the task is in progress.
// a2a-go moves each working status message into the history when the next
// status replaces it, so this recovers what a cut made us miss; the merge
// makes the replay duplicate-free.
//
// The same rule puts the previous turn's settling message — the question
// of an input-required turn that this turn responds to — right *after* this
// turn's user message: it was still the status message when the response
// arrived, and moved into the history when this turn's first status
// replaced it. So in a continuing turn (the user message is not the
// history's first), the agent message right after it is skipped when it
// carries no envelope at all: a question is not progress, and a working
// update that carries an envelope is never mistaken for one. What this
// can miss — a first working update of plain text after an interrupt
// without a message, cut before it arrived live — is far narrower than
// the stale question it keeps out of every resumed continuing turn.
//
// settled says that t's state has settled the turn: its status message is
// then the verdict's, not progress.
func (s *Stream) backfill(base *Update, t *a2a.Task, settled bool, emit emitFunc) bool {
	h := t.History
	start := 0
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] != nil && h[i].Role == a2a.MessageRoleUser {
			start = i + 1
			break
		}
	}
	if start > 1 && start < len(h) {
		if m := h[start]; m != nil && m.Role == a2a.MessageRoleAgent && envelope.FromMessage(m).Reason == envelope.ReasonNoEnvelope {
			start++
		}
	}
	// The status message of a settled task is the verdict's (the reply, the
	// reason, the question), not progress. a2a-go keeps it out of the
	// history, but other servers (the JS SDK) store it there too.
	var verdictID string
	if m := t.Status.Message; m != nil && settled {
		verdictID = m.ID
	}
	for _, m := range h[start:] {
		if m == nil || m.Role != a2a.MessageRoleAgent || (verdictID != "" && m.ID == verdictID) {
			continue
		}
		if !s.progress(base, envelope.FromMessage(m), true, emit) {
			return false
		}
	}
	if m := t.Status.Message; m != nil && !settled {
		return s.progress(base, envelope.FromMessage(m), true, emit)
	}
	return true
}

// recordIDs records the task and context the events name, and the turn's id
// when the first event is a Task (see Stream.Turn).
func (s *Stream) recordIDs(info a2a.TaskInfo, ev a2a.Event) {
	if (s.taskID != "" || info.TaskID == "") && (s.contextID != "" || info.ContextID == "") && (s.turnID != "" || s.turn != nil) {
		return
	}
	s.mu.Lock()
	if s.taskID == "" {
		s.taskID = info.TaskID
	}
	if s.contextID == "" {
		s.contextID = info.ContextID
	}
	if s.turnID == "" && s.turn == nil {
		if t, ok := ev.(*a2a.Task); ok {
			s.turnID = openingMessage(t)
		}
	}
	s.mu.Unlock()
}

// openingMessage returns the id of the last user message of t's history:
// the message that opened the task's current turn; "" when there is none,
// or when its id is longer than a receiver takes (envelope.MaxIdentBytes).
func openingMessage(t *a2a.Task) string {
	for i := len(t.History) - 1; i >= 0; i-- {
		if m := t.History[i]; m != nil && m.Role == a2a.MessageRoleUser {
			if len(m.ID) > envelope.MaxIdentBytes {
				return ""
			}
			return m.ID
		}
	}
	return ""
}

// turnLocked returns the merge turn, opening it on first use: its id is
// the turn's, or "task:" + the task id (merge.NewTurn's default) when nothing named the turn.
// s.mu held.
func (s *Stream) turnLocked() *merge.Turn {
	if s.turn == nil {
		s.turn = merge.NewTurn(string(s.taskID), s.turnID, s.caps)
	}
	return s.turn
}

// statusTime reads the clock only for events without a status timestamp:
// a working update carries one, and time.Now is a measurable share of the
// per-event cost (BENCHMARKS.md, pipeline).
func statusTime(ev a2a.Event) time.Time {
	var ts *time.Time
	switch e := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		ts = e.Status.Timestamp
	case *a2a.Task:
		ts = e.Status.Timestamp
	}
	if ts != nil && !ts.IsZero() {
		return *ts
	}
	return time.Now()
}

func isMessage(ev a2a.Event) bool {
	_, ok := ev.(*a2a.Message)
	return ok
}
