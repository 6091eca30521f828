package client

import (
	"context"
	"errors"
	"iter"
	"runtime"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// sendCall is the SendStreamingMessage call that [Client.Send] opened and
// pulled up to its first event, so that the task id is known when Send
// returns. The iteration takes it over: its first attempt goes on with the
// same call, from the same event — the message is still sent once.
//
// Until the iteration takes it, the call is idle, and released — its
// connection closed, its pulled iterator's goroutine ended — by whichever
// comes first: [Stream.Close], the end of the stream's context,
// [Client.Close], or the garbage collection of a Stream dropped without
// either. So the call references nothing of its Stream.
type sendCall struct {
	w      *watchdog
	cancel context.CancelFunc
	next   func() (a2a.Event, error, bool)
	stop   func()
	// first is what the first pull returned: an event, the call's error,
	// or nothing (ok false: the stream ended without an event).
	first    a2a.Event
	firstErr error
	ok       bool

	// mu guards taken and closed: the idle releases race with the take.
	mu     sync.Mutex
	taken  bool
	closed bool
	// unhook undoes what watches the idle call (the context's AfterFunc,
	// the client's set of idle calls).
	unhook func()
}

// readAhead opens the send call and pulls its first event. The first
// event of an A2A stream is the Task (or a status update naming it), or a
// Message that creates no task; either way nothing later names the task
// sooner. The event itself is handled by the iteration, in order.
func (s *Stream) readAhead() {
	ctx, w, cancel := withWatchdog(s.c.callCtx(s.ctx), s.c.cfg.idle)
	next, stop := iter.Pull2(s.c.a2a.SendStreamingMessage(ctx, s.req))
	ev, err, ok := next()
	// From here until the caller iterates, the wait is the caller's, not
	// the peer's silence.
	w.pause()
	call := &sendCall{w: w, cancel: cancel, next: next, stop: stop, first: ev, firstErr: err, ok: ok}
	s.call = call
	// The idle call's releases: none of them references s, so that a
	// dropped Stream can be collected (and its cleanup release the call).
	untrack := s.c.track(call)
	stopAfter := context.AfterFunc(s.ctx, call.closeIdle)
	call.unhook = func() { stopAfter(); untrack() }
	runtime.AddCleanup(s, (*sendCall).closeIdle, call)
	if ok && err == nil {
		if id := ev.TaskInfo().TaskID; id != "" {
			s.mu.Lock()
			if s.taskID == "" {
				s.taskID = id
			}
			s.mu.Unlock()
		}
	}
}

// sendAttempt is the first attempt of a send: the call readAhead opened,
// from its first event on.
func (s *Stream) sendAttempt(emit emitFunc) attemptResult {
	call := s.takeCall()
	if call == nil {
		// Released while idle: the context ended, or the client closed.
		final := errClientClosed
		if s.ctx.Err() != nil {
			final = s.ctxErr()
		}
		return attemptResult{done: true, final: final}
	}
	defer call.close()
	call.w.resume()
	return s.pull(call.events(), call.w, emit)
}

// takeCall hands the open call over to its one user: the iteration or
// [Stream.Close].
// It returns nil when there is none, or when an idle release closed it.
func (s *Stream) takeCall() *sendCall {
	s.mu.Lock()
	call := s.call
	s.call = nil
	s.mu.Unlock()
	if call == nil || !call.take() {
		return nil
	}
	return call
}

// take makes the call its taker's, unless an idle release closed it.
func (c *sendCall) take() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.taken = true
	return true
}

// closeIdle releases the call unless it was taken: the taker closes it
// (it may be pulling, and a pulled iterator must not be stopped from
// another goroutine meanwhile).
func (c *sendCall) closeIdle() {
	c.mu.Lock()
	if c.taken || c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	c.release()
}

// events replays the pulled first event, then pulls the rest.
func (c *sendCall) events() iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		ev, err, ok := c.first, c.firstErr, c.ok
		for ok {
			if !yield(ev, err) || err != nil {
				return
			}
			ev, err, ok = c.next()
		}
	}
}

// close ends the call: the pulled iterator returns, which closes the
// connection, and the watchdog stops.
func (c *sendCall) close() {
	if c == nil {
		return
	}
	c.release()
}

// release ends the call: the pulled iterator returns, which closes the
// connection, the watchdog stops, and nothing watches the call any more.
func (c *sendCall) release() {
	c.stop()
	c.cancel()
	if c.unhook != nil {
		c.unhook()
	}
}

// errClientClosed ends a stream whose idle call [Client.Close] released.
var errClientClosed = errors.New("client: closed before the stream was iterated")

// Close releases a stream that will not be iterated to its end. A stream
// from [Client.Send] holds its call open from Send on, waiting for the
// iteration; Close ends that call (the task itself goes on: cancel it
// with [Client.Cancel]). A stream not yet iterated is used up by Close: a
// later iteration yields [ErrStreamUsed], and Outcome returns
// [ErrNotFinished]. After an iteration, Close does nothing. It must not be
// called while another goroutine iterates the stream — cancel the
// stream's context instead. It always returns nil.
func (s *Stream) Close() error {
	if s.used.CompareAndSwap(false, true) {
		s.mu.Lock()
		s.finished, s.err = true, errStopped
		s.mu.Unlock()
	}
	s.takeCall().close()
	return nil
}
