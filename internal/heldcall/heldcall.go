// Package heldcall holds a streaming call that was opened and pulled up to
// its first event before anyone iterates it: client.Client.Send opens the
// SendStreamingMessage call so that the task id is known when Send
// returns, and the stream's iteration later takes the call over and goes
// on from the same event — the message is still sent once.
//
// Until it is taken, the call is idle, and released — its connection
// closed, its pulled iterator's goroutine ended — by whichever comes
// first of the releases its owner hooks on (CloseIdle): the end of a
// context, the client's Close, the garbage collection of a stream dropped
// without either. A Call references nothing of its owner, so that a
// dropped owner can be collected.
package heldcall

import (
	"context"
	"iter"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/idle"
)

// Call is a streaming call pulled up to its first event.
type Call struct {
	w      *idle.Watchdog
	cancel context.CancelFunc
	next   func() (a2a.Event, error, bool)
	stop   func()
	// first is what the first pull returned: an event, the call's error,
	// or nothing (ok false: the stream ended without an event).
	first    a2a.Event
	firstErr error
	ok       bool

	// mu guards taken, closed and unhook: the idle releases race with the
	// take.
	mu     sync.Mutex
	taken  bool
	closed bool
	// unhook undoes what watches the idle call (Hook).
	unhook func()
}

// Open pulls events up to their first one and holds the rest. w is the
// call's idle watchdog (nil: none), paused from here until Take: the wait
// is then the caller's, not the peer's silence. cancel ends the call's
// context; Close calls it.
func Open(events iter.Seq2[a2a.Event, error], w *idle.Watchdog, cancel context.CancelFunc) *Call {
	next, stop := iter.Pull2(events)
	ev, err, ok := next()
	w.Pause()
	return &Call{w: w, cancel: cancel, next: next, stop: stop, first: ev, firstErr: err, ok: ok}
}

// First returns what the first pull returned: an event, the call's error,
// or ok false when the stream ended without an event.
func (c *Call) First() (ev a2a.Event, err error, ok bool) { return c.first, c.firstErr, c.ok }

// Hook sets what undoes the owner's watches of the idle call (a context's
// AfterFunc, a client's set of idle calls); the release runs it. A call
// already released runs it at once.
func (c *Call) Hook(unhook func()) {
	c.mu.Lock()
	if !c.closed || c.taken {
		c.unhook = unhook
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	unhook()
}

// Take makes the call its taker's, unless an idle release closed it; the
// watchdog runs again. The taker must Close the call.
func (c *Call) Take() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.taken = true
	c.w.Resume()
	return true
}

// Watchdog returns the call's idle watchdog (nil: none).
func (c *Call) Watchdog() *idle.Watchdog { return c.w }

// CloseIdle releases the call unless it was taken: the taker closes it
// (it may be pulling, and a pulled iterator must not be stopped from
// another goroutine meanwhile).
func (c *Call) CloseIdle() {
	c.mu.Lock()
	if c.taken || c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	c.release()
}

// Events replays the pulled first event, then pulls the rest.
func (c *Call) Events() iter.Seq2[a2a.Event, error] {
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

// Close ends a taken call: the pulled iterator returns, which closes the
// connection, and the watchdog stops. A nil Call does nothing.
func (c *Call) Close() {
	if c == nil {
		return
	}
	c.release()
}

// release ends the call: the pulled iterator returns, which closes the
// connection, the watchdog stops, and nothing watches the call any more.
func (c *Call) release() {
	c.stop()
	c.cancel()
	c.mu.Lock()
	unhook := c.unhook
	c.unhook = nil
	c.mu.Unlock()
	if unhook != nil {
		unhook()
	}
}
