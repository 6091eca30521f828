package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/tfrs/a2a-progress/internal/idle"
	"github.com/tfrs/a2a-progress/internal/transport"
)

// attemptResult says how one stream attempt (a send or a subscription)
// ended.
type attemptResult struct {
	// events is how many events the attempt delivered.
	events int
	// err is the cause of a cut: the transport error, errIdle, or
	// errCleanClose.
	err error
	// done: the stream is over — settled, stopped by the caller, or its
	// context ended; final is then the stream's error (nil when settled).
	done  bool
	final error
}

// emitFunc reports one update: u points at Stream.out (see iterate). It
// returns false when the consumer stopped.
type emitFunc func(u *Update) bool

// drive runs the turn to its end and returns nil when it settled.
func (s *Stream) drive(emit emitFunc) error {
	switch s.mode {
	case modePoll:
		return s.poll(emit)
	case modeFollow:
		return s.resume(nil, emit)
	case modeReplay:
		return s.replay(emit)
	}
	return s.send(emit)
}

// send runs a Send's turn to its end: its call, then a resume or an orphan
// search when it was cut.
func (s *Stream) send(emit emitFunc) error {
	res := s.sendAttempt(emit)
	if res.done {
		return res.final
	}
	if res.events == 0 {
		// No event of this turn arrived: there is nothing to resume, and
		// the message must not be sent again. A message to an existing
		// task (msg.TaskID) is no exception: that task's state is still
		// the previous turn's, and resolving it would report that turn's
		// verdict — a completed task's old reply — as this one's. An A2A
		// error is the agent's refusal; anything else leaves the
		// message's fate unknown.
		if refused(res.err) {
			return fmt.Errorf("client: send: %w", res.err)
		}
		if transport.Unsent(res.err) {
			// No connection, or its TLS handshake failed: the message
			// never reached the agent, so no task can exist.
			return fmt.Errorf("client: send: no connection to the agent, the message was not sent: %w", res.err)
		}
		return s.orphan(res.err, emit)
	}
	return s.resume(res.err, emit)
}

// resume brings a cut turn to its end: SubscribeToTask with exponential
// backoff and jitter; a subscription refused before its first event (the
// task has settled: a2a-go responds ErrTaskNotFound, others
// UnsupportedOperation or InvalidParams — the client does not rely on
// which) is followed by a GetTask. cause is nil when following: the first
// subscription is not a retry.
//
// Two bounds end it, both restarted by news (Stream.gained): the count of
// WithRetry, maxAttempts resubscriptions in a row without news; and, when
// WithRetryFor set one, the window, a deadline in wall time. With a
// window the count counts only the attempts that reached the task and
// brought a replay of what the turn has (a peer that cannot be reached
// is the window's to bound), and every call's own wait ends at the
// deadline: the window is a deadline, not a number of tries.
func (s *Stream) resume(cause error, emit emitFunc) error {
	cfg := &s.c.cfg
	attempt, replays := 0, 0
	opened := false // the window of the attempts since the last news is open
	if cfg.retryFor > 0 && cause == nil {
		s.deadline, opened = time.Now().Add(cfg.retryFor), true // a follow's first subscription is in the window too
	}
	for {
		if cause != nil {
			s.lastCut = cause
			if !opened && cfg.retryFor > 0 {
				s.deadline, opened = windowEnd(time.Now(), cause, cfg.idle, cfg.retryFor), true
			}
			attempt++
			s.attempts++
			made := attempt - 1 // resubscriptions without news
			if cfg.retryFor > 0 {
				made = replays
			}
			if made >= cfg.maxAttempts {
				if attempt == 1 {
					return s.lastResort(cause, emit) // no resubscription allowed
				}
				return s.lastResort(fmt.Errorf("%w in %d resubscription(s) in a row (a replay of what the turn has is not progress); last cut: %w",
					ErrNoProgress, made, cause), emit)
			}
			if err := s.windowSpent(cause); err != nil {
				return err
			}
			if err := s.reconnect(attempt, cause, emit); err != nil {
				return err
			}
			// Every resubscription counts against the turn's bounds,
			// whatever the peer brought.
			if done, err := s.rateResubscribe(cause); done {
				return err
			} else if err != nil {
				return s.lastResort(err, emit)
			}
			if err := s.windowSpent(cause); err != nil {
				return err
			}
		}
		gainedBefore := s.gained
		s.replaying, s.replayGained = cause != nil, s.gained
		var res attemptResult // filled in place: one copy of it in this frame, not two
		s.subscribe(emit, &res)
		s.replaying = false
		if res.done {
			return res.final
		}
		if res.err != nil {
			s.lastCut = res.err
		}
		switch {
		case res.events == 0:
			// Refused or failed before the snapshot: has the task settled?
			if done, final := s.refusedSubscription(emit); done {
				return final
			}
		case s.gained > gainedBefore:
			// The peer brought news (the snapshot's backfill counts): it
			// is making progress, so a later cut starts a fresh count. A
			// peer that only replays what the turn has — the snapshot and
			// old updates, then a close — does not, or it would be
			// resubscribed to forever.
			attempt, replays, opened = 0, 0, false // a later cut opens a fresh window
			s.deadline = time.Time{}
		default:
			replays++
		}
		cause = res.err
		if cause == nil {
			cause = errCleanClose
		}
	}
}

// minWindow is the least a window leaves after a cut is noticed, so that
// a stream whose silence outlasted most of the window still gets a
// resubscription.
const minWindow = 10 * time.Second

// windowEnd is the deadline of a retry window opened at now for cause: the
// cut happened when the stream went silent, so an idle cut (noticed idle
// after its last event) has spent that much of the window already — with
// the defaults a silent stream ends within 3 minutes of its last event, not
// 2 + 3. At least min(minWindow, retryFor) is left.
func windowEnd(now time.Time, cause error, idle, retryFor time.Duration) time.Time {
	start := now
	if errors.Is(cause, errIdle) {
		start = now.Add(-idle)
	}
	return maxTime(start.Add(retryFor), now.Add(min(minWindow, retryFor)))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// windowSpent returns the end of a turn whose retry window (WithRetryFor)
// has passed, nil while it lasts or when there is none. No last GetTask
// is asked: the window bounds every call, and each refused subscription
// was followed by one.
func (s *Stream) windowSpent(cause error) error {
	if s.deadline.IsZero() || time.Now().Before(s.deadline) {
		return nil
	}
	return &IncompleteError{TaskID: s.TaskID(), State: s.state, Attempts: s.attempts,
		Err: fmt.Errorf("%w within %v of the cut; last cut: %w", ErrNoProgress, s.c.cfg.retryFor, cause)}
}

// bounded returns ctx ending at the retry window's deadline, when one is
// set: no call outlasts the window.
func (s *Stream) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.deadline.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadlineCause(ctx, s.deadline, errRetryWindow)
}

// rateResubscribe holds a resubscription to the turn's bounds
// (WithResubscribeLimit): it waits while the last minute already saw
// the per-minute number, and refuses one past the per-turn number.
//
// A done result ends the stream with err (its context ended); a non-nil
// err alone is the refusal, for lastResort.
func (s *Stream) rateResubscribe(cause error) (done bool, err error) {
	cfg := &s.c.cfg
	d, ok := s.resub.wait(time.Now(), cfg.maxResubscribes, cfg.resubscribesPerMinute)
	if !ok {
		return false, fmt.Errorf("%w: %d resubscriptions this turn; last cut: %w", ErrResubscribeLimit, s.resub.total, cause)
	}
	if d > 0 {
		if err := s.sleep(d); err != nil {
			return true, err
		}
	}
	s.resub.record(time.Now(), cfg.resubscribesPerMinute)
	return false, nil
}

// The functions below are resume's cold paths, kept out of its frame: a
// Follow's goroutine spends its life blocked under resume, and what resume
// keeps in its frame (an Update for emit, slog attributes) is held on the
// stack of every such goroutine.

// subscribe is one subscription attempt: an attempt (see Stream.attempt)
// written out, so that one frame, not two, sits between resume and pull.
//
// The retry window ends a subscription that has brought no news by its
// deadline; once one brings news (pull stops s.window) it streams on for
// as long as the turn lasts.
func (s *Stream) subscribe(emit emitFunc, res *attemptResult) {
	ctx, cancelW := context.WithCancelCause(s.ctx)
	defer cancelW(nil)
	if !s.deadline.IsZero() {
		s.window = time.AfterFunc(time.Until(s.deadline), func() { cancelW(errRetryWindow) })
		defer func() {
			if s.window != nil {
				s.window.Stop()
				s.window = nil
			}
		}()
	}
	ctx, w, cancel := transport.WithWatchdog(s.c.callCtx(ctx), s.c.cfg.idle)
	defer cancel()
	req := &a2a.SubscribeToTaskRequest{ID: s.TaskID(), Tenant: s.c.cfg.tenant}
	*res = s.pull(s.c.a2a.SubscribeToTask(ctx, req), w, emit)
}

// reconnect reports the cut (UpdateReconnect) and waits out the backoff
// before resume's next attempt; a non-nil error ends the stream.
func (s *Stream) reconnect(attempt int, cause error, emit emitFunc) error {
	cfg := &s.c.cfg
	cfg.logger.LogAttrs(s.ctx, slog.LevelDebug, "a2a stream cut, resubscribing",
		slog.String("task", string(s.TaskID())), slog.String("state", s.state.String()),
		slog.Int("attempt", attempt), slog.String("cause", logText(cause)))
	u := s.fresh(UpdateReconnect)
	u.Attempt, u.Err = attempt, cause
	if !emit(u) {
		return errStopped
	}
	return s.sleep(backoff(attempt, cfg.baseBackoff, cfg.maxBackoff))
}

// refusedSubscription asks GetTask after a subscription that ended before
// its first event; done: the stream is over, with final as its error.
func (s *Stream) refusedSubscription(emit emitFunc) (done bool, final error) {
	done, final, gerr := s.resolve(emit)
	if done {
		return true, final
	}
	if errors.Is(gerr, a2a.ErrTaskNotFound) {
		return true, s.taskGone(gerr)
	}
	if incurable(gerr) {
		return true, s.endIncurable(gerr)
	}
	if gerr != nil {
		s.c.cfg.logger.LogAttrs(s.ctx, slog.LevelDebug, "a2a GetTask after a refused subscription failed",
			slog.String("task", string(s.TaskID())), slog.String("error", logText(gerr)))
	}
	return false, nil
}

// lastResort asks GetTask once more after the attempts ran out; a task
// that is still in progress, or unreachable, ends the stream incomplete.
func (s *Stream) lastResort(cause error, emit emitFunc) error {
	done, final, gerr := s.resolve(emit)
	if done {
		return final
	}
	if gerr != nil {
		cause = errors.Join(cause, gerr)
	}
	return &IncompleteError{TaskID: s.TaskID(), State: s.state, Attempts: s.attempts, Err: cause}
}

// resolve asks GetTask (with history) and feeds the task in like a
// snapshot: its history backfills the merge, its state may settle the turn.
func (s *Stream) resolve(emit emitFunc) (done bool, final error, err error) {
	task, err := s.getTask()
	if err != nil {
		if s.ctx.Err() != nil {
			return true, s.ctxErr(), err
		}
		return false, nil, err
	}
	if !s.handle(task, emit) {
		return true, errStopped, nil
	}
	if s.settled {
		return true, nil, nil
	}
	return false, nil, nil
}

// getTask asks GetTask for the task; a response over the bound is asked
// again at once with less history (see historyBound), down to none.
func (s *Stream) getTask() (*a2a.Task, error) {
	for {
		hl, err := s.history.next(s.c.cfg.historyLength)
		if err != nil {
			return nil, err
		}
		task, err := s.getTaskOnce(hl)
		if !errors.Is(err, ErrResponseTooLarge) || s.ctx.Err() != nil {
			return task, err
		}
	}
}

func (s *Stream) getTaskOnce(hl *int) (*a2a.Task, error) {
	ctx, cancelW := s.bounded(s.ctx)
	defer cancelW()
	ctx, cancel := s.c.unaryCtx(ctx)
	defer cancel()
	ctx, slot := transport.WithStatus(ctx)
	task, err := s.c.a2a.GetTask(ctx, &a2a.GetTaskRequest{ID: s.TaskID(), HistoryLength: hl, Tenant: s.c.cfg.tenant})
	return task, transport.TaskCallErr(s.history.observe(transport.GRPCTooLarge(transport.IdleCause(ctx, err))), slot)
}

// attempt pulls one event stream until it settles the turn, ends, fails,
// or goes silent for the idle timeout. The stream is pulled on the
// caller's goroutine: no goroutine, no channel, no copy per event.
func (s *Stream) attempt(open func(context.Context) iter.Seq2[a2a.Event, error], emit emitFunc) attemptResult {
	ctx, w, cancel := transport.WithWatchdog(s.c.callCtx(s.ctx), s.c.cfg.idle)
	defer cancel()
	return s.pull(open(ctx), w, emit)
}

// pull is the body of an attempt: events of one call, watched by w.
func (s *Stream) pull(events iter.Seq2[a2a.Event, error], w *idle.Watchdog, emit emitFunc) attemptResult {
	var res attemptResult
	for ev, err := range events {
		if err != nil {
			res.err = err
			break
		}
		res.events++
		// The consumer's time is not the peer's silence.
		w.Pause()
		gained := s.gained
		ok := s.handle(ev, emit)
		w.Resume()
		if s.window != nil && s.gained > gained {
			s.window.Stop() // news: the retry window no longer bounds this subscription
			s.window = nil
		}
		if !ok {
			return attemptResult{events: res.events, done: true, final: errStopped}
		}
		if s.settled {
			return attemptResult{events: res.events, done: true}
		}
	}
	switch {
	case s.ctx.Err() != nil:
		return attemptResult{events: res.events, done: true, final: s.ctxErr()}
	case w.Fired():
		res.err = errIdle
	case res.err == nil:
		res.err = errCleanClose
	}
	return res
}

// poll asks GetTask every interval until the task settles.
func (s *Stream) poll(emit emitFunc) error {
	cfg := &s.c.cfg
	fails := 0
	for {
		task, err := s.getTask()
		switch {
		case err == nil:
			fails = 0
			if !s.handle(task, emit) {
				return errStopped
			}
			if s.settled {
				return nil
			}
		case s.ctx.Err() != nil:
			return s.ctxErr()
		case errors.Is(err, a2a.ErrTaskNotFound):
			return s.taskGone(err)
		case incurable(err):
			return s.endIncurable(err)
		default:
			fails++
			s.attempts++
			if fails > cfg.maxAttempts {
				return &IncompleteError{TaskID: s.TaskID(), State: s.state, Attempts: s.attempts, Err: err}
			}
			cfg.logger.LogAttrs(s.ctx, slog.LevelDebug, "a2a poll failed, retrying",
				slog.String("task", string(s.TaskID())), slog.Int("attempt", fails), slog.String("error", logText(err)))
			u := s.fresh(UpdateReconnect)
			u.Attempt, u.Err = fails, err
			if !emit(u) {
				return errStopped
			}
			if err := s.sleep(backoff(fails, cfg.baseBackoff, cfg.maxBackoff)); err != nil {
				return err
			}
			continue
		}
		if err := s.sleep(s.interval); err != nil {
			return err
		}
	}
}

// sleep waits d or until the stream's context ends; never past the retry
// window's deadline.
func (s *Stream) sleep(d time.Duration) error {
	if !s.deadline.IsZero() {
		d = min(d, max0(time.Until(s.deadline)))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-s.ctx.Done():
		return s.ctxErr()
	}
}

func (s *Stream) ctxErr() error {
	return fmt.Errorf("client: task %q: %w", s.TaskID(), context.Cause(s.ctx))
}

// backoff is base·2^(attempt-1) capped at max, with jitter: a uniform
// draw in [d/2, d], so that callers cut at the same moment do not
// resubscribe in lockstep.
func backoff(attempt int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(d-half+1)
}

// refusals are the A2A errors with which an agent turns a request down.
var refusals = []error{
	a2a.ErrParseError, a2a.ErrInvalidRequest, a2a.ErrMethodNotFound, a2a.ErrInvalidParams,
	a2a.ErrTaskNotFound, a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType,
	a2a.ErrVersionNotSupported, a2a.ErrUnauthenticated, a2a.ErrUnauthorized,
	a2a.ErrExtensionSupportRequired, a2a.ErrPushNotificationNotSupported,
}

// incurable reports whether a GetTask error is one no retry can change:
// a response over the bound even without history (historyBound stopped
// asking), an operation the agent does not have, a refused credential.
// A task not found is the caller's (taskGone).
func incurable(err error) bool {
	return errors.Is(err, errHistoryStop) || errors.Is(err, a2a.ErrUnsupportedOperation) || errors.Is(err, a2a.ErrMethodNotFound) ||
		errors.Is(err, a2a.ErrUnauthenticated) || errors.Is(err, a2a.ErrUnauthorized)
}

// endIncurable ends the turn on a GetTask error that incurable reports.
func (s *Stream) endIncurable(err error) error {
	err = fmt.Errorf("GetTask: %w (no retry can change this)", err)
	if s.lastCut != nil {
		err = fmt.Errorf("%w; the cut it followed: %w", err, s.lastCut)
	}
	return &IncompleteError{TaskID: s.TaskID(), State: s.state, Attempts: s.attempts, Err: err}
}

// refused reports whether err is the agent's response, not a transport
// failure.
func refused(err error) bool {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}
