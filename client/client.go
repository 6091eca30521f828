package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/tfrs/a2a-progress/internal/fastpath"
	"github.com/tfrs/a2a-progress/internal/heldcall"
	"github.com/tfrs/a2a-progress/internal/redirect"
	"github.com/tfrs/a2a-progress/internal/transport"
	"github.com/tfrs/a2a-progress/merge"
)

// Client calls one A2A agent and turns its progress into [Stream]s. It is
// safe for concurrent use: each call returns its own Stream.
type Client struct {
	a2a   *a2aclient.Client
	cfg   config
	owned bool
	// callTimeout bounds non-streaming calls: the whole-request Timeout
	// removed from a caller's http.Client, or 0.
	callTimeout time.Duration
	// budget is the byte budget the client's turns share
	// (WithClientBudget); each turn's own is under it.
	budget *merge.Budget

	// idle holds the calls that Send opened and no iteration has taken
	// yet, for Close to release (its size: the streams sent and not yet
	// iterated, each a connection the caller holds open anyway).
	mu   sync.Mutex
	idle map[*heldcall.Call]struct{}
}

// track adds an idle call to the set Close releases, and returns the
// function that removes it.
func (c *Client) track(call *heldcall.Call) (untrack func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idle == nil {
		c.idle = make(map[*heldcall.Call]struct{})
	}
	c.idle[call] = struct{}{}
	return func() {
		c.mu.Lock()
		delete(c.idle, call)
		c.mu.Unlock()
	}
}

// ErrNoTask is returned by [Client.Dispatch] when the agent responded with
// a Message instead of creating a task: there is nothing to follow.
var ErrNoTask = errors.New("client: agent responded with a message, not a task")

// New resolves the agent card at agentURL (/.well-known/agent-card.json),
// reading v1.0 and v0.3 cards, and builds a client on the best interface
// the card lists. JSON-RPC, HTTP+JSON (REST) and gRPC are all registered,
// each for protocol v1.0 and v0.3 (a2acompat); a2a-go picks the newest
// version the card offers. [WithTransport] skips the card and uses agentURL
// as the single endpoint of the forced transport.
//
// The HTTP transports never carry a whole-request timeout (see
// [WithHTTPClient]). The card request is bounded by 30 seconds
// and ctx. Call [Client.Close] to release the connections.
func New(ctx context.Context, agentURL string, opts ...Option) (*Client, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	hc, removed := transport.HTTPClient(cfg.httpClient, cfg.bounds)
	redirect.Guard(hc, cfg.params)
	// The caller's factory options come last: a transport it registers
	// for the same key wins.
	fopts := slices.Concat(transport.FactoryOptions(cfg.grpcOpts, cfg.bounds), fastpath.FactoryOptions(hc, cfg.bounds.Event, cfg.events), cfg.factoryOpts)

	var (
		ac  *a2aclient.Client
		err error
	)
	if cfg.transport != "" {
		endpoint := agentURL
		if cfg.transport == a2a.TransportProtocolGRPC {
			endpoint = transport.GRPCTarget(agentURL)
		}
		version := cfg.version
		if version == "" {
			version = a2a.Version
		}
		iface := &a2a.AgentInterface{URL: endpoint, ProtocolBinding: cfg.transport, ProtocolVersion: version, Tenant: cfg.tenant}
		ac, err = a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface}, fopts...)
		if err != nil {
			return nil, fmt.Errorf("client: %s %s at %s: %w", cfg.transport, version, redirect.Redact(agentURL), err)
		}
	} else {
		resolver := &agentcard.Resolver{Client: hc, CardParser: transport.ParseCard}
		var ropts []agentcard.ResolveOption
		for k, vs := range cfg.params {
			ropts = append(ropts, agentcard.WithRequestHeader(k, strings.Join(vs, ", ")))
		}
		rctx, cancel := context.WithTimeout(ctx, defaultCardTimeout)
		rctx, _, cancelW := transport.WithWatchdog(rctx, cfg.idle)
		card, rerr := resolver.Resolve(rctx, agentURL, ropts...)
		rerr = transport.IdleCause(rctx, rerr)
		cancelW()
		cancel()
		if rerr != nil {
			return nil, fmt.Errorf("client: agent card of %s: %w", redirect.Redact(agentURL), rerr)
		}
		if card, err = cfg.keepOrigin(agentURL, card); err != nil {
			return nil, err
		}
		ac, err = a2aclient.NewFromCard(ctx, card, fopts...)
		if err != nil {
			return nil, fmt.Errorf("client: agent %q: %w", card.Name, err)
		}
	}
	c := newClient(ac, cfg)
	c.owned = true
	c.callTimeout = removed
	return c, nil
}

// Wrap builds a Client on an a2aclient.Client the caller built and keeps
// owning ([Client.Close] does not destroy it). The transport options of
// [New] do not apply; the idle timeout then counts events, not bytes. The
// caller must not have built c on an HTTP client with a whole-request
// timeout, or every stream dies at it (a2a-go's default is 3 minutes).
func Wrap(c *a2aclient.Client, opts ...Option) *Client {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	return newClient(c, cfg)
}

func newClient(ac *a2aclient.Client, cfg config) *Client {
	return &Client{a2a: ac, cfg: cfg, budget: merge.NewBudget(cfg.clientBytes, nil)}
}

// A2A returns the underlying a2a-go client, for the calls this package
// does not wrap (push configs).
func (c *Client) A2A() *a2aclient.Client { return c.a2a }

// ListTasks lists the agent's tasks (A2A tasks/list), as the a2a-go client
// does: relay/frontend's Agent uses it to find a conversation's latest task.
func (c *Client) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	return c.a2a.ListTasks(ctx, req)
}

// Close releases the connections of a client built by [New]; for a client
// from [Wrap] it does nothing to the a2a-go client. Streams in flight
// fail. Either way the calls of streams that [Client.Send] returned and
// nobody iterated yet are closed: such a stream then ends at once.
func (c *Client) Close() error {
	c.mu.Lock()
	idle := make([]*heldcall.Call, 0, len(c.idle))
	for call := range c.idle {
		idle = append(idle, call)
	}
	c.mu.Unlock()
	for _, call := range idle {
		call.CloseIdle()
	}
	if !c.owned {
		return nil
	}
	return c.a2a.Destroy()
}

// callCtx attaches the configured service parameters.
func (c *Client) callCtx(ctx context.Context) context.Context {
	if len(c.cfg.params) == 0 {
		return ctx
	}
	return a2aclient.AttachServiceParams(ctx, c.cfg.params)
}

// Send sends msg with SendStreamingMessage and returns the stream of the
// turn. Send waits for the first event, so that [Stream.TaskID] names the
// task when it returns — a caller can record it, or hand it to
// [Client.Cancel], before reading a single update; the event itself is
// the first thing the iteration handles. Iterate the stream, or [Stream.Close]
// it: the call stays open until then. msg is not modified: a copy gets a
// message id, the user role and a context id when they are
// missing. Send's error is
// about msg; what the agent and the transport did comes through the
// stream.
//
// The message is sent exactly once. When the stream is cut, the client
// resumes with SubscribeToTask and GetTask on the task the first event
// named — it never sends the message again. A message without a task
// or context id gets a new context id, so that the task it creates can be
// found: when the stream fails before its first event (not refused by the
// agent), the client asks ListTasks for the task of that context whose
// history holds the message, and resumes it. An agent without ListTasks,
// or no such task, ends the turn with an [*IncompleteError] that carries
// the message and context ids — the task may exist. A message to an
// existing task (msg.TaskID) is not resumed after such a failure: that
// task's state would still be the previous turn's. A refusal by the agent
// is returned as the stream's error.
func (c *Client) Send(ctx context.Context, msg *a2a.Message) (*Stream, error) {
	m, err := prepare(msg)
	if err != nil {
		return nil, err
	}
	req := &a2a.SendMessageRequest{Message: m, Tenant: c.cfg.tenant}
	st := c.newStream(ctx, modeSend, a2a.TaskID(m.TaskID), req, 0)
	st.readAhead()
	return st, nil
}

// SendText sends a user message with one text part; see [Client.Send].
func (c *Client) SendText(ctx context.Context, text string) (*Stream, error) {
	return c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)))
}

// Dispatch sends msg with SendMessage and return-immediately (v0.3:
// blocking=false) and returns the id of the task it created, to be
// followed with [Client.Follow] or [Client.Poll]. An agent that responds
// with a Message creates no task: Dispatch returns [ErrNoTask].
func (c *Client) Dispatch(ctx context.Context, msg *a2a.Message) (a2a.TaskID, error) {
	m, err := prepare(msg)
	if err != nil {
		return "", err
	}
	req := &a2a.SendMessageRequest{Message: m, Tenant: c.cfg.tenant, Config: &a2a.SendMessageConfig{ReturnImmediately: true}}
	ctx, cancel := c.unaryCtx(ctx)
	defer cancel()
	res, err := c.a2a.SendMessage(ctx, req)
	if err = transport.IdleCause(ctx, err); err != nil {
		return "", fmt.Errorf("client: dispatch: %w", err)
	}
	switch r := res.(type) {
	case *a2a.Task:
		if r.ID == "" {
			return "", fmt.Errorf("client: dispatch: the agent returned a task without an id")
		}
		return r.ID, nil
	default:
		return "", ErrNoTask
	}
}

// Follow subscribes to a task (SubscribeToTask) and returns the stream of
// its current turn: the same [Stream], with the same parsing, as [Send]
// (PROTOCOL.md §3.4). The subscription starts with the task's snapshot, whose
// history is scanned for the envelopes sent before it (backfill). A task
// that has already settled cannot be subscribed to; Follow then resolves
// it with GetTask.
func (c *Client) Follow(ctx context.Context, taskID a2a.TaskID) (*Stream, error) {
	if taskID == "" {
		return nil, errors.New("client: follow: empty task id")
	}
	return c.newStream(ctx, modeFollow, taskID, nil, 0), nil
}

// defaultPollInterval is the interval of [Client.Poll] when it is given
// one ≤ 0.
const defaultPollInterval = time.Second

// Poll follows a task without a subscription, for peers that offer none:
// GetTask with history every interval until the task settles. Envelopes
// come from the agent messages of the history and the current status
// message, merged idempotently — repeated polls report each block once.
// Progress is as coarse as the interval, and a bounded history
// ([WithHistoryLength]) may lose blocks between two polls.
func (c *Client) Poll(ctx context.Context, taskID a2a.TaskID, interval time.Duration) (*Stream, error) {
	if taskID == "" {
		return nil, errors.New("client: poll: empty task id")
	}
	if interval <= 0 {
		interval = defaultPollInterval
	}
	return c.newStream(ctx, modePoll, taskID, nil, interval), nil
}

// unaryCtx bounds a non-streaming call: by the removed whole-request
// timeout of the caller's http.Client when there was one, and by the idle
// timeout's watchdog (silence, not length).
func (c *Client) unaryCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx = c.callCtx(ctx)
	var cancelT context.CancelFunc = func() {}
	if c.callTimeout > 0 {
		ctx, cancelT = context.WithTimeout(ctx, c.callTimeout)
	}
	ctx, _, cancelW := transport.WithWatchdog(ctx, c.cfg.idle)
	return ctx, func() { cancelW(); cancelT() }
}

func prepare(msg *a2a.Message) (*a2a.Message, error) {
	if msg == nil {
		return nil, errors.New("client: nil message")
	}
	if len(msg.Parts) == 0 {
		return nil, errors.New("client: message without parts")
	}
	m := *msg
	if m.ID == "" {
		m.ID = a2a.NewMessageID()
	}
	if m.Role == "" {
		m.Role = a2a.MessageRoleUser
	}
	if m.TaskID == "" && m.ContextID == "" {
		// A context of its own names the task this message creates, should
		// the stream be cut before the first event says which (orphan.go).
		m.ContextID = a2a.NewContextID()
	}
	return &m, nil
}
