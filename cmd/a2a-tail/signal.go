package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// signalError is the cause of a run that a signal stopped.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string { return "stopped by " + e.sig.String() }

// signalContext returns a context canceled by SIGINT or SIGTERM, with the
// signal as its cause, and the function that stops listening.
func signalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case sig := <-ch:
			cancel(signalError{sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
		<-done
	}
}

// stopCode is the exit code of a run whose context ended: 128 + the
// signal's number, as a shell reports a process the signal killed (130
// for SIGINT, Ctrl-C; 143 for SIGTERM, which is how service managers and
// `timeout` stop a process). A context ended otherwise (tests) counts as
// Ctrl-C.
func stopCode(ctx context.Context) int {
	var se signalError
	if errors.As(context.Cause(ctx), &se) {
		if s, ok := se.sig.(syscall.Signal); ok {
			return 128 + int(s)
		}
	}
	return exitCtrlC
}
