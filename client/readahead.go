package client

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// sendCall is the SendStreamingMessage call that [Client.Send] opened and
// pulled up to its first event, so that the task id is known when Send
// returns. The iteration takes it over: its first attempt goes on with the
// same call, from the same event — the message is still sent once.
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
	s.call = &sendCall{w: w, cancel: cancel, next: next, stop: stop, first: ev, firstErr: err, ok: ok}
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
	defer call.close()
	call.w.resume()
	return s.pull(call.events(), call.w, emit)
}

// takeCall hands the open call over to its one user: the iteration or
// [Stream.Close].
func (s *Stream) takeCall() *sendCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	call := s.call
	s.call = nil
	return call
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
	c.stop()
	c.cancel()
}

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
