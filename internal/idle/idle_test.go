package idle

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A silent peer: the context ends with ErrIdle as its cause, and Cause
// says so of the transport's bare error.
func TestFires(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	w := New(time.Millisecond, cancel)
	defer w.Stop()
	<-ctx.Done() // the signal: the watchdog canceled
	if !errors.Is(context.Cause(ctx), ErrIdle) || !w.Fired() {
		t.Fatalf("cause %v, fired %v; want ErrIdle, true", context.Cause(ctx), w.Fired())
	}
	if err := w.Cause(context.Canceled); !errors.Is(err, ErrIdle) || !errors.Is(err, context.Canceled) {
		t.Errorf("Cause = %v, want both ErrIdle and the transport's error", err)
	}
}

// No idle timeout: nil, and every method a no-op.
func TestNil(t *testing.T) {
	w := New(0, func(error) { t.Error("canceled without a timeout") })
	if w != nil {
		t.Fatalf("New(0) = %v, want nil", w)
	}
	w.Kick()
	w.Pause()
	w.Resume()
	w.Stop()
	if w.Fired() || w.Cause(context.Canceled) != context.Canceled {
		t.Error("a nil watchdog fired")
	}
}

// Stopped, it never fires.
func TestStop(t *testing.T) {
	fired := make(chan struct{}, 1)
	w := New(time.Hour, func(error) { fired <- struct{}{} })
	w.Stop()
	w.check() // what the timer would run: a stopped watchdog does nothing
	select {
	case <-fired:
		t.Error("a stopped watchdog fired")
	default:
	}
}
