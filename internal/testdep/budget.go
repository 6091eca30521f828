package testdep

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	idlepkg "github.com/tfrs/a2a-progress/internal/idle"
)

// Slowness is how many times slower this process runs right now than the
// reference (an idle 2-core machine, in the same build: with or without
// -race), never below 1: the time a fixed piece of work takes now, divided
// by the time it took there. The work is plain Go — slice writes and
// arithmetic, instrumented by the race detector like the code under test —
// timed on the wall clock, so it counts everything that slows a test: other
// processes on the machine, the package's own parallel tests, the race
// detector. It is measured at most every [calibrationAge]; the factor is
// the largest of the last [calibrationWindow] (load comes and goes: budgets
// grow at once and shrink slowly), capped at [maxSlowness].
func Slowness() float64 {
	cal.Lock()
	defer cal.Unlock()
	now := time.Now()
	if len(cal.samples) == 0 || now.Sub(cal.samples[len(cal.samples)-1].at) > calibrationAge {
		took := calibrate()
		f := min(max(float64(took)/float64(referenceWork), 1), maxSlowness)
		cal.samples = append(cal.samples, sample{now, f})
		for len(cal.samples) > 1 && now.Sub(cal.samples[0].at) > calibrationWindow {
			cal.samples = cal.samples[1:]
		}
	}
	factor := 1.0
	for _, s := range cal.samples {
		factor = max(factor, s.factor)
	}
	return factor
}

const (
	// calibrationAge is how long one measurement of [Slowness] holds: load
	// changes during a run, and a measurement costs ~5 ms of one core.
	calibrationAge = 5 * time.Second
	// calibrationWindow is how far back measurements count.
	calibrationWindow = time.Minute
	// maxSlowness caps the factor, so that a budget still ends a hung test
	// well inside go test's default 10-minute timeout.
	maxSlowness = 8
)

// cal holds the recent measurements, oldest first (at most
// calibrationWindow/calibrationAge+1 of them).
var cal struct {
	sync.Mutex
	samples []sample
}

type sample struct {
	at     time.Time
	factor float64
}

// calibrate does the fixed work and returns how long it took.
func calibrate() time.Duration {
	buf := make([]uint64, 1<<12)
	start := time.Now()
	x := uint64(1)
	for range calibrationRounds {
		for j := range buf {
			x = x*6364136223846793005 + 1442695040888963407
			buf[j] ^= x
		}
	}
	runtime.KeepAlive(buf) // the work must not be optimised away
	return time.Since(start)
}

// Budget returns base — how long a piece of work may take on the reference
// machine before the test gives up on it, with headroom — scaled by
// [Slowness]: the budget grows with the load, so a busy machine is not a
// failure, while a hang still is.
func Budget(base time.Duration) time.Duration {
	return time.Duration(float64(base) * Slowness())
}

// ErrNoProgress is the cause ([context.Cause]) of a [Watchdog] context that
// ended because its test made no progress.
var ErrNoProgress = errors.New("testdep: no progress")

// watchdogs are the running watchdogs, by test.
var watchdogs = struct {
	sync.Mutex
	byTest map[testing.TB][]watchdog
}{byTest: make(map[testing.TB][]watchdog)}

// watchdog is the module's one idle watchdog ([idlepkg.Watchdog]), with a
// budget from [Budget] and [ErrNoProgress] as its cause.
type watchdog struct{ *idlepkg.Watchdog }

// Watchdog returns a context for t's work that ends — with cause
// [ErrNoProgress] — only when t has reported no [Progress] for
// [Budget](idle): a long run that keeps moving is never cut, a hang fails
// within the budget. The test fails then, saying so; the context also ends
// when the test does.
func Watchdog(t testing.TB, idle time.Duration) context.Context {
	t.Helper()
	ctx, w, stop := newWatchdog(idle)
	watchdogs.Lock()
	watchdogs.byTest[t] = append(watchdogs.byTest[t], w)
	watchdogs.Unlock()
	t.Cleanup(func() {
		watchdogs.Lock()
		delete(watchdogs.byTest, t)
		watchdogs.Unlock()
		if err := stop(); err != nil {
			t.Errorf("the test's context ended: %v", err)
		}
	})
	return ctx
}

// newWatchdog is a watchdog apart from any test; stop ends it and returns
// ErrNoProgress (wrapped) if it had fired. Its budget is [Budget](idle) as
// the machine is when it starts.
func newWatchdog(idle time.Duration) (context.Context, watchdog, func() error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	budget := Budget(idle)
	noProgress := fmt.Errorf("%w for %v (%v on an idle machine, scaled by its load)", ErrNoProgress, budget.Round(time.Millisecond), idle)
	w := watchdog{idlepkg.New(budget, func(error) { cancel(noProgress) })}
	return ctx, w, func() error {
		w.Stop()
		cancel(context.Canceled)
		if w.Fired() {
			return noProgress
		}
		return nil
	}
}

// Progress tells t's watchdogs ([Watchdog]) that t did some work: each
// waits its whole budget again. It does nothing where t has none.
func Progress(t testing.TB) {
	watchdogs.Lock()
	ws := watchdogs.byTest[t]
	watchdogs.Unlock()
	for _, w := range ws {
		w.progress()
	}
}

func (w watchdog) progress() { w.Kick() }
