package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/recorded"
	"github.com/tfrs/a2a-progress/internal/termtext"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/terminal"
)

// follow is the root command: follow a task that already exists.
func (a *app) follow(ctx context.Context, agentURL string, task a2a.TaskID) error {
	a.agentURL = agentURL
	c, err := client.New(ctx, agentURL, a.clientOptions()...)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.Follow(ctx, task)
	if err != nil {
		return err
	}
	return a.consume(ctx, st)
}

func (a *app) sendCommand() *cobra.Command {
	var async bool
	var resp respondFlags
	cmd := &cobra.Command{
		Use:   "send <agent-url> <text…>",
		Short: "Send a message and follow the turn",
		Long: `send sends a text message (SendStreamingMessage) and follows the turn it starts.
With --async it dispatches the message with return-immediately, prints the task id
on stderr, then follows the task with SubscribeToTask — the same view either way.
With --task it responds to a task that waits for input (exit code 4): the message goes
to that task and its context (looked up with GetTask unless --context gives it),
and the new turn is followed. --context alone starts a new task in that context.

` + exitCodesHelp,
		Example: `  a2a-tail send https://agent.example.com "book a flight to Lisbon"
  a2a-tail send --task 5f0c… https://agent.example.com "the 9:40 one"`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := resp.validate(async); err != nil {
				return err
			}
			if err := a.checkAgentURL(args[0]); err != nil {
				return usageError{err}
			}
			a.agentURL, a.announceTask = args[0], true
			ctx := cmd.Context()
			c, err := client.New(ctx, args[0], a.clientOptions()...)
			if err != nil {
				return err
			}
			defer c.Close()
			text := strings.Join(args[1:], " ")
			if resp.task != "" && resp.context == "" {
				st, err := c.Respond(ctx, a2a.TaskID(resp.task), text)
				if err != nil {
					return err
				}
				return a.consume(ctx, st)
			}
			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
			msg.TaskID, msg.ContextID = a2a.TaskID(resp.task), resp.context
			if !async {
				st, err := c.Send(ctx, msg)
				if err != nil {
					return err
				}
				return a.consume(ctx, st)
			}
			id, err := c.Dispatch(ctx, msg)
			if err != nil {
				return err
			}
			st, err := c.Follow(ctx, id)
			if err != nil {
				return err
			}
			return a.consume(ctx, st)
		},
	}
	cmd.Flags().BoolVar(&async, "async", false, "dispatch with return-immediately, print the task id, then follow the task")
	resp.register(cmd)
	a.outputFlags(cmd)
	a.agentFlags(cmd)
	return cmd
}

func (a *app) replayCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "replay <file|->",
		Short: "Replay a recorded SSE stream through the same pipeline",
		Long: `replay reads a recorded A2A SSE stream (v1.0 or v0.3, JSON-RPC or REST frames;
the format is detected per frame unless --wire says otherwise) and renders it exactly
as a live stream. A recording that ends before a terminal state is reported as
incomplete; a truncated last frame is reported, not applied.

` + exitCodesHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var f recorded.Format
			switch format {
			case "auto":
			case string(recorded.FormatV1), string(recorded.FormatV03JSON), string(recorded.FormatV03ProtoJS):
				f = recorded.Format(format)
			default:
				return usageError{fmt.Errorf("--wire %q: want auto, v1.0, v0.3-jsonrpc or v0.3-rest", format)}
			}
			var r io.Reader = a.stdin
			if args[0] != "-" {
				file, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer file.Close()
				r = file
			}
			st := client.Replay(cmd.Context(), recorded.Events(r, f), a.streamOptions()...)
			return a.consume(cmd.Context(), st)
		},
	}
	cmd.Flags().StringVar(&format, "wire", "auto", "frame format: auto, v1.0, v0.3-jsonrpc or v0.3-rest")
	a.outputFlags(cmd)
	return cmd
}

// consume renders a stream and turns its outcome into the exit code.
func (a *app) consume(ctx context.Context, st *client.Stream) error {
	sk := a.newSink(st)
	defer sk.close()
	defer a.setLive(nil) // the verdict is out: stderr is stderr again
	announce := func() {
		// A task the user did not name: its id on stderr, at once, for
		// following or canceling it from another terminal or a script
		// (above the live view too, whose header shows it as well).
		if a.announceTask && st.TaskID() != "" {
			a.warnf("a2a-tail: task %s\n", st.TaskID())
			a.announceTask = false
		}
	}
	announce()
	for u, err := range st.Updates() {
		if err != nil {
			break // the stream's error is the outcome's; finish reports it
		}
		announce()
		a.diagnose(u)
		if werr := sk.update(u); werr != nil {
			return werr // leaving the loop stops the stream
		}
	}
	out, err := st.Outcome()
	task := st.TaskID()
	if task == "" {
		task = out.TaskID
	}
	if ctx.Err() != nil && err != nil {
		// Ctrl-C or SIGTERM: the result says so (exit code 130 or 143 in
		// every output), and a closed stdout does not turn it into a quiet 0.
		stopped := &stoppedError{err: err, code: stopCode(ctx)}
		_ = sk.finish(st.View(), out, stopped)
		a.nextCommand(task, out, stopped)
		return &verdict{code: stopped.code, err: errReported}
	}
	if werr := sk.finish(st.View(), out, err); werr != nil {
		return werr
	}
	a.nextCommand(task, out, err)
	return &verdict{code: codeFor(out, err), err: errReported}
}

// nextCommand tells, on stderr, the exact command that goes on from here:
// after a stop, following the task again (it goes on at the agent) or
// canceling it; after an interrupt, responding to it; after a cut that could
// not be resumed, following it again. Only for the A2A commands, which set
// agentURL.
func (a *app) nextCommand(task a2a.TaskID, out terminal.Outcome, err error) {
	if a.agentURL == "" || task == "" {
		return
	}
	u, id := shellWord(a.agentURL), shellWord(string(task))
	var stopped *stoppedError
	switch {
	case errors.As(err, &stopped):
		a.warnf("a2a-tail: the task goes on at the agent. Follow it again: a2a-tail %s %s · cancel it: a2a-tail cancel %s %s\n", u, id, u, id)
	case err == nil && out.Interrupt != nil:
		a.warnf("a2a-tail: the agent waits for your response: a2a-tail send --task %s %s \"<your response>\"\n", id, u)
	case errors.As(err, new(*client.IncompleteError)) && !errors.Is(err, a2a.ErrTaskNotFound):
		a.warnf("a2a-tail: the turn could not be followed to its end. Follow it again: a2a-tail %s %s\n", u, id)
	}
}

// shellWord quotes s for a POSIX shell when it holds anything but plain
// URL and id characters, so that the printed command can be pasted as is.
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// diagnose writes what a user should know about the stream's health to
// stderr: reconnects, envelopes that could not be used, and with -v
// duplicates and late arrivals. The errors quote the peer's bytes, so
// they go through termtext.Printable like stdout.
func (a *app) diagnose(u client.Update) {
	switch u.Type {
	case client.UpdateReconnect:
		// One line per group of attempts (the count restarts when an
		// attempt brings news), not one per try; -v shows every try. A
		// peer that cuts again and again is said at most once per notice
		// interval, with the count of cuts held back.
		if u.Attempt <= 1 || a.verbose > 0 {
			if n, ok := a.notices.allow(a.now()); ok {
				more := ""
				if n > 0 {
					more = fmt.Sprintf(" (%d more cuts since the last notice)", n)
				}
				a.warnf("a2a-tail: stream cut (%v); resuming%s%s\n", u.Err, a.retryWindow(u.Attempt), more)
			}
		}
	case client.UpdateIgnored:
		if a.verbose > 0 {
			a.warnf("a2a-tail: ignored event: %v\n", u.Err)
		}
	case client.UpdateProgress:
		r := u.Reading
		if r.Fallback && r.Reason != "" && r.Reason != envelope.ReasonNoEnvelope {
			a.warnf("a2a-tail: envelope dropped (%s): %v; showing its text\n", r.Reason, r.Err)
		}
		for _, ig := range r.Ignored {
			if !r.Fallback || ig.Err != r.Err {
				a.warnf("a2a-tail: part %d: envelope ignored (%s): %v\n", ig.Part, ig.Reason, ig.Err)
			}
		}
		a.noticeCap(u.Change)
		if a.verbose > 0 && u.Change.Effect != merge.Applied {
			a.warnf("a2a-tail: %s envelope %s/%d\n", u.Change.Effect, r.Envelope.StreamKey, r.Envelope.Seq)
		}
	}
}

// noticeLimit lets a reconnect notice through at most once per
// noticeEvery (the first at once), so that a peer cutting its stream in a
// loop cannot flood stderr; the notice after a silence says how many it
// stood for.
type noticeLimit struct {
	last       time.Time
	suppressed int
}

// noticeEvery is the shortest interval between two reconnect notices.
const noticeEvery = 10 * time.Second

// allow reports whether a notice may be written at now, and how many were
// held back since the last one written.
func (l *noticeLimit) allow(now time.Time) (held int, ok bool) {
	if !l.last.IsZero() && now.Sub(l.last) < noticeEvery {
		l.suppressed++
		return 0, false
	}
	held, l.suppressed, l.last = l.suppressed, 0, now
	return held, true
}

// warnf writes one diagnostic line to stderr through termtext.Peer: the
// arguments may hold a peer's bytes (ids, error messages).
func (a *app) warnf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	nl := strings.HasSuffix(line, "\n")
	line = termtext.Peer(strings.TrimSuffix(line, "\n"))
	if nl {
		line += "\n"
	}
	_, _ = io.WriteString(a.diagnostics(), line)
}

// retryWindow says how long a cut is retried, for the notice of its first
// attempt.
func (a *app) retryWindow(attempt int) string {
	if a.verbose > 0 && attempt > 1 {
		return fmt.Sprintf(", attempt %d", attempt)
	}
	return ""
}

func (a *app) followCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "follow <agent-url> <task-id>",
		Short: "Follow a task that already exists (the same as a2a-tail <agent-url> <task-id>)",
		Long: `follow subscribes to an existing task (SubscribeToTask) and shows its progress and
verdict. A cut stream is resubscribed for --retry-for without news; a task that has
already settled is resolved with GetTask and its history. a2a-tail <agent-url>
<task-id> is the same command.

` + exitCodesHelp,
		Example: `  a2a-tail follow https://agent.example.com 5f0c…
  a2a-tail follow --retry-for 10m https://agent.example.com 5f0c…   ride out a long deploy`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("follow: want <agent-url> <task-id>, got %d argument(s)", len(args))
			}
			return a.checkTaskArgs(args[0], args[1])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.follow(cmd.Context(), args[0], a2a.TaskID(args[1]))
		},
	}
	a.outputFlags(cmd)
	a.agentFlags(cmd)
	return cmd
}

func (a *app) cancelCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cancel <agent-url> <task-id>",
		Short: "Ask the agent to cancel a task",
		Long: `cancel asks the agent to cancel a task (CancelTask) and prints the state the agent
reports: canceled, or still on its way there when the agent cancels asynchronously
(follow the task to see it end).

Exit codes:
  0    the agent took the request
  5    the agent does not know the task
  1    the task cannot be canceled (it has already settled), or a transport error
  2    usage error (bad flags or arguments)`,
		Example: `  a2a-tail cancel https://agent.example.com 5f0c…`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("cancel: want <agent-url> <task-id>, got %d argument(s)", len(args))
			}
			return a.checkTaskArgs(args[0], args[1])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := client.New(ctx, args[0], a.clientOptions()...)
			if err != nil {
				return err
			}
			defer c.Close()
			task, err := c.Cancel(ctx, a2a.TaskID(args[1]))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "task %s: %s\n", termtext.Printable(args[1]), stateWord(task.Status.State))
			return err
		},
	}
	a.callFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&a.transport, "transport", "", "force a transport: jsonrpc, rest or grpc (default: from the agent card)")
	f.StringVar(&a.protocol, "protocol", "", "with --transport: the A2A protocol version of the endpoint, 1.0 or 0.3")
	f.StringVar(&a.tenant, "tenant", "", "tenant identifier, passed on every request")
	f.StringArrayVar(&a.allowHosts, "allow-host", nil, "send the credentials to this host too when the agent card names it (repeatable)")
	f.BoolVar(&a.plaintext, "grpc-plaintext", false, "speak gRPC without TLS (loopback or a trusted network only)")
	return cmd
}

// checkTaskArgs refuses, as a usage error, an agent URL that cannot be one
// and a task id and URL given the other way round.
func (a *app) checkTaskArgs(agentURL, task string) error {
	if err := a.checkAgentURL(agentURL); err != nil {
		if a.checkAgentURL(task) == nil {
			return fmt.Errorf("%q is not an agent URL but %q is: the agent URL comes first (<agent-url> <task-id>)", agentURL, task)
		}
		return err
	}
	if strings.TrimSpace(task) == "" {
		return errors.New("empty task id")
	}
	return nil
}

// checkAgentURL refuses what cannot be an agent's address: an http(s) URL
// with a host, or host:port for --transport grpc.
func (a *app) checkAgentURL(s string) error {
	if strings.EqualFold(a.transport, "grpc") && !strings.Contains(s, "://") {
		if _, _, err := net.SplitHostPort(s); err != nil {
			return fmt.Errorf("agent address %q: want host:port for gRPC: %v", s, err)
		}
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("agent URL %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https" && !(u.Scheme == "grpc" || u.Scheme == "grpcs")) || u.Host == "" {
		return fmt.Errorf("agent URL %q: want http://host[:port][/path] or https://…", s)
	}
	return nil
}

// defaultRetryFor is the window after a cut within which the turn must
// make progress again by default: long enough for an agent restarted by a
// deploy.
const defaultRetryFor = 3 * time.Minute

// retryMaxBackoff caps the wait between two tries of --retry-for.
const retryMaxBackoff = 10 * time.Second

// retryOptions are the client's retry bounds. --max-retries is a count:
// resubscriptions in a row without news. --retry-for is a deadline: wall
// time from the cut, each try's own wait included (client.WithRetryFor),
// with backoff up to retryMaxBackoff; within it, a peer that responds
// with nothing but a replay of the turn still ends it after the default
// count of such replays. A try that brings news restarts either bound.
func (a *app) retryOptions() []client.Option {
	if a.retriesSet || a.retryFor == 0 {
		n := a.maxRetries
		if !a.retriesSet {
			n = 0
		}
		return []client.Option{client.WithRetry(n, 0, 0)} // the library's backoff
	}
	return []client.Option{client.WithRetry(client.DefaultMaxAttempts, 0, retryMaxBackoff), client.WithRetryFor(a.retryFor)}
}
