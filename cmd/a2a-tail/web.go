package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/internal/redirect"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/redisstore"
	"github.com/tfrs/a2a-progress/relay/web"
)

// maxSendBytes caps the body of POST /tasks.
const maxSendBytes = 64 << 10

func (a *app) webCommand() *cobra.Command {
	var listen string
	var allowRemote bool
	cmd := &cobra.Command{
		Use:   "web [--listen 127.0.0.1:8080] <agent-url>",
		Short: "Serve a web page that sends messages to an agent and shows its progress live",
		Long: `web serves a page at / that sends a message to the agent (it returns at once, then
the page watches the task) or watches a task with /?task=<id>: tool calls with status,
elapsed time and output, thinking, text, errors, gaps and the verdict, live, resumed
without loss after a reconnect. The page reads the relay's event stream at
/tasks/{taskId}/events; POST /tasks with {"text": …} sends a message.

Front ends speak their own protocols to the same agent: AG-UI (CopilotKit,
@ag-ui/client's HttpAgent) at POST /ag-ui, the AI SDK's useChat at POST /api/chat
with resume at GET /api/chat/{id}/stream; /tasks/{taskId}/events?format=ag-ui or
?format=ai-sdk watches a task in those protocols.

With --redis redis://[user:password@]host:port/db (rediss:// for TLS) the page's
relay is one replica of several: the op logs, the chat map and the follow leases
live in Redis (Streams), so any replica serves any task — also turns that an
orchestrator worker publishes with the SDK's relay.Attach — and one replica per
task follows it upstream.

It listens on loopback and serves only loopback clients. --listen on another address
needs --allow-remote: then anyone who reaches the port can read the agent's progress
and send it messages with your credentials.

` + exitCodesHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := checkListen(listen, allowRemote); err != nil {
				return err // before the agent is asked anything
			}
			ctx := cmd.Context()
			c, err := client.New(ctx, args[0], a.clientOptions()...)
			if err != nil {
				return err
			}
			defer c.Close()
			return a.serveWeb(ctx, c, listen, allowRemote, "")
		},
	}
	a.agentFlags(cmd)
	cmd.Flags().CountVarP(&a.verbose, "verbose", "v", "more diagnostics on stderr (repeat for debug logs)")
	// The page shows the turns, not the terminal: the output flags do not
	// apply, and their defaults are what the checks of the others expect.
	if a.output == "" {
		a.output, a.color = "text", "auto"
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "address to serve the page on")
	cmd.Flags().StringVar(&a.redis, "redis", "", "share the relay's op logs through this Redis (redis:// or rediss:// URL): run several replicas")
	cmd.Flags().BoolVar(&allowRemote, "allow-remote", false, "allow --listen on a non-loopback address (no access control: anyone who reaches it can use your agent)")
	return cmd
}

// serveWeb serves the page and relay for c on listen until ctx ends. path
// is appended to the printed URL (demo: ?task=…).
func (a *app) serveWeb(ctx context.Context, c *client.Client, listen string, allowRemote bool, path string) error {
	loopback, err := checkListen(listen, allowRemote)
	if err != nil {
		return err
	}
	auth := relay.AllowLoopback
	if !loopback {
		auth = relay.AllowAll
		fmt.Fprintf(a.stderr, "a2a-tail: WARNING: serving %s beyond loopback without access control: anyone who reaches it can read the agent's progress and send it messages as you\n", printable(listen))
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	opts := []relay.Option{relay.WithLogger(a.logger())}
	if a.redis != "" {
		st, err := a.redisStore(ctx)
		if err != nil {
			_ = ln.Close()
			return err
		}
		defer st.Close() // after the relay, which the returns below close first
		opts = append(opts, relay.WithStore(st))
	}
	w := newWebServer(ctx, c, auth, opts...)
	srv := &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(a.stdout, "http://%s/%s\n", ln.Addr(), path)
	select {
	case err := <-done:
		_ = w.Close()
		return err
	case <-ctx.Done():
	}
	_ = w.Close() // ends the event streams, so that Shutdown does not wait on them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	<-done
	return nil
}

// checkListen says whether listen is a loopback address, and refuses
// another one without allowRemote.
func checkListen(listen string, allowRemote bool) (loopback bool, err error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false, usageError{fmt.Errorf("--listen %q: %w", listen, err)}
	}
	loopback = isLoopbackHost(host)
	if !loopback && !allowRemote {
		return false, usageError{fmt.Errorf("--listen %q is not a loopback address: add --allow-remote to serve other hosts", listen)}
	}
	return loopback, nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// webServer is what `a2a-tail web` serves: the page, the relay, and POST
// /tasks to send a message.
type webServer struct {
	mux   *http.ServeMux
	relay *relay.Handler
	c     *client.Client
	auth  relay.Authorizer
}

func newWebServer(ctx context.Context, c *client.Client, auth relay.Authorizer, opts ...relay.Option) *webServer {
	w := &webServer{mux: http.NewServeMux(), c: c, auth: auth}
	w.relay = relay.New(ctx, c, append([]relay.Option{relay.WithAuthorizer(auth)}, opts...)...)
	files := http.FileServerFS(web.FS)
	w.mux.Handle("GET /tasks/{taskId}/events", w.relay)
	w.mux.HandleFunc("POST /tasks", w.send)
	// The front ends' own protocols (AG-UI, the AI SDK's useChat) over the
	// same relay; POST on the events route is AG-UI's reconnect
	// (?format=ag-ui with the client's RunAgentInput).
	w.mux.Handle("POST /ag-ui", w.relay.AGUI(c))
	chat := w.relay.Chat(c)
	w.mux.Handle("POST /api/chat", chat)
	w.mux.Handle("GET /api/chat/{id}/stream", chat)
	w.mux.HandleFunc("POST /tasks/{taskId}/events", func(rw http.ResponseWriter, r *http.Request) {
		w.relay.ServeEvents(rw, r, r.PathValue("taskId"))
	})
	w.mux.Handle("GET /{file}", files)
	w.mux.Handle("GET /{$}", files)
	return w
}

func (w *webServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("X-Content-Type-Options", "nosniff")
	rw.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; style-src 'self'; script-src 'self'; img-src 'self'; frame-ancestors 'none'")
	w.mux.ServeHTTP(rw, r)
}

// Close stops the relay: event streams end, follows stop.
func (w *webServer) Close() error { return w.relay.Close() }

// send dispatches {"text": …} with return-immediately and answers
// {"task": id}. It takes only application/json, which a cross-origin page
// cannot send without a CORS preflight that this server never allows.
func (w *webServer) send(rw http.ResponseWriter, r *http.Request) {
	if err := w.auth(r, ""); err != nil {
		jsonError(rw, http.StatusForbidden, err.Error())
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		jsonError(rw, http.StatusUnsupportedMediaType, "a2a-tail: POST /tasks takes application/json")
		return
	}
	var body struct {
		Text string `json:"text"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxSendBytes+1))
	if err := dec.Decode(&body); err != nil {
		jsonError(rw, http.StatusBadRequest, "a2a-tail: body: "+err.Error())
		return
	}
	if strings.TrimSpace(body.Text) == "" {
		jsonError(rw, http.StatusBadRequest, `a2a-tail: "text" is empty`)
		return
	}
	id, err := w.c.Dispatch(r.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(body.Text)))
	if err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, context.Canceled) {
			status = http.StatusServiceUnavailable
		}
		jsonError(rw, status, "a2a-tail: agent: "+err.Error())
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(struct {
		Task string `json:"task"`
	}{string(id)})
}

func jsonError(rw http.ResponseWriter, status int, msg string) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(struct {
		Error string `json:"error"`
	}{msg})
}

// redisStore connects to --redis. A Redis that does not answer yet is said
// on stderr, not fatal: the relay answers 503 until it does (see package
// redisstore), as it does when Redis goes away later.
func (a *app) redisStore(ctx context.Context) (*redisstore.Store, error) {
	// go-redis logs its pool's dial failures to the process's stderr by
	// itself; the relay already says that Redis is down, so they go to -vv.
	// The setting is global to the process: the first app's logger.
	redisLogOnce.Do(func() { redis.SetLogger(redisLog{a.logger()}) })
	st, err := redisstore.New(a.redis)
	if err != nil {
		return nil, usageError{fmt.Errorf("--redis %s: %w", printable(redirect.Redact(a.redis)), err)}
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := st.Ping(pctx); err != nil {
		fmt.Fprintf(a.stderr, "a2a-tail: WARNING: Redis at %s does not answer (%v): readers get 503 until it does\n",
			printable(redirect.Redact(a.redis)), err)
	}
	return st, nil
}

var redisLogOnce sync.Once

// redisLog sends go-redis's own log lines to the app's logger, at debug.
type redisLog struct{ l *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.l.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}
