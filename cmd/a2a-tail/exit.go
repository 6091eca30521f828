package main

import (
	"context"
	"errors"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/terminal"
)

// Exit codes, documented in --help.
const (
	exitOK          = 0
	exitRuntime     = 1
	exitUsage       = 2
	exitFailed      = 3
	exitInterrupted = 4
	exitNotFound    = 5
	exitCtrlC       = 130
)

const exitCodesHelp = `Exit codes:
  0    the turn completed
  3    the task failed, was rejected or was canceled
  4    the task needs input (input-required) or authentication (auth-required)
  5    the agent does not know the task (task not found: a wrong id, or a task it dropped)
  1    runtime or transport error, including a turn that could not be resolved
  2    usage error (bad flags or arguments)
  130  interrupted (Ctrl-C, SIGINT)
  143  terminated (SIGTERM)
A closed stdout (a2a-tail … | head) ends the command quietly with 0.`

// errReported marks an error already told to the user (the verdict line);
// run does not print it again.
var errReported = errors.New("reported")

// usageError is a bad flag or argument.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// verdict carries the outcome's exit code out of a command.
type verdict struct {
	code int
	err  error
}

func (v *verdict) Error() string {
	if v.err != nil {
		return v.err.Error()
	}
	return "verdict"
}
func (v *verdict) Unwrap() error { return v.err }

func (a *app) exitCode(ctx context.Context, err error) int {
	var v *verdict
	var u usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, syscall.EPIPE):
		return exitOK
	case errors.As(err, &v):
		return v.code
	case ctx.Err() != nil:
		return stopCode(ctx)
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, new(*client.IncompleteError)):
		// A turn that could not be ended stays a runtime error even when
		// one of its causes was "not found" (a task that vanished).
		return exitRuntime
	case errors.Is(err, a2a.ErrTaskNotFound):
		return exitNotFound
	}
	return exitRuntime
}

// stoppedError is the error of a turn a signal stopped (Ctrl-C, SIGTERM)
// before it settled; code is the exit code that says which.
type stoppedError struct {
	err  error
	code int
}

func (e *stoppedError) Error() string { return e.err.Error() }
func (e *stoppedError) Unwrap() error { return e.err }

// codeFor maps a turn's outcome to the exit code.
func codeFor(out terminal.Outcome, err error) int {
	var stopped *stoppedError
	switch {
	case errors.As(err, &stopped):
		return stopped.code
	case err == nil && out.Interrupt != nil:
		return exitInterrupted
	case err == nil:
		return exitOK
	case errors.Is(err, terminal.ErrFailed), errors.Is(err, terminal.ErrRejected), errors.Is(err, terminal.ErrCanceled):
		return exitFailed
	case errors.As(err, new(*client.IncompleteError)):
		return exitRuntime
	case errors.Is(err, a2a.ErrTaskNotFound):
		return exitNotFound
	}
	return exitRuntime
}

// onceEach drops the lines of s that repeat an earlier one: a cut that no
// resubscription or GetTask got past joins one cause per try, and they are
// often the same ("connection refused" twice). The cause is said once: a
// line that ends an earlier one (which quotes it after its own prefix) goes.
func onceEach(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var out []string
next:
	for _, l := range strings.Split(s, "\n") {
		for _, kept := range out {
			// The first cause is quoted after the error's own prefix.
			if strings.HasSuffix(kept, l) {
				continue next
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
