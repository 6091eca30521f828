package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
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
	protocol    string
	auth        string
	svcParams   []string
	tenant      string
	output      string
	color       string
	idleTimeout time.Duration
	maxRetries  int
	retriesSet  bool          // --max-retries was given: it wins over --retry-for
	retryFor    time.Duration // --retry-for
	timestamps  bool
	verbose     int
	plaintext   bool
	allowHosts  []string
	maxBlocks   int
	maxKeys     int
	redis       string // web --redis: the shared store's URL
	// maxTurnBytes is --max-turn-bytes (0: the default).
	maxTurnBytes int64
	// capNotice is set once the notice that a cap drops blocks is out.
	capNotice bool
	// notices rate-limits the reconnect notices (commands.go).
	notices noticeLimit
	// isTTY overrides terminal detection (tests).
	isTTY func(w io.Writer) bool
	// now is the clock of the live view (tests).
	now func() time.Time
	// size is the terminal's width and height (tests).
	size func() (int, int)
	// agentURL is the agent of an A2A command, for the next command it
	// suggests ("" for replay and query).
	agentURL string
	// announceTask: print the task id on stderr once known (send: the
	// agent names the task).
	announceTask bool
	// tailLines is --lines: tool output lines in the live view (0: default).
	tailLines int

	liveMu sync.Mutex
	live   *liveSink // the live view while it owns the terminal, else nil
}

// setLive routes diagnostics through s (nil: straight to stderr again).
func (a *app) setLive(s *liveSink) {
	a.liveMu.Lock()
	a.live = s
	a.liveMu.Unlock()
}

// diagnostics is where a diagnostic line goes: above the live view's frame
// while it owns the terminal (so that no redraw tears it), else stderr.
func (a *app) diagnostics() io.Writer { return diagWriter{a} }

type diagWriter struct{ a *app }

func (d diagWriter) Write(p []byte) (int, error) {
	d.a.liveMu.Lock()
	s := d.a.live
	d.a.liveMu.Unlock()
	if s == nil {
		return d.a.stderr.Write(p)
	}
	s.notice(string(p))
	return len(p), nil
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	// The library's defaults also hold for a command without the flag
	// (query takes no --max-retries): never a zero that means "none".
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, isTTY: isTerminal, now: time.Now,
		idleTimeout: client.DefaultIdleTimeout, maxRetries: client.DefaultMaxAttempts, tailLines: defaultTailLines,
		retryFor: defaultRetryFor}
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
		Example: `  a2a-tail https://agent.example.com 5f0c…      follow a running task (or: a2a-tail follow …)
  a2a-tail send https://agent.example.com "summarise the report"
  a2a-tail cancel https://agent.example.com 5f0c…
  a2a-tail send --async https://agent.example.com "long job"
  a2a-tail send --task 5f0c… https://agent.example.com "yes, go ahead"   respond to a task that waits for input
  a2a-tail replay capture.sse -o ndjson
  a2a-tail demo`,
		Args: func(_ *cobra.Command, args []string) error {
			// cobra's "accepts 2 arg(s), received 1" does not say which
			// two, and a mistyped command name lands here too.
			if len(args) != 2 {
				return fmt.Errorf("want <agent-url> <task-id> or a command (follow, send, cancel, replay, query, demo, web), got %d argument(s); see a2a-tail --help", len(args))
			}
			return a.checkTaskArgs(args[0], args[1])
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.follow(cmd.Context(), args[0], a2a.TaskID(args[1]))
		},
	}
	root.Version = version()
	root.SetVersionTemplate("a2a-tail {{.Version}}\n")
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	a.outputFlags(root)
	a.agentFlags(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		a.retriesSet = cmd.Flags().Changed("max-retries")
		if a.retriesSet && cmd.Flags().Changed("retry-for") {
			return usageError{errors.New("--max-retries and --retry-for both bound the retries after a cut: give one")}
		}
		return a.validate()
	}
	// cobra's own errors for wrong argument counts are usage errors too.
	wrapArgs(root)
	root.AddCommand(a.followCommand(), a.sendCommand(), a.cancelCommand(), a.replayCommand(), a.demoCommand(), a.queryCommand(), a.webCommand())
	for _, c := range root.Commands() {
		wrapArgs(c)
	}
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}

// version is what --version prints: the module's version (v1.2.3 when
// installed with go install …@version, (devel) from a clone), the commit it
// was built from when the build recorded one (", modified" for a work tree
// with changes) and the Go release.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown: built without module information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev != "" {
		v += " (commit " + rev
		if at != "" {
			v += " of " + at
		}
		v += modified + ")"
	}
	return v + " " + bi.GoVersion
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

// The flags come in groups, and each command declares the groups that
// apply to it, so that its --help lists only flags it reads. Groups share
// the app's fields and defaults: a flag means the same in every command
// that has it.

// outputFlags: how the turn is shown (every command).
func (a *app) outputFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&a.output, "output", "o", "text", "output format: text, ndjson (the ops a front end gets, PROTOCOL.md §4; last the result with exitCode) or json")
	f.StringVar(&a.color, "color", "auto", "color: auto, always or never (NO_COLOR is honoured)")
	f.BoolVar(&a.timestamps, "timestamps", false, "prefix every line of the append-only text output with the update's timestamp (-o ndjson blocks always carry at)")
	f.CountVarP(&a.verbose, "verbose", "v", "more diagnostics on stderr (repeat for debug logs)")
	f.IntVar(&a.maxBlocks, "max-blocks", 0, "blocks kept per turn before new ones are dropped (0: the default, 10000)")
	f.IntVar(&a.maxKeys, "max-stream-keys", 0, "tool-call stream keys kept per turn before new ones are dropped (0: the default, 10000)")
	f.IntVar(&a.tailLines, "lines", defaultTailLines, "lines of each tool call's output (and of each text) the live terminal view shows")
	f.Int64Var(&a.maxTurnBytes, "max-turn-bytes", 0, "bytes a turn may keep — block texts, tool outputs, artifacts — before the newest are dropped (0: the default, 32 MiB)")
}

// callFlags: what every call to a remote endpoint carries, and how long
// its stream may stay silent.
func (a *app) callFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.auth, "auth", "", `credentials, shorthand for --svc-param "Authorization=<creds>"`)
	f.StringArrayVar(&a.svcParams, "svc-param", nil, "service parameter k=v, split on the first = (repeatable)")
	a.idleFlag(cmd)
}

// idleFlag: how long a stream may stay silent. query has no resumption:
// its help says what a silent stream does there.
func (a *app) idleFlag(cmd *cobra.Command) {
	usage := "treat a stream silent this long as cut and resubscribe (0: never)"
	switch cmd.Name() {
	case "query":
		usage = "end a stream silent this long as cut: the turn ends incomplete, nothing is resumed (0: never)"
	case "cancel":
		usage = "give up on an agent silent this long (0: never)"
	}
	cmd.Flags().DurationVar(&a.idleTimeout, "idle-timeout", client.DefaultIdleTimeout, usage)
}

// resumeFlags: how an A2A turn is reached and resumed after a cut.
func (a *app) resumeFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.transport, "transport", "", "force a transport: jsonrpc, rest or grpc (default: from the agent card)")
	f.DurationVar(&a.retryFor, "retry-for", defaultRetryFor, fmt.Sprintf("a deadline: how long after a cut the turn may go without news — wall time, slow tries included (backoff with jitter up to 10s between tries); a peer that only replays the turn ends it after %d such replays", client.DefaultMaxAttempts))
	f.IntVar(&a.maxRetries, "max-retries", client.DefaultMaxAttempts, "a count, instead of --retry-for: resubscriptions in a row without news before giving up, however long they take (0: resolve with one GetTask only)")
}

// agentFlags: every flag of a command that talks to a remote A2A agent.
func (a *app) agentFlags(cmd *cobra.Command) {
	a.callFlags(cmd)
	a.resumeFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&a.protocol, "protocol", "", "with --transport: the A2A protocol version of the endpoint, 1.0 or 0.3 (default 1.0; without --transport the agent card says)")
	f.StringVar(&a.tenant, "tenant", "", "tenant identifier, passed on every request")
	f.StringArrayVar(&a.allowHosts, "allow-host", nil, "send the credentials to this host too when the agent card names it (host, host:port or scheme://host:port; * for any; repeatable)")
	f.BoolVar(&a.plaintext, "grpc-plaintext", false, "speak gRPC without TLS (loopback or a trusted network only)")
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
	switch {
	case a.protocol != "" && a.protocol != "1.0" && a.protocol != "0.3":
		return usageError{fmt.Errorf("--protocol %q: want 1.0 or 0.3", a.protocol)}
	case a.protocol != "" && a.transport == "":
		return usageError{errors.New("--protocol needs --transport: without it, the agent card says which versions the agent speaks")}
	}
	for _, p := range a.svcParams {
		if k, _, ok := strings.Cut(p, "="); !ok || k == "" {
			return usageError{fmt.Errorf("--svc-param %q: want key=value", p)}
		}
	}
	if a.idleTimeout < 0 {
		return usageError{fmt.Errorf("--idle-timeout %v: must not be negative", a.idleTimeout)}
	}
	if a.maxBlocks < 0 || a.maxKeys < 0 || a.maxTurnBytes < 0 {
		return usageError{fmt.Errorf("--max-blocks %d, --max-stream-keys %d, --max-turn-bytes %d: must not be negative", a.maxBlocks, a.maxKeys, a.maxTurnBytes)}
	}
	if a.tailLines < 1 || a.tailLines > 1000 {
		return usageError{fmt.Errorf("--lines %d: want 1 to 1000", a.tailLines)}
	}
	if a.retryFor < 0 {
		return usageError{fmt.Errorf("--retry-for %v: must not be negative", a.retryFor)}
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
	if a.protocol != "" {
		opts = append(opts, client.WithProtocolVersion(a2a.ProtocolVersion(a.protocol)))
	}
	return opts
}

// streamOptions are the client options of the flags that every command
// reads (outputFlags), whatever the turn comes from: the logger and the
// merge caps.
func (a *app) streamOptions() []client.Option {
	opts := []client.Option{client.WithLogger(a.logger())}
	if a.maxBlocks > 0 || a.maxKeys > 0 {
		opts = append(opts, client.WithCaps(a.caps()))
	}
	if a.maxTurnBytes > 0 {
		opts = append(opts, client.WithTurnBudget(a.maxTurnBytes))
	}
	return opts
}

// connectionOptions are the client options of every flag but --transport.
func (a *app) connectionOptions() []client.Option {
	opts := append([]client.Option{client.WithIdleTimeout(a.idleTimeout)}, a.retryOptions()...)
	opts = append(opts, a.streamOptions()...)
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
	if len(a.allowHosts) > 0 {
		opts = append(opts, client.WithAllowedHosts(a.allowHosts...))
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
	return slog.New(slog.NewTextHandler(a.diagnostics(), &slog.HandlerOptions{Level: level, ReplaceAttr: logAttr}))
}
