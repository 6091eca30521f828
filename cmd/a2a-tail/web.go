package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/internal/redirect"
	"github.com/tfrs/a2a-progress/internal/termtext"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/frontend"
	"github.com/tfrs/a2a-progress/relay/redisstore"
	"github.com/tfrs/a2a-progress/relay/web"
)

// maxSendBytes caps the body of POST /tasks.
const maxSendBytes = 64 << 10

// webFlags are the flags of `a2a-tail web` that say who may use it.
type webFlags struct {
	listen      string
	allowRemote bool
	allowHosts  []string
	token       string
	tasks       []string
	anyTask     bool
}

// webTokenEnv gives the access token of --allow-remote without a flag (a
// flag shows in the process list).
const webTokenEnv = "A2A_TAIL_WEB_TOKEN"

// minWebTokenLen is the shortest access token --token takes: 16 characters
// (the generated one has 48 hex digits).
const minWebTokenLen = 16

// Bounds of the servers `a2a-tail web` starts: a client that sends no
// request, or a slow one, costs a connection for a bounded time, and past
// webMaxConns the oldest idle connection is closed for each new one, so
// that connections left open by anyone never keep the page from responding.
const (
	webReadHeaderTimeout = 10 * time.Second
	webIdleTimeout       = 60 * time.Second
	// webWriteTimeout bounds a whole response that is not an event stream
	// (the relay sets its own deadline before each write of a stream); it
	// lets a send wait for the agent as long as the relay waits for one.
	webWriteTimeout = relay.DefaultStartTimeout + 30*time.Second
	webMaxHeader    = 64 << 10
	// webMaxConns is above the relay's cap of readers per task (1 024),
	// with room for the pages' other requests: a busy task's next reader
	// gets the relay's 503 with Retry-After, which the page counts down,
	// not a closed connection, which a browser shows as a failed load.
	webMaxConns = 4096
)

func (a *app) webCommand() *cobra.Command {
	var f webFlags
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

Who may use it. It listens on loopback and responds only to requests addressed to it by
a loopback name (localhost, 127.0.0.1 or [::1] with its port; --web-host adds
names) from loopback clients, and browser requests only from its own page: a page
elsewhere — including one whose name was made to resolve to 127.0.0.1 (DNS
rebinding) — can neither send nor read. The relay reads tasks with your
credentials, so a browser reads only the tasks sent through this server and those
named with --task; --any-task lets it read any task the agent lets you read.
--listen on another address needs --allow-remote, and then an access token: the
one in $` + webTokenEnv + ` or --token (at least 16 characters), or a new one; the URL
it prints carries it.

With --redis redis://[user:password@]host:port/db (rediss:// for TLS) the page's
relay is one replica of several: the op logs, the chat map and the follow leases
live in Redis (Streams), so any replica serves any task — also turns that an
orchestrator worker publishes with the SDK's relay.Attach — and one replica per
task follows it upstream. A replica cannot know which tasks the others sent, so
--redis needs --any-task (the relay reads any task the agent lets you read).

` + exitCodesHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := checkListen(f.listen, f.allowRemote); err != nil {
				return err // before the agent is asked anything
			}
			if a.redis != "" && !f.anyTask {
				return usageError{errors.New("--redis needs --any-task: a replica cannot know which tasks the other replicas sent, so it cannot limit a browser to them")}
			}
			for _, id := range f.tasks {
				if err := relay.ValidateTaskID(id); err != nil {
					return usageError{fmt.Errorf("--task %q: %w", termtext.Printable(id), err)}
				}
			}
			if f.token == "" {
				f.token = os.Getenv(webTokenEnv)
			}
			if f.token != "" && len(f.token) < minWebTokenLen {
				return usageError{fmt.Errorf("--token (or $%s) has %d characters: an access token needs at least %d (a guessable one guards nothing)",
					webTokenEnv, len(f.token), minWebTokenLen)}
			}
			ctx := cmd.Context()
			// The page is served at once; the agent's card is read in the
			// background, again with backoff while the agent is not up.
			agent := client.NewLazy(ctx, args[0], 0, a.webClientOptions()...) // retries up to every 5 s: the page counts down
			defer agent.Close()
			return a.serveWeb(ctx, agent, f, "", nil)
		},
	}
	a.agentFlags(cmd)
	cmd.Flags().CountVarP(&a.verbose, "verbose", "v", "more diagnostics on stderr (repeat for debug logs)")
	// The page shows the turns, not the terminal: the output flags do not
	// apply, and their defaults are what the checks of the others expect.
	if a.output == "" {
		a.output, a.color = "text", "auto"
	}
	cmd.Flags().StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to serve the page on")
	cmd.Flags().BoolVar(&f.allowRemote, "allow-remote", false, "allow --listen on a non-loopback address (requires an access token: --token, $"+webTokenEnv+", or a generated one)")
	cmd.Flags().StringArrayVar(&f.allowHosts, "web-host", nil, "a further host name (host or host:port) the page may be opened by, e.g. behind a proxy (repeatable)")
	cmd.Flags().StringVar(&f.token, "token", "", "the access token of --allow-remote, at least 16 characters (default: $"+webTokenEnv+", else a new random one)")
	cmd.Flags().StringArrayVar(&f.tasks, "task", nil, "a task created elsewhere that the page may watch (repeatable)")
	cmd.Flags().BoolVar(&f.anyTask, "any-task", false, "let the page watch any task the agent lets you read, not only those sent through it or named with --task")
	cmd.Flags().StringVar(&a.redis, "redis", "", "share the relay's op logs through this Redis (redis:// or rediss:// URL): run several replicas (with --any-task)")
	return cmd
}

// webClientOptions are clientOptions with, unless --max-turn-bytes says
// otherwise, the turn budget the relay reserves for each task it follows
// (relay.DefaultFollowBudget): what keeps the process under the relay's
// memory bound however many tasks the page watches.
func (a *app) webClientOptions() []client.Option {
	opts := a.clientOptions()
	if a.maxTurnBytes == 0 {
		opts = append(opts, client.WithTurnBudget(relay.DefaultFollowBudget))
	}
	return opts
}

// serveWeb serves the page and relay for agent as f says until ctx ends.
// path is appended to the printed URL (demo: ?task=…); first, if not nil,
// is a turn sent before, which the relay publishes (demo).
func (a *app) serveWeb(ctx context.Context, agent *client.Lazy, f webFlags, path string, first *client.Stream) error {
	loopback, err := checkListen(f.listen, f.allowRemote)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	p, err := newWebPolicy(f, ln.Addr().String(), loopback)
	if err != nil {
		ln.Close()
		return err
	}
	if !loopback {
		fmt.Fprintf(a.stderr, "a2a-tail: serving %s beyond loopback: anyone with the token in the URL below can read the agent's progress and send it messages as you\n", termtext.Printable(f.listen))
	}
	opts := []relay.Option{relay.WithLogger(a.logger())}
	if a.maxTurnBytes > 0 {
		opts = append(opts, relay.WithFollowBudget(a.maxTurnBytes))
	}
	if a.redis != "" {
		st, err := a.redisStore(ctx)
		if err != nil {
			_ = ln.Close()
			return err
		}
		defer st.Close() // after the relay, which the returns below close first
		opts = append(opts, relay.WithStore(st))
	}
	w := newWebServer(ctx, agent, p, opts...)
	if first != nil {
		w.publish(first)
	}
	srv := newWebHTTPServer(w, newConnCap(webMaxConns))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	u := "http://" + ln.Addr().String() + "/" + path
	if p.token != "" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		u += sep + "token=" + url.QueryEscape(p.token)
	}
	fmt.Fprintln(a.stdout, u)
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

// newWebHTTPServer is the http.Server of `a2a-tail web`, with its timeouts
// and the connection cap cc.
func newWebHTTPServer(h http.Handler, cc *connCap) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: webReadHeaderTimeout,
		IdleTimeout:       webIdleTimeout,
		WriteTimeout:      webWriteTimeout,
		MaxHeaderBytes:    webMaxHeader,
		ConnState:         cc.track,
	}
}

// webPolicy is who may use a web server: the guard every request passes
// (Host, Origin, token), the relay's Authorizer, and the tasks a browser
// may read (nil: any).
type webPolicy struct {
	guard *relay.Guard
	auth  relay.Authorizer
	tasks *relay.TaskSet
	token string
}

// newWebPolicy is the policy of f for a server listening on addr.
func newWebPolicy(f webFlags, addr string, loopback bool) (webPolicy, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return webPolicy{}, err
	}
	p := webPolicy{auth: relay.AllowLoopback}
	if !f.anyTask {
		p.tasks = relay.NewTaskSet(0, f.tasks...)
	}
	hosts := relay.LoopbackHosts(port)
	for _, h := range f.allowHosts {
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, port)
		}
		hosts = append(hosts, h)
	}
	if !loopback {
		p.auth = relay.AllowAll // the token is the access control
		p.token = f.token
		if p.token == "" {
			var b [24]byte
			_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
			p.token = hex.EncodeToString(b[:])
		}
		if lh, _, _ := net.SplitHostPort(f.listen); lh != "" && net.ParseIP(lh) != nil && !net.ParseIP(lh).IsUnspecified() {
			hosts = append(hosts, net.JoinHostPort(lh, port))
		}
	}
	// Beyond loopback, a client reaches the server by one of the host's
	// addresses: an IP literal cannot be rebound, and the token guards the rest.
	p.guard = relay.NewGuard(relay.GuardConfig{Hosts: hosts, AnyIPHost: !loopback, Token: p.token})
	return p, nil
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
// /tasks to send a message, behind its policy.
type webServer struct {
	ctx    context.Context // turns responding to a task run on it; Close ends it
	stop   context.CancelFunc
	mu     sync.Mutex     // guards closed and the Add of turns
	turns  sync.WaitGroup // responding turns being published
	closed bool
	mux    *http.ServeMux
	routes []string     // the patterns mounted on mux (route)
	h      http.Handler // mux behind the guard
	relay  *relay.Handler
	agent  *client.Lazy
	p      webPolicy
	auth   relay.Authorizer // the relay's check: p.auth and, with p.tasks, the task set
}

func newWebServer(ctx context.Context, agent *client.Lazy, p webPolicy, opts ...relay.Option) *webServer {
	w := &webServer{mux: http.NewServeMux(), agent: agent, p: p}
	w.ctx, w.stop = context.WithCancel(ctx)
	c := agent
	auth := p.auth
	if p.tasks != nil {
		auth = p.tasks.Authorizer(auth)
		opts = append(opts, relay.WithStartedTasks(p.tasks))
	}
	w.auth = auth
	w.relay = relay.New(ctx, c, append([]relay.Option{relay.WithAuthorizer(auth),
		relay.WithFormat(frontend.FormatAGUI, frontend.AGUIFormat), relay.WithFormat(frontend.FormatAISDK, frontend.AISDKFormat)}, opts...)...)
	files := http.FileServerFS(web.FS)
	w.route("GET /tasks/{taskId}/events", w.relay)
	w.route("POST /tasks", w.needAgent(http.HandlerFunc(w.send)))
	w.route("GET /agent", http.HandlerFunc(w.agentState))
	// The front ends' own protocols (AG-UI, the AI SDK's useChat) over the
	// same relay; POST on the events route is AG-UI's reconnect
	// (?format=ag-ui with the client's RunAgentInput).
	w.route("POST /ag-ui", w.needAgent(w.relay.AGUI(c)))
	chat := w.needAgent(w.relay.Chat(c))
	w.route("POST /api/chat", chat)
	w.route("GET /api/chat/{id}/stream", chat)
	w.route("POST /tasks/{taskId}/events", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.relay.ServeEvents(rw, r, r.PathValue("taskId"))
	}))
	w.route("GET /{file}", files)
	w.route("GET /{$}", files)
	w.h = w.mux
	if p.guard != nil {
		w.h = p.guard.Wrap(w.mux)
	}
	return w
}

// route mounts h at pattern and lists the pattern in w.routes, which
// TestWebRoutesAccess walks: every route that takes an id from a browser
// must refuse one this server may not use.
func (w *webServer) route(pattern string, h http.Handler) {
	w.routes = append(w.routes, pattern)
	w.mux.Handle(pattern, h)
}

func (w *webServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("X-Content-Type-Options", "nosniff")
	rw.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; style-src 'self'; script-src 'self'; img-src 'self'; frame-ancestors 'none'")
	w.h.ServeHTTP(rw, r)
}

// Close stops the relay — event streams end, follows stop — and the
// responding turns it publishes.
func (w *webServer) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.stop()
	w.turns.Wait()
	return w.relay.Close()
}

// agentState responds to GET /agent with the agent's state, for the page
// to show.
func (w *webServer) agentState(rw http.ResponseWriter, _ *http.Request) {
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(rw).Encode(w.agent.State())
}

// needAgent responds 503 with Retry-After and the agent's state to a
// request that needs the agent before its card could be read. (A request
// for a task's events asks the agent only when the relay does not hold
// the task: its 502 carries the state in its error.)
func (w *webServer) needAgent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if _, err := w.agent.Client(); err != nil {
			rw.Header().Set("Content-Type", "application/json")
			rw.Header().Set("Retry-After", "2")
			rw.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(rw).Encode(struct {
				Error string            `json:"error"`
				Agent client.AgentState `json:"agent"`
			}{err.Error(), w.agent.State()})
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// send takes {"text": …} and responds {"task": id, "turn": id}. A new
// message (with "context": the conversation's contextId, when the page has
// one) is dispatched with return-immediately; a response ("task": the id of a
// task that waits for input) is the next turn of that task, as `send --task`
// sends it, and is published to the task's readers with Attach (the relay
// reopens a settled task's stream only for an attached turn). "turn" is the
// sent message's id, which names the turn in the ops. It takes only
// application/json, which a cross-origin page cannot send without a CORS
// preflight that this server never allows.
func (w *webServer) send(rw http.ResponseWriter, r *http.Request) {
	if err := w.p.auth(r, ""); err != nil {
		jsonError(rw, http.StatusForbidden, err.Error())
		return
	}
	var body struct {
		Text    string `json:"text"`
		Task    string `json:"task"`
		Context string `json:"context"`
	}
	if status, err := relay.ReadJSON(rw, r, &body, maxSendBytes); err != nil {
		jsonError(rw, status, "a2a-tail: POST /tasks: "+err.Error())
		return
	}
	if strings.TrimSpace(body.Text) == "" {
		jsonError(rw, http.StatusBadRequest, `a2a-tail: "text" is empty`)
		return
	}
	if body.Task != "" {
		if err := relay.ValidateTaskID(body.Task); err != nil {
			jsonError(rw, http.StatusBadRequest, "a2a-tail: "+err.Error())
			return
		}
		if err := w.auth(r, body.Task); err != nil {
			status := http.StatusForbidden
			if errors.Is(err, relay.ErrNotFound) {
				status = http.StatusNotFound // a task this server did not send
			}
			jsonError(rw, status, err.Error())
			return
		}
		w.respond(rw, a2a.TaskID(body.Task), body.Text)
		return
	}
	if body.Context != "" && relay.ValidateTaskID(body.Context) != nil {
		jsonError(rw, http.StatusBadRequest, `a2a-tail: "context" is not a conversation id`)
		return
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(body.Text))
	msg.ContextID = body.Context
	if w.p.tasks != nil {
		// Only a conversation this server made: a context named by a
		// browser that it never gave out starts a new one (TaskSet).
		msg.ContextID = w.p.tasks.Conversation(body.Context, true)
	}
	id, err := w.agent.Dispatch(r.Context(), msg)
	if err != nil {
		agentError(rw, err)
		return
	}
	if w.p.tasks != nil {
		w.p.tasks.Add(string(id)) // before the page can ask for it
	}
	w.relay.Dispatched(string(id), msg.ID) // for an agent that keeps no history
	sent(rw, id, msg.ID)
}

// respond sends text as the next turn of task and publishes the turn. The
// turn outlives the request: it runs on the server's context.
func (w *webServer) respond(rw http.ResponseWriter, task a2a.TaskID, text string) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		jsonError(rw, http.StatusServiceUnavailable, "a2a-tail: the server is stopping")
		return
	}
	w.turns.Add(1)
	w.mu.Unlock()
	c, err := w.agent.Client()
	if err != nil {
		w.turns.Done()
		agentError(rw, err)
		return
	}
	st, err := c.Respond(w.ctx, task, text)
	if err != nil {
		w.turns.Done()
		agentError(rw, err)
		return
	}
	turn := st.Turn()
	go func() {
		defer w.turns.Done()
		for range w.relay.Attach(st) {
		}
	}()
	sent(rw, task, turn)
}

func sent(rw http.ResponseWriter, task a2a.TaskID, turn string) {
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(struct {
		Task string `json:"task"`
		Turn string `json:"turn"`
	}{string(task), turn})
}

// agentError responds to a failed call to the agent: 404 for a task it does not
// know, 503 when the server is stopping, 502 otherwise.
func agentError(rw http.ResponseWriter, err error) {
	status := http.StatusBadGateway
	switch {
	case errors.Is(err, a2a.ErrTaskNotFound):
		status = http.StatusNotFound
	case errors.Is(err, context.Canceled):
		status = http.StatusServiceUnavailable
	}
	jsonError(rw, status, "a2a-tail: agent: "+err.Error())
}

func jsonError(rw http.ResponseWriter, status int, msg string) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(struct {
		Error string `json:"error"`
	}{msg})
}

// redisStore connects to --redis. A Redis that does not respond yet is said
// on stderr, not fatal: the relay responds 503 until it does (see package
// redisstore), as it does when Redis goes away later.
func (a *app) redisStore(ctx context.Context) (*redisstore.Store, error) {
	// go-redis also writes its own lines about failed dials to stderr
	// ("redis: … failed to dial"): its logger is global to the process, and
	// a2a-tail leaves it as go-redis sets it.
	st, err := redisstore.New(a.redis)
	if err != nil {
		return nil, usageError{fmt.Errorf("--redis %s: %w", termtext.Printable(redirect.Redact(a.redis)), err)}
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := st.Ping(pctx); err != nil {
		fmt.Fprintf(a.stderr, "a2a-tail: WARNING: Redis at %s does not respond (%v): readers get 503 until it does\n",
			termtext.Printable(redirect.Redact(a.redis)), err)
	}
	return st, nil
}
