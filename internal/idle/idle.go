// Package idle is the repository's one idle watchdog: it cancels a call's
// context, with the cause [ErrIdle], when nothing has arrived for a given
// time while the consumer does not hold an event. The client's A2A calls
// and v1query's stream both use it.
//
// Each received chunk (or event) only stores a timestamp ([Watchdog.Kick]);
// the timer re-arms itself for the remaining time, so the hot path costs
// one atomic store. Timestamps are monotonic offsets from the watchdog's
// start: a wall-clock step (NTP) cannot fire or mute it.
package idle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrIdle is the cause of a cut where nothing arrived for the idle timeout.
var ErrIdle = errors.New("no data for the idle timeout")

// Watchdog cancels a call when its peer is silent for its duration. A nil
// *Watchdog (no idle timeout) does nothing; every method accepts it.
type Watchdog struct {
	d      time.Duration
	cancel context.CancelCauseFunc
	base   time.Time
	last   atomic.Int64 // monotonic nanos since base of the last activity
	fired  atomic.Bool
	busy   atomic.Bool // the consumer holds the event: not the peer's silence

	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

// New returns a Watchdog that calls cancel(ErrIdle) after d of silence,
// counted from now, or nil when d ≤ 0. The caller must call Stop.
func New(d time.Duration, cancel context.CancelCauseFunc) *Watchdog {
	if d <= 0 {
		return nil
	}
	w := &Watchdog{d: d, cancel: cancel, base: time.Now()}
	w.Kick()
	w.t = time.AfterFunc(d, w.check)
	return w
}

// Kick records activity: bytes or an event arrived.
func (w *Watchdog) Kick() {
	if w != nil {
		w.last.Store(int64(time.Since(w.base)))
	}
}

// Pause suspends the watchdog while the consumer handles an event.
func (w *Watchdog) Pause() {
	if w != nil {
		w.busy.Store(true)
	}
}

// Resume restarts the silence count after Pause.
func (w *Watchdog) Resume() {
	if w != nil {
		w.Kick()
		w.busy.Store(false)
	}
}

func (w *Watchdog) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	idle := time.Since(w.base) - time.Duration(w.last.Load())
	if w.busy.Load() {
		idle = 0
	}
	if idle < w.d {
		w.t.Reset(w.d - idle)
		return
	}
	w.fired.Store(true)
	w.cancel(ErrIdle)
}

// Stop stops the watchdog; it never fires after Stop returns.
func (w *Watchdog) Stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.t.Stop()
	w.mu.Unlock()
}

// Fired reports whether the watchdog canceled the call.
func (w *Watchdog) Fired() bool { return w != nil && w.fired.Load() }

// Cause returns err, said to be the watchdog's doing when it fired: the
// transport reports a bare "context canceled", which does not tell the
// user that the peer went silent.
func (w *Watchdog) Cause(err error) error {
	if err != nil && w.Fired() && !errors.Is(err, ErrIdle) {
		return fmt.Errorf("%w: %w", ErrIdle, err)
	}
	return err
}
