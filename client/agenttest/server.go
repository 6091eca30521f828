package agenttest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
)

// The protocol versions an Agent speaks.
const (
	V1 = a2a.Version   // "1.0"
	V0 = a2av0.Version // "0.3"
)

// transports lists the transports an Agent serves, each in V1 and V0.
var transports = []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC}

// versions lists the protocol versions an Agent serves.
var versions = []a2a.ProtocolVersion{V1, V0}

// Transports returns the transports an Agent serves (JSON-RPC, HTTP+JSON,
// gRPC), each in every one of [Versions]: a test that ranges over both
// covers every interface of the agent (see [Agent.Endpoint]). The slice is
// the caller's.
func Transports() []a2a.TransportProtocol { return append([]a2a.TransportProtocol(nil), transports...) }

// Versions returns the A2A protocol versions an Agent serves, [V1] and [V0].
// The slice is the caller's.
func Versions() []a2a.ProtocolVersion { return append([]a2a.ProtocolVersion(nil), versions...) }

// errClosing is why parked and gated executions end when the server closes.
var errClosing = errors.New("agenttest: server closed")

// Agent is an A2A agent listening on 127.0.0.1 that plays [Script]s over
// JSON-RPC, REST and gRPC, each in A2A 1.0 and 0.3. Start one with [New]
// and stop it with [Agent.Close]. All its methods are safe for concurrent
// use.
type Agent struct {
	// URL is the agent's address for a caller that discovers it from its
	// card: GET URL + "/.well-known/agent-card.json" gives an A2A 1.0 card
	// listing the JSON-RPC, REST and gRPC interfaces. It is what
	// client.New takes. Use [Agent.CardURL] for the 0.3 card and
	// [Agent.Endpoint] to force one transport.
	URL string

	httpSrv  *http.Server
	httpBase string // http://127.0.0.1:port
	grpcSrv  map[a2a.ProtocolVersion]*grpc.Server
	grpcAddr map[a2a.ProtocolVersion]string
	serving  sync.WaitGroup
	queues   *queueManager

	mu       sync.Mutex
	scripts  map[string]Script
	fallback Script
	gates    map[string]chan struct{}
	silent   map[a2a.TaskID]bool
	cuts     []cutPlan
	closed   bool
	closing  chan struct{}
	// running counts the executions between track and untrack.
	running    sync.WaitGroup
	executions map[*a2asrv.ExecutorContext]bool
}

// An Option configures [New].
type Option func(*config)

type config struct {
	historyLimit int
	logger       *slog.Logger
	scripts      []Script
	exec         a2asrv.AgentExecutor
}

// WithExecutor serves x instead of the script player: an agent of your own
// (one that uses package emit, say) behind the same transports, cards and
// faults — [Agent.CutAfter] cuts its streams too. Scripts, gates and
// Realistic are then unused. Close waits for x's executions to end, as for
// the player's, so x must end each turn (after Close, a new one is refused).
func WithExecutor(x a2asrv.AgentExecutor) Option {
	return func(c *config) { c.exec = x }
}

// WithScripts registers scripts as [Agent.Register] does, checked by [New]
// (which reports the first invalid one instead of panicking).
func WithScripts(scripts ...Script) Option {
	return func(c *config) { c.scripts = append(c.scripts, scripts...) }
}

// withHistoryLimit bounds Task.history: on every store update only the
// user message and the last n messages are kept. The stock in-memory store
// deep-copies the whole task several times per event, which makes long
// streams quadratic; floods and benchmarks want this. It is off by default
// because a late subscriber and GetTask backfill need the full history.
func withHistoryLimit(n int) Option {
	return func(c *config) { c.historyLimit = n }
}

// WithLogger sets the logger of a2asrv (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// New starts an agent on 127.0.0.1 (one HTTP port for JSON-RPC, REST and
// the agent cards, one port per gRPC version, each chosen by the system)
// that serves until [Agent.Close]. It plays [Realistic] for a message that
// names no registered script. It fails when a script given with
// [WithScripts] is invalid or when it cannot listen.
func New(opts ...Option) (*Agent, error) {
	cfg := config{logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	for _, sc := range cfg.scripts {
		if err := sc.validate(); err != nil {
			return nil, err
		}
	}
	s := &Agent{
		scripts:    map[string]Script{RealisticName: Realistic()},
		fallback:   Realistic(),
		gates:      make(map[string]chan struct{}),
		silent:     make(map[a2a.TaskID]bool),
		closing:    make(chan struct{}),
		executions: make(map[*a2asrv.ExecutorContext]bool),
		grpcSrv:    make(map[a2a.ProtocolVersion]*grpc.Server),
		grpcAddr:   make(map[a2a.ProtocolVersion]string),
		queues:     newQueueManager(),
	}

	var store taskstore.Store = taskstore.NewInMemory(nil)
	if cfg.historyLimit > 0 {
		store = boundedStore{Store: store, keep: cfg.historyLimit}
	}
	var exec a2asrv.AgentExecutor = executor{s: s}
	if cfg.exec != nil {
		exec = ownExecutor{s: s, x: cfg.exec}
	}
	handler := streamFilter{RequestHandler: a2asrv.NewHandler(exec,
		a2asrv.WithTaskStore(store), a2asrv.WithEventQueueManager(s.queues), a2asrv.WithLogger(cfg.logger)), s: s}

	var lns []net.Listener
	listen := func() (net.Listener, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			lns = append(lns, ln)
		}
		return ln, err
	}
	httpLn, err := listen()
	if err != nil {
		return nil, fmt.Errorf("agenttest: listen: %w", err)
	}
	s.httpBase = "http://" + httpLn.Addr().String()
	s.URL = s.CardURL(V1)
	for _, v := range versions {
		if _, err := listen(); err != nil {
			for _, ln := range lns {
				_ = ln.Close()
			}
			return nil, fmt.Errorf("agenttest: listen: %w", err)
		}
		s.grpcAddr[v] = lns[len(lns)-1].Addr().String()
	}

	mux := http.NewServeMux()
	mux.Handle(s.path(a2a.TransportProtocolJSONRPC, V1), a2asrv.NewJSONRPCHandler(handler))
	mux.Handle(s.path(a2a.TransportProtocolJSONRPC, V0), a2av0.NewJSONRPCHandler(handler))
	mux.Handle(s.path(a2a.TransportProtocolHTTPJSON, V1)+"/", http.StripPrefix(s.path(a2a.TransportProtocolHTTPJSON, V1), a2asrv.NewRESTHandler(handler)))
	mux.Handle(s.path(a2a.TransportProtocolHTTPJSON, V0)+"/", http.StripPrefix(s.path(a2a.TransportProtocolHTTPJSON, V0), a2av0.NewRESTHandler(handler)))
	for _, v := range versions {
		mux.Handle(cardPath(v, "")+a2asrv.WellKnownAgentCardPath, s.cardHandler(v, s.endpoints(v)...))
		for _, t := range transports {
			mux.Handle(cardPath(v, t)+a2asrv.WellKnownAgentCardPath, s.cardHandler(v, s.Endpoint(t, v)))
		}
	}
	s.httpSrv = &http.Server{Handler: s.faults(mux), ReadHeaderTimeout: 10 * time.Second}

	s.grpcSrv[V1] = grpc.NewServer(grpc.StreamInterceptor(s.grpcFaults))
	grpcv1.NewHandler(handler).RegisterWith(s.grpcSrv[V1])
	s.grpcSrv[V0] = grpc.NewServer(grpc.StreamInterceptor(s.grpcFaults))
	grpcv0.NewHandler(handler).RegisterWith(s.grpcSrv[V0])

	for _, sc := range cfg.scripts {
		s.Register(sc) // validated above
	}

	s.serving.Add(3)
	go func() {
		defer s.serving.Done()
		_ = s.httpSrv.Serve(httpLn) // ErrServerClosed after Close
	}()
	for i, v := range versions {
		go func() {
			defer s.serving.Done()
			_ = s.grpcSrv[v].Serve(lns[1+i])
		}()
	}
	return s, nil
}

// Close stops the server: executions still running (paused, gated, parked
// after a silent end or auth-required) end in the failed state "agenttest:
// server closed", streams get that state, then the listeners close. It
// returns once every goroutine the server started has ended. Close is
// idempotent.
func (s *Agent) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	s.mu.Unlock()

	s.running.Wait()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.httpSrv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.httpSrv.Close())
	}
	for _, g := range s.grpcSrv {
		stopped := make(chan struct{})
		go func() { g.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-ctx.Done():
			g.Stop()
			<-stopped
		}
	}
	s.serving.Wait()
	err = errors.Join(err, s.queues.destroyAll(ctx))
	if err != nil {
		return fmt.Errorf("agenttest: close: %w", err)
	}
	return nil
}

// Register adds sc to the scripts the executor plays, replacing one of the
// same Name; a message whose text is sc.Name plays it. A script with an
// empty Name replaces the default script, played for any message that
// names no registered script (initially [Realistic]). Register panics if
// sc is invalid ([Script.validate]): scripts are test fixtures.
func (s *Agent) Register(sc Script) {
	if err := sc.validate(); err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc.Name == "" {
		s.fallback = sc
		return
	}
	s.scripts[sc.Name] = sc
}

// Release opens the gate named gate: executions blocked before a step with
// that Gate go on, and later ones pass it without blocking. Releasing twice
// is harmless.
func (s *Agent) Release(gate string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.gateLocked(gate)
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// CutAfter arranges that the next streaming response (SendStreamingMessage
// or SubscribeToTask, on any transport) is cut right after its k-th event
// (k = 0: before the first). Each call arms one cut; calls queue up.
//
// Over HTTP (JSON-RPC, REST) an abrupt cut hijacks the connection and
// closes it mid-body (a2a-go clients see "unexpected EOF"); a clean cut
// ends the response properly, so the caller's loop just ends with no
// error. Over gRPC an abrupt cut ends the RPC with codes.Unavailable (the
// a2a-go client yields an *a2a.Error "agenttest: stream cut"), a clean one
// with OK. Either way the execution goes on server-side (a2asrv detaches
// it from the request), so the caller can resubscribe.
//
// Cuts are server-wide: a test that arms one should not share the server
// with tests that stream concurrently.
func (s *Agent) CutAfter(k int, abrupt bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cuts = append(s.cuts, cutPlan{after: k, abrupt: abrupt})
}

// Endpoint returns the interface of transport t in protocol version v
// (a fresh copy), or nil for an unknown pair. Build a client that uses
// exactly this transport with a2aclient.NewFromEndpoints.
func (s *Agent) Endpoint(t a2a.TransportProtocol, v a2a.ProtocolVersion) *a2a.AgentInterface {
	if !knownVersion(v) {
		return nil
	}
	var url string
	switch t {
	case a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON:
		url = s.httpBase + s.path(t, v)
	case a2a.TransportProtocolGRPC:
		url = s.grpcAddr[v]
	default:
		return nil
	}
	return &a2a.AgentInterface{URL: url, ProtocolBinding: t, ProtocolVersion: v}
}

// endpoints returns the interfaces of every transport in version v.
func (s *Agent) endpoints(v a2a.ProtocolVersion) []*a2a.AgentInterface {
	var out []*a2a.AgentInterface
	for _, t := range transports {
		if e := s.Endpoint(t, v); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// CardURL returns the base URL of the agent card of version v: GET
// CardURL(v) + "/.well-known/agent-card.json" (what agentcard.Resolver
// does) gives a card listing the three interfaces of version v. The 0.3
// card is in the v0.3/v1.0 union format of a2av0 (parse it with
// a2av0.NewAgentCardParser). "" for an unknown version.
func (s *Agent) CardURL(v a2a.ProtocolVersion) string {
	if !knownVersion(v) {
		return ""
	}
	return s.httpBase + cardPath(v, "")
}

// CardURLFor is like [Agent.CardURL] for a card that lists only transport
// t, so that a client built from it can only use t.
func (s *Agent) CardURLFor(t a2a.TransportProtocol, v a2a.ProtocolVersion) string {
	if s.Endpoint(t, v) == nil {
		return ""
	}
	return s.httpBase + cardPath(v, t)
}

func knownVersion(v a2a.ProtocolVersion) bool { return v == V1 || v == V0 }

// path is where an HTTP transport is mounted.
func (s *Agent) path(t a2a.TransportProtocol, v a2a.ProtocolVersion) string {
	return "/a2a/" + string(v) + "/" + transportSegment(t)
}

func cardPath(v a2a.ProtocolVersion, t a2a.TransportProtocol) string {
	if t == "" {
		return "/cards/" + string(v)
	}
	return "/cards/" + string(v) + "/" + transportSegment(t)
}

func transportSegment(t a2a.TransportProtocol) string {
	switch t {
	case a2a.TransportProtocolHTTPJSON:
		return "rest"
	default:
		return strings.ToLower(string(t))
	}
}

func (s *Agent) cardHandler(v a2a.ProtocolVersion, ifaces ...*a2a.AgentInterface) http.Handler {
	card := &a2a.AgentCard{
		Name:                "tfrs test agent",
		Description:         "Plays scripted progress-envelope trajectories (github.com/tfrs/a2a-progress/client/agenttest).",
		Version:             "1.0.0",
		SupportedInterfaces: ifaces,
		DefaultInputModes:   []string{"text"},
		DefaultOutputModes:  []string{"text"},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		Skills: []a2a.AgentSkill{{
			ID:          "script",
			Name:        "play a script",
			Description: "The message text names the script to play; any other text plays the default script.",
			Tags:        []string{"test"},
		}},
	}
	if v == V0 {
		return a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card))
	}
	return a2asrv.NewStaticAgentCardHandler(card)
}

// script returns the script named name, or the default one.
func (s *Agent) script(name string) Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc, ok := s.scripts[name]; ok {
		return sc
	}
	return s.fallback
}

// track registers a running execution, so that Close can wait for it
// until a2asrv has finished with it ([Agent.untrack], from Cleanup). It
// fails once the server is closing.
func (s *Agent) track(ec *a2asrv.ExecutorContext) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.executions[ec] = true
	s.running.Add(1)
	return true
}

func (s *Agent) untrack(ec *a2asrv.ExecutorContext) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.executions[ec] {
		delete(s.executions, ec)
		s.running.Done()
	}
}

// gate returns the channel of a gate, closed once released.
func (s *Agent) gate(name string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gateLocked(name)
}

// gateLocked returns the channel of a gate, making it on first use. s.mu
// held.
func (s *Agent) gateLocked(name string) chan struct{} {
	ch, ok := s.gates[name]
	if !ok {
		ch = make(chan struct{})
		s.gates[name] = ch
	}
	return ch
}

// wait sleeps d, then waits for the gate; it gives up when ctx is done or
// the server closes.
func (s *Agent) wait(ctx context.Context, d time.Duration, gate string) error {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", errStopped, context.Cause(ctx))
		case <-s.closing:
			return errClosing
		}
	}
	if gate != "" {
		select {
		case <-s.gate(gate):
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", errStopped, context.Cause(ctx))
		case <-s.closing:
			return errClosing
		}
	}
	return nil
}

// park blocks until ctx is done or the server closes, and says which.
func (s *Agent) park(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", errStopped, context.Cause(ctx))
	case <-s.closing:
		return errClosing
	}
}

func (s *Agent) markSilent(id a2a.TaskID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silent[id] = true
}

func (s *Agent) isSilent(id a2a.TaskID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.silent[id]
}

func (s *Agent) takeCut() (cutPlan, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cuts) == 0 {
		return cutPlan{}, false
	}
	p := s.cuts[0]
	s.cuts = s.cuts[1:]
	return p, true
}
