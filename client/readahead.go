package client

import (
	"context"
	"errors"
	"runtime"

	"github.com/tfrs/a2a-progress/internal/heldcall"
	"github.com/tfrs/a2a-progress/internal/transport"
)

// readAhead opens the send call and pulls its first event. The first
// event of an A2A stream is the Task (or a status update naming it), or a
// Message that creates no task; either way nothing later names the task
// sooner. The event itself is handled by the iteration, in order.
func (s *Stream) readAhead() {
	ctx, w, cancel := transport.WithWatchdog(s.c.callCtx(s.ctx), s.c.cfg.idle)
	// From the first event until the caller iterates, the wait is the
	// caller's, not the peer's silence: Open pauses the watchdog.
	call := heldcall.Open(s.c.a2a.SendStreamingMessage(ctx, s.req), w, cancel)
	ev, err, ok := call.First()
	s.call = call
	// The idle call's releases: none of them references s, so that a
	// dropped Stream can be collected (and its cleanup release the call).
	untrack := s.c.track(call)
	stopAfter := context.AfterFunc(s.ctx, call.CloseIdle)
	call.Hook(func() { stopAfter(); untrack() })
	runtime.AddCleanup(s, (*heldcall.Call).CloseIdle, call)
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
	defer call.Close()
	return s.pull(call.Events(), call.Watchdog(), emit)
}

// takeCall hands the open call over to its one user: the iteration or
// [Stream.Close].
// It returns nil when there is none, or when an idle release closed it.
func (s *Stream) takeCall() *heldcall.Call {
	s.mu.Lock()
	call := s.call
	s.call = nil
	s.mu.Unlock()
	if call == nil || !call.Take() {
		return nil
	}
	return call
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
	s.takeCall().Close()
	return nil
}
