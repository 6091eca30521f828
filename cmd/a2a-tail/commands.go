package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/recorded"
	"github.com/tfrs/a2a-progress/merge"
)

// follow is the root command: follow a task that already exists.
func (a *app) follow(ctx context.Context, agentURL string, task a2a.TaskID) error {
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
	var answer answerFlags
	cmd := &cobra.Command{
		Use:   "send <agent-url> <text…>",
		Short: "Send a message and follow the turn",
		Long: `send sends a text message (SendStreamingMessage) and follows the turn it starts.
With --async it dispatches the message with return-immediately, prints the task id
on stderr, then follows the task with SubscribeToTask — the same view either way.
With --task it answers a task that waits for input (exit code 4): the message goes
to that task and its context (looked up with GetTask unless --context gives it),
and the new turn is followed. --context alone starts a new task in that context.

` + exitCodesHelp,
		Example: `  a2a-tail send https://agent.example.com "book a flight to Lisbon"
  a2a-tail send --task 5f0c… https://agent.example.com "the 9:40 one"`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := answer.validate(async); err != nil {
				return err
			}
			ctx := cmd.Context()
			c, err := client.New(ctx, args[0], a.clientOptions()...)
			if err != nil {
				return err
			}
			defer c.Close()
			text := strings.Join(args[1:], " ")
			if answer.task != "" && answer.context == "" {
				st, err := c.Answer(ctx, a2a.TaskID(answer.task), text)
				if err != nil {
					return err
				}
				return a.consume(ctx, st)
			}
			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
			msg.TaskID, msg.ContextID = a2a.TaskID(answer.task), answer.context
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
			a.warnf("task %s\n", id)
			st, err := c.Follow(ctx, id)
			if err != nil {
				return err
			}
			return a.consume(ctx, st)
		},
	}
	cmd.Flags().BoolVar(&async, "async", false, "dispatch with return-immediately, print the task id, then follow the task")
	answer.register(cmd)
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
	sk := a.newSink()
	defer sk.close()
	for u, err := range st.Updates() {
		if err != nil {
			break // the stream's error is the outcome's; finish reports it
		}
		a.diagnose(u)
		if werr := sk.update(u); werr != nil {
			return werr // leaving the loop stops the stream
		}
	}
	out, err := st.Outcome()
	if ctx.Err() != nil && err != nil {
		// Ctrl-C or SIGTERM: the result says so (exit code 130 or 143 in
		// every output), and a closed stdout does not turn it into a quiet 0.
		stopped := &stoppedError{err: err, code: stopCode(ctx)}
		_ = sk.finish(st.View(), out, stopped)
		return &verdict{code: stopped.code, err: errReported}
	}
	if werr := sk.finish(st.View(), out, err); werr != nil {
		return werr
	}
	return &verdict{code: codeFor(out, err), err: errReported}
}

// diagnose writes what a user should know about the stream's health to
// stderr: reconnects, envelopes that could not be used, and with -v
// duplicates and late arrivals. The errors quote the peer's bytes, so
// they go through printable like stdout.
func (a *app) diagnose(u client.Update) {
	switch u.Type {
	case client.UpdateReconnect:
		if n, ok := a.notices.allow(a.now()); ok {
			more := ""
			if n > 0 {
				more = fmt.Sprintf(" (%d more cuts since the last notice)", n)
			}
			a.warnf("a2a-tail: stream cut (%v); resuming, attempt %d%s\n", u.Err, u.Attempt, more)
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
		if a.verbose > 0 && u.Change.Result != merge.Applied {
			a.warnf("a2a-tail: %s envelope %s/%d\n", u.Change.Result, r.Envelope.StreamKey, r.Envelope.Seq)
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

// warnf writes one diagnostic line to stderr through peerText: the
// arguments may hold a peer's bytes (ids, error messages).
func (a *app) warnf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	nl := strings.HasSuffix(line, "\n")
	line = peerText(strings.TrimSuffix(line, "\n"))
	if nl {
		line += "\n"
	}
	_, _ = io.WriteString(a.stderr, line)
}
