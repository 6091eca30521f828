// Command a2a-tail follows what a remote A2A agent is doing: its thinking,
// tool calls with their output, progress text and errors, streamed as
// structured progress envelopes in working status updates — then the
// verdict, which only the task's terminal state decides.
//
//	a2a-tail <agent-url> <task-id>        follow a task (reconnects on cuts for --retry-for)
//	a2a-tail follow <agent-url> <task-id> the same, named
//	a2a-tail send <agent-url> <text…>     send a message and follow the turn
//	a2a-tail send --task <id> <url> <text…>  respond to a task that waits for input
//	a2a-tail cancel <agent-url> <task-id> ask the agent to cancel a task
//	a2a-tail web <agent-url>              a web page: a conversation with the agent
//	a2a-tail replay <file|->              replay a recorded SSE stream
//	a2a-tail query <base-url> <text…>     ask a plain REST SSE runtime (POST /v1/query)
//	a2a-tail demo                         run against an embedded reference agent
//	a2a-tail --version                    the module version, commit and Go release
//
// Exit codes: 0 completed; 3 failed, rejected or canceled; 4 input-required
// or auth-required; 5 task not found; 1 runtime or transport error
// (including an incomplete turn); 2 usage (bad flags, a bad agent URL,
// arguments in the wrong order); 130 interrupted by Ctrl-C
// (SIGINT), 143 by SIGTERM. A closed stdout (| head) ends the command
// quietly with 0.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signalContext(context.Background())
	// With SIGPIPE delivered to us, writes to a closed stdout return EPIPE
	// instead of killing the process, and `| head` ends quietly.
	signal.Ignore(syscall.SIGPIPE)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	softMemoryLimit()
	return newApp(stdin, stdout, stderr).run(ctx, args)
}

func (app *app) run(ctx context.Context, args []string) int {
	stderr := app.stderr
	root := app.rootCommand()
	if args == nil {
		args = []string{} // cobra reads os.Args for a nil slice
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := app.exitCode(ctx, err)
	if err != nil && code != exitOK && !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "a2a-tail: %s\n", onceEach(errText(err)))
	}
	return code
}
