package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/client"
)

// app holds the parsed global flags and the process's streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	transport   string
	auth        string
	svcParams   []string
	tenant      string
	output      string
	color       string
	idleTimeout time.Duration
	maxRetries  int
	timestamps  bool
	verbose     int
	plaintext   bool
	// isTTY overrides terminal detection (tests).
	isTTY func(w io.Writer) bool
	// now is the clock of the live view (tests).
	now func() time.Time
	// size is the terminal's width and height (tests).
	size func() (int, int)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, isTTY: isTerminal, now: time.Now}
	a.size = a.termSize
	return a
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "a2a-tail <agent-url> <task-id>",
		Short: "Follow what a remote A2A agent is doing: tool calls, output, thinking, verdict",
		Long: `a2a-tail follows an A2A task and shows the structured progress its agent streams
(thinking, tool calls with their output, text, errors), then the verdict — which
only the task's terminal state decides. A cut stream is resubscribed; a task that
has already settled is resolved with GetTask and its history.

` + exitCodesHelp,
		Example: `  a2a-tail https://agent.example.com 5f0c…      follow a running task
  a2a-tail send https://agent.example.com "summarise the report"
  a2a-tail send --async https://agent.example.com "long job"
  a2a-tail replay capture.sse -o ndjson
  a2a-tail demo`,
		Args: func(_ *cobra.Command, args []string) error {
			// cobra's "accepts 2 arg(s), received 1" does not say which
			// two, and a mistyped command name lands here too.
			if len(args) != 2 {
				return fmt.Errorf("want <agent-url> <task-id> or a command (send, replay, query, demo), got %d argument(s); see a2a-tail --help", len(args))
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.follow(cmd.Context(), args[0], a2a.TaskID(args[1]))
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	f := root.PersistentFlags()
	f.StringVar(&a.transport, "transport", "", "force a transport: jsonrpc, rest or grpc (default: from the agent card)")
	f.StringVar(&a.auth, "auth", "", `credentials, shorthand for --svc-param "Authorization=<creds>"`)
	f.StringArrayVar(&a.svcParams, "svc-param", nil, "service parameter k=v, split on the first = (repeatable)")
	f.StringVar(&a.tenant, "tenant", "", "tenant identifier, passed on every request")
	f.StringVarP(&a.output, "output", "o", "text", "output format: text, ndjson (the ops a front end gets, PROTOCOL.md §4; last the result with exitCode) or json")
	f.StringVar(&a.color, "color", "auto", "color: auto, always or never (NO_COLOR is honoured)")
	f.DurationVar(&a.idleTimeout, "idle-timeout", 2*time.Minute, "treat a stream silent this long as cut and resubscribe (0: never)")
	f.IntVar(&a.maxRetries, "max-retries", 5, "resubscriptions after a cut before giving up (0: resolve with one GetTask only)")
	f.BoolVar(&a.timestamps, "timestamps", false, "prefix every line of the append-only text output with the update's timestamp (-o ndjson blocks always carry at)")
	f.BoolVar(&a.plaintext, "grpc-plaintext", false, "speak gRPC without TLS (loopback or a trusted network only)")
	f.CountVarP(&a.verbose, "verbose", "v", "more diagnostics on stderr (repeat for debug logs)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return a.validate() }
	// cobra's own errors for wrong argument counts are usage errors too.
	wrapArgs(root)
	root.AddCommand(a.sendCommand(), a.replayCommand(), a.demoCommand(), a.queryCommand())
	for _, c := range root.Commands() {
		wrapArgs(c)
	}
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}

func wrapArgs(c *cobra.Command) {
	if c.Args == nil {
		return
	}
	inner := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := inner(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

func (a *app) validate() error {
	switch a.output {
	case "text", "ndjson", "json":
	default:
		return usageError{fmt.Errorf("--output %q: want text, ndjson or json", a.output)}
	}
	switch a.color {
	case "auto", "always", "never":
	default:
		return usageError{fmt.Errorf("--color %q: want auto, always or never", a.color)}
	}
	switch strings.ToLower(a.transport) {
	case "", "jsonrpc", "rest", "grpc":
	default:
		return usageError{fmt.Errorf("--transport %q: want jsonrpc, rest or grpc", a.transport)}
	}
	for _, p := range a.svcParams {
		if k, _, ok := strings.Cut(p, "="); !ok || k == "" {
			return usageError{fmt.Errorf("--svc-param %q: want key=value", p)}
		}
	}
	if a.idleTimeout < 0 {
		return usageError{fmt.Errorf("--idle-timeout %v: must not be negative", a.idleTimeout)}
	}
	if a.maxRetries < 0 {
		return usageError{fmt.Errorf("--max-retries %d: must not be negative", a.maxRetries)}
	}
	return nil
}

// useColor decides colour for the text output.
func (a *app) useColor() bool {
	switch a.color {
	case "always":
		return true
	case "never":
		return false
	}
	if _, ok := os.LookupEnv("NO_COLOR"); ok && os.Getenv("NO_COLOR") != "" {
		return false
	}
	return a.isTTY(a.stdout)
}

// clientOptions turns the global flags into client options.
func (a *app) clientOptions() []client.Option {
	opts := a.connectionOptions()
	if t := a.forcedTransport(); t != "" {
		opts = append(opts, client.WithTransport(t))
	}
	return opts
}

// connectionOptions are the client options of every flag but --transport.
func (a *app) connectionOptions() []client.Option {
	opts := []client.Option{
		client.WithIdleTimeout(a.idleTimeout),
		client.WithRetry(a.maxRetries, 200*time.Millisecond, 5*time.Second),
		client.WithLogger(a.logger()),
	}
	if a.auth != "" {
		opts = append(opts, client.WithAuth(a.auth))
	}
	for _, p := range a.svcParams {
		k, v, _ := strings.Cut(p, "=")
		opts = append(opts, client.WithServiceParam(k, v))
	}
	if a.tenant != "" {
		opts = append(opts, client.WithTenant(a.tenant))
	}
	if a.plaintext {
		opts = append(opts, client.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
	}
	return opts
}

// forcedTransport is the --transport flag as a protocol ("" = from the card).
func (a *app) forcedTransport() a2a.TransportProtocol {
	switch strings.ToLower(a.transport) {
	case "jsonrpc":
		return a2a.TransportProtocolJSONRPC
	case "rest":
		return a2a.TransportProtocolHTTPJSON
	case "grpc":
		return a2a.TransportProtocolGRPC
	}
	return ""
}

// logger writes the client's diagnostics to stderr: warnings by default,
// info with -v, debug with -vv.
func (a *app) logger() *slog.Logger {
	level := slog.LevelWarn
	switch {
	case a.verbose >= 2:
		level = slog.LevelDebug
	case a.verbose == 1:
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
}
