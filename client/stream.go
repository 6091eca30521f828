package client

import (
	"cmp"
	"context"
	"errors"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/heldcall"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// UpdateType says what an [Update] reports.
type UpdateType int

// The kinds of updates.
const (
	// UpdateProgress: one envelope, or its text fallback, from a working
	// status update (or, with Backfill, from a Task's history), and what
	// the merge did with it. Every working update with a message yields
	// one, duplicates included; a backfill yields only what was new.
	UpdateProgress UpdateType = iota + 1
	// UpdateState: the task's state changed. When the turn settles
	// (terminal or interrupted state), Change.Op is the merge's seal op and
	// the stream ends after this update.
	UpdateState
	// UpdateArtifact: an artifact update that is output (see
	// [WithArtifactProgress] for those that are progress).
	UpdateArtifact
	// UpdateMessage: a Message event — a direct reply that completes the
	// turn, or a stray message after a task (ignored by the verdict).
	UpdateMessage
	// UpdateReconnect: a diagnostic. The stream was cut (Err says how) and
	// the client is about to resume: Attempt counts from 1.
	UpdateReconnect
	// UpdateIgnored: a diagnostic. An event the turn cannot use — another
	// task's, or one after a terminal state; Err says why.
	UpdateIgnored
	// UpdateSnapshot: a Task arrived whole — the first event of a send or
	// a subscription (after a cut: the stream is live again), a GetTask
	// result, a poll. Event is the *a2a.Task; the envelopes of its history
	// that were new follow as UpdateProgress with Backfill set.
	UpdateSnapshot
	// UpdateResult: the turn's verdict as a result op (Change.Op, whose
	// Result is the schema.Result of Stream.Outcome). It follows the
	// settling UpdateState and is the last update of a settled turn; a
	// turn that cannot be brought to an end gets one too, with verdict
	// incomplete, right before the stream's error.
	UpdateResult
)

// String returns the lower-case name of t ("progress", "state", …).
func (t UpdateType) String() string {
	switch t {
	case UpdateProgress:
		return "progress"
	case UpdateState:
		return "state"
	case UpdateArtifact:
		return "artifact"
	case UpdateMessage:
		return "message"
	case UpdateReconnect:
		return "reconnect"
	case UpdateIgnored:
		return "ignored"
	case UpdateSnapshot:
		return "snapshot"
	case UpdateResult:
		return "result"
	}
	return "unknown"
}

// Update is one thing a [Stream] reports. Fields that do not apply to its
// Type are zero.
type Update struct {
	// Type says what the update reports.
	Type UpdateType
	// TaskID and ContextID are the A2A context of the update ("" before
	// any event named them).
	TaskID    a2a.TaskID
	ContextID string
	// Timestamp is the status timestamp of the event when it has one,
	// otherwise the time the event was received.
	Timestamp time.Time
	// State is the task's state after the update (canonical A2A 1.0 names).
	State a2a.TaskState
	// Reading is the envelope or text fallback of an UpdateProgress.
	Reading envelope.Reading
	// Change is what the merge did with Reading (UpdateProgress), the
	// seal op of a settling UpdateState, or the result op of an
	// UpdateResult (in Change.Op). [Update.Op] picks the op to forward.
	Change merge.Change
	// Backfill reports an UpdateProgress recovered from a Task's history
	// or current status (a resubscription's snapshot, GetTask), not from a
	// live event.
	Backfill bool
	// Event is the raw a2a-go event the update came from (nil for an
	// UpdateReconnect). It is shared: do not modify it. It is nil too on
	// the updates of a plain progress frame unless [WithEvents] asks for
	// it: the client reads those without building an a2a-go event.
	Event a2a.Event
	// Attempt numbers the resume attempts of an UpdateReconnect.
	Attempt int
	// Err is the cause of an UpdateReconnect or the reason of an
	// UpdateIgnored.
	Err error
}

// Op returns the op of u that a front end needs, and true; false when u
// carries none. Those are: the block of an UpdateProgress that the merge
// applied (a duplicate or a refused block changes nothing), the seal op of
// the settling UpdateState, and the result op of an UpdateResult. Every op
// names its task and turn (see [Stream.Turn]), and a block op carries at:
// the event's status timestamp when it has one, else its arrival time (for
// a block from a Task's history, the Task's status timestamp). So
// forwarding a turn is one line:
//
//	if op, ok := u.Op(); ok {
//		forward(op) // e.g. json.Marshal(op) as one NDJSON line
//	}
func (u Update) Op() (schema.Op, bool) {
	switch u.Type {
	case UpdateProgress:
		return u.Change.Op, u.Change.Effect == merge.Applied
	case UpdateState, UpdateResult:
		return u.Change.Op, u.Change.Op.Type != ""
	}
	return schema.Op{}, false
}

type mode int

const (
	modeSend mode = iota
	modeFollow
	modePoll
	modeReplay
)

// Stream is one turn of one task: its updates as they arrive, then its
// outcome and its merged view. It is a single pass: iterate it once, with
// [Stream.Updates] or [Stream.Run]. [Stream.View] may be called from any
// goroutine at any time; the other methods belong to the iterating one.
type Stream struct {
	c        *Client
	ctx      context.Context
	mode     mode
	req      *a2a.SendMessageRequest
	interval time.Duration
	caps     merge.Caps
	// events is what a Replay stream plays.
	events iter.Seq2[a2a.Event, error]

	tracker *terminal.Tracker

	mu        sync.Mutex     // guards turn, turnID, taskID, contextID, finished, err, call
	turn      *merge.Turn    // opened on first use, by turnLocked
	turnID    string         // "" until known (see Stream.Turn)
	call      *heldcall.Call // the call Send opened, until the iteration takes it
	taskID    a2a.TaskID
	contextID string
	finished  bool
	err       error

	state    a2a.TaskState // last state, canonical
	settled  bool
	attempts int
	// gained counts what the peer brought that the turn did not have (see
	// news): a block, a state the turn had not reached, an output
	// artifact not seen before. A resume attempt that moves it starts a
	// fresh count.
	gained int
	news   news
	// replaying: a resubscription is under way that has brought no news
	// yet (gained still replayGained); see Stream.progress.
	replaying    bool
	replayGained int
	// resub bounds the resubscriptions of the turn in all and per minute.
	resub resubscribes
	// capSaid: the once-per-turn log line that a cap drops blocks is out.
	capSaid bool
	// deadline ends the retry window of WithRetryFor (zero: none): no
	// resume call outlasts it.
	deadline time.Time
	// lastCut is the cause of the latest cut resume handles, said with an
	// incurable GetTask error (endIncurable): why the turn needed GetTask.
	lastCut error
	// window ends the subscription under way at the deadline unless
	// stopped: by news (pull).
	window *time.Timer
	// history shrinks what GetTask asks for after an oversize response.
	history historyBound
	used    atomic.Bool
	// out is the update being delivered: every emit passes a pointer to
	// it, and only the delivery copies it into the caller's loop (see
	// iterate). Only the iterating goroutine touches it.
	out Update
}

// fresh clears the outgoing update and returns it, with the stream's ids
// and state.
func (s *Stream) fresh(t UpdateType) *Update {
	s.out = Update{}
	u := &s.out
	u.Type, u.TaskID, u.ContextID, u.State, u.Timestamp = t, s.TaskID(), s.contextID, s.state, time.Now()
	return u
}

// from sets the outgoing update to *base with type t and returns it.
func (s *Stream) from(base *Update, t UpdateType) *Update {
	s.out = *base
	s.out.Type = t
	return &s.out
}

func (c *Client) newStream(ctx context.Context, m mode, taskID a2a.TaskID, req *a2a.SendMessageRequest, interval time.Duration) *Stream {
	s := &Stream{c: c, ctx: ctx, mode: m, req: req, interval: interval, taskID: taskID}
	if req != nil && req.Message != nil {
		s.turnID = req.Message.ID
	}
	s.caps = merge.DefaultCaps()
	if c.cfg.capsSet {
		s.caps = c.cfg.caps
	}
	// One byte budget for everything the turn keeps — the merge and the
	// artifacts — under the client's: given back when the stream is
	// collected (the budget does not reference the stream).
	if s.caps.Budget == nil {
		perTurn := s.caps.MaxTurnBytes
		if c.cfg.turnBytes > 0 || perTurn <= 0 {
			perTurn = cmp.Or(c.cfg.turnBytes, merge.DefaultMaxTurnBytes)
		}
		s.caps.Budget = merge.NewBudget(perTurn, c.budget)
		runtime.AddCleanup(s, (*merge.Budget).ReleaseAll, s.caps.Budget)
	}
	// The one place where an artifact update is classified: the tracker
	// asks for every update and every snapshot artifact, keeps those that
	// are progress out of the outcome and hands them back in the
	// Observation (handle merges them).
	s.tracker = terminal.NewTracker(terminal.WithArtifactProgress(c.cfg.artifactHook()),
		terminal.WithLimits(terminal.Limits{Budget: s.caps.Budget}))
	return s
}

// turnBudget returns the byte budget of the stream's turn (see
// [WithTurnBudget]): what its merge and its artifacts hold now, and its
// limit.
func (s *Stream) turnBudget() *merge.Budget { return s.caps.Budget }

// TaskID returns the task of the stream: the one followed or polled, or
// for [Client.Send] the one the first event named — known when Send
// returns, "" when that event named none (the agent responded with a
// Message, or the call failed: the iteration says which).
func (s *Stream) TaskID() a2a.TaskID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taskID
}

// Turn returns the id of the stream's turn, which every op of the stream
// carries (Op.Turn): the messageId of the user message that opened the
// turn. For [Client.Send] that is the message sent, known at once. For
// [Client.Follow] and [Client.Poll] (and [Replay]) it is read from the
// first Task snapshot: the last user message of its history, so that two
// processes following one task name its turns alike; "" before that
// snapshot. When the first event is not a Task, or its history holds no
// user message with an id (a peer that keeps no history, or a history
// bounded by [WithHistoryLength] that no longer reaches it), the turn is
// "task:" + the task id (merge.NewTurn's default) — also derived from the task, but shared by
// every such turn of it (PROTOCOL.md §3.3). A Replay given [WithTurn]
// has the turn it names, known at once.
func (s *Stream) Turn() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turnID == "" && s.turn != nil {
		return s.turn.ID()
	}
	return s.turnID
}

// View returns a snapshot of the merged progress so far. It is safe to
// call from any goroutine, during and after the iteration; each call
// copies the view, so call it when you render, not per update.
func (s *Stream) View() schema.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turn == nil {
		return merge.NewTurn(string(s.taskID), s.turnID, s.caps).View()
	}
	return s.turn.View()
}

// Updates returns the updates of the turn as they arrive. The sequence
// ends after the settling UpdateState (terminal or interrupted state) and
// the UpdateResult that follows it, or with a non-nil error as its last
// element when the turn cannot be brought to an end: an [*IncompleteError]
// (errors.Is [ErrIncomplete]), or the context's error — then right after
// an UpdateResult whose verdict is incomplete. A failed, rejected or
// canceled task is not a stream error: the sequence ends normally and
// [Stream.Outcome] returns the verdict.
//
// Breaking out of the loop stops the stream: the connection is closed and
// no goroutine is left behind. The sequence can be iterated once; a second
// iteration yields [ErrStreamUsed].
func (s *Stream) Updates() iter.Seq2[Update, error] {
	return func(yield func(Update, error) bool) {
		s.iterate(func(u *Update, err error) bool { return yield(*u, err) })
	}
}

// deliverFunc hands one update, or the stream's final error, to the
// caller's loop.
type deliverFunc func(u *Update, err error) bool

// iterate is the body of Updates. The caller's loop and iterate sit under
// every blocking read of the stream, on each of possibly thousands of
// goroutines, so their frames are kept small: an Update is 600-odd bytes,
// and a call that passes one by value needs that much room in the frame
// of its caller. So updates travel by pointer (to Stream.out), and the
// one copy into the caller's loop is made by deliver, whose frame exists
// only while it delivers.
func (s *Stream) iterate(deliver deliverFunc) {
	if !s.used.CompareAndSwap(false, true) {
		s.out = Update{}
		deliver(&s.out, ErrStreamUsed)
		return
	}
	stopped := false
	emit := func(u *Update) bool {
		if !deliver(u, nil) {
			stopped = true
			return false
		}
		return true
	}
	var err error
	if s.mode == modeFollow {
		err = s.resume(nil, emit) // drive's case, one frame less under the blocked read
	} else {
		err = s.drive(emit)
	}
	if stopped {
		err = errStopped
	}
	s.mu.Lock()
	s.finished, s.err = true, err
	s.mu.Unlock()
	if err != nil && !stopped {
		s.endIncomplete(deliver, err)
	}
}

// endIncomplete ends a turn that did not settle: its result op (verdict
// incomplete), then err.
func (s *Stream) endIncomplete(deliver deliverFunc, err error) {
	u := s.fresh(UpdateResult)
	s.setResultOp(u)
	if deliver(u, nil) {
		u.Type, u.Change = 0, merge.Change{}
		deliver(u, err)
	}
}

// errStopped records that the consumer stopped the iteration.
var errStopped = errors.New("client: the caller stopped the stream before the turn settled")

// Run iterates the stream, calling fn for each update, and returns the
// outcome — the callback style for orchestrators. An error from fn stops
// the stream; Run returns it.
func (s *Stream) Run(fn func(Update) error) (terminal.Outcome, error) {
	var ferr error
	for u, err := range s.Updates() {
		if err != nil {
			break
		}
		if ferr = fn(u); ferr != nil {
			break
		}
	}
	if ferr != nil {
		o, _ := s.Outcome()
		return o, ferr
	}
	return s.Outcome()
}

// Outcome returns the verdict of the turn once the iteration is over. It
// comes from the terminal state only (package terminal): the reply for
// completed, an Interrupt for input-required and auth-required, and a
// *terminal.VerdictError for failed, rejected and canceled. When the turn
// did not settle, it returns the stream's error — an [*IncompleteError],
// the context's error, or, when the caller stopped the iteration early,
// [ErrNotFinished] — never a success. Before the iteration ends it returns
// [ErrNotFinished].
func (s *Stream) Outcome() (terminal.Outcome, error) {
	s.mu.Lock()
	finished, err := s.finished, s.err
	s.mu.Unlock()
	o, terr := s.tracker.Outcome()
	switch {
	case !finished:
		o.Err = ErrNotFinished
		return o, ErrNotFinished
	case s.settled:
		return o, terr
	case errors.Is(err, errStopped):
		o.Err = ErrNotFinished
		return o, ErrNotFinished
	case err != nil:
		o.Err = err
		return o, err
	}
	// Unreachable: drive ends settled or with an error. Never a success.
	o.Err = &IncompleteError{TaskID: o.TaskID, State: o.State, Err: terr}
	return o, o.Err
}
