package client

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"google.golang.org/grpc"

	"github.com/tfrs/a2a-progress/client/internal/projection"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/transport"
	"github.com/tfrs/a2a-progress/merge"
)

// Defaults of the options.
const (
	// DefaultIdleTimeout is how long a stream may stay silent (no bytes on
	// HTTP transports, no event on gRPC) before it is treated as cut and
	// resumed. A false alarm costs one resubscription, which is lossless,
	// so the default errs on the short side of a dead TCP connection.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxAttempts bounds the resume attempts after one cut; an
	// attempt that brings news (a block, a state or an output artifact the
	// turn did not have) resets the count.
	DefaultMaxAttempts = 6
	// DefaultBaseBackoff is the wait before the first resume attempt; it
	// doubles per attempt, with jitter, up to 5 seconds.
	DefaultBaseBackoff = 100 * time.Millisecond
	// defaultMaxBackoff caps the wait between resume attempts.
	defaultMaxBackoff = 5 * time.Second
	// defaultMaxResubscribes bounds the resubscriptions of one turn in
	// all, news or not (see [WithResubscribeLimit]).
	defaultMaxResubscribes = 1000
	// defaultResubscribesPerMinute bounds the resubscriptions of one turn
	// within any minute: one past it waits (see [WithResubscribeLimit]).
	defaultResubscribesPerMinute = 30
	// defaultClientBudget is the byte budget shared by the turns of one
	// [Client] (see [WithClientBudget]): 512 MiB, sixteen turns at their
	// full default budget (merge.DefaultMaxTurnBytes).
	defaultClientBudget = 512 << 20
	// defaultCardTimeout bounds the agent card request of [New].
	defaultCardTimeout = 30 * time.Second
)

// Option configures a [Client].
type Option func(*config)

type config struct {
	transport     a2a.TransportProtocol // forced transport, "" = from the card
	version       a2a.ProtocolVersion   // with transport: the endpoint's version
	httpClient    *http.Client
	grpcOpts      []grpc.DialOption
	params        a2aclient.ServiceParams
	events        bool // WithEvents: Update.Event for every update
	tenant        string
	logger        *slog.Logger
	caps          merge.Caps
	capsSet       bool
	idle          time.Duration
	maxAttempts   int
	baseBackoff   time.Duration
	maxBackoff    time.Duration
	retryFor      time.Duration // WithRetryFor; 0: no window
	historyLength *int
	artifact      func(*a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool)
	noCompat      bool       // WithCompat(false): no projection recognition (PROTOCOL.md §5.1)
	replayTask    a2a.TaskID // WithTurn, for Replay
	replayTurn    string
	factoryOpts   []a2aclient.FactoryOption
	allowedHosts  []string         // WithAllowedHosts
	bounds        transport.Bounds // what a peer's response may cost (internal/transport)

	// What a turn may keep and how often it may resubscribe.
	turnBytes             int64 // WithTurnBudget; 0: the caps' MaxTurnBytes
	clientBytes           int64 // WithClientBudget
	maxResubscribes       int   // WithResubscribeLimit
	resubscribesPerMinute int
}

func defaultConfig() config {
	c := config{
		idle:        DefaultIdleTimeout,
		bounds:      transport.DefaultBounds(),
		maxAttempts: DefaultMaxAttempts,
		baseBackoff: DefaultBaseBackoff,
		maxBackoff:  defaultMaxBackoff,
		logger:      slog.New(slog.DiscardHandler),
	}
	c.clientBytes = defaultClientBudget
	c.maxResubscribes, c.resubscribesPerMinute = defaultMaxResubscribes, defaultResubscribesPerMinute
	return c
}

// WithTransport forces one transport (JSON-RPC, HTTP+JSON or gRPC): [New]
// skips the agent card and builds the client from the single endpoint
// agentURL (for gRPC, "http://host:port" is reduced to "host:port"). Its
// protocol version is v1.0 unless [WithProtocolVersion] says otherwise.
// Forcing is the only way to choose: a2a-go picks the newest protocol
// version before any preference, and never falls back between transports.
func WithTransport(p a2a.TransportProtocol) Option {
	return func(c *config) { c.transport = p }
}

// WithProtocolVersion sets the protocol version of the endpoint forced by
// [WithTransport]: "1.0" (the default) or "0.3" for the a2acompat wire.
// Without WithTransport the card says which versions an agent speaks.
func WithProtocolVersion(v a2a.ProtocolVersion) Option {
	return func(c *config) { c.version = v }
}

// WithHTTPClient sets the HTTP client of the card request and of the
// JSON-RPC and REST transports (both protocol versions).
//
// The client is copied, never modified. A whole-request Timeout is
// removed from the copy: it would end every stream after that time (the
// a2a-go default client does so at 3 minutes), so streams are bounded by
// their context and by the idle timeout instead; a non-streaming call
// (GetTask, SendMessage) gets the removed Timeout back as a context
// deadline. The copy's Transport is wrapped to observe the bytes that
// arrive, which is what the idle timeout measures.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient = hc }
}

// WithGRPCDialOptions adds dial options to the gRPC transports (both
// protocol versions). gRPC connections use TLS with the system roots
// unless an option sets other credentials: pass
// grpc.WithTransportCredentials(insecure.NewCredentials()) for a plaintext
// peer. Options without credentials (a user agent, interceptors) keep TLS.
// A received message may be up to 64 MiB (gRPC's own default, 4 MiB,
// would refuse a long Task history), one event of a stream up to 10 MiB,
// as on the HTTP transports; a grpc.MaxCallRecvMsgSize call option passed
// here replaces the first bound, not the second.
func WithGRPCDialOptions(opts ...grpc.DialOption) Option {
	return func(c *config) { c.grpcOpts = append(c.grpcOpts, opts...) }
}

// WithAuth sends credentials as the Authorization service parameter (an
// HTTP header, gRPC metadata) on every call and on the card request, like
// the --auth flag of a2a-go's CLI. cred is the whole value, e.g.
// "Bearer xyz".
func WithAuth(cred string) Option {
	return WithServiceParam("Authorization", cred)
}

// WithServiceParam adds a service parameter sent on every call, like the
// --svc-param k=v flag of a2a-go's CLI. It may be repeated.
func WithServiceParam(key, value string) Option {
	return func(c *config) {
		if c.params == nil {
			c.params = a2aclient.ServiceParams{}
		}
		c.params.Append(key, value)
	}
}

// WithTenant sets the tenant of every request, like the --tenant flag of
// a2a-go's CLI.
func WithTenant(tenant string) Option {
	return func(c *config) { c.tenant = tenant }
}

// WithLogger sets the logger. Reconnects are logged at debug level;
// envelope contents are never logged above debug. The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithCaps sets the merge caps of every stream's turn (default
// merge.DefaultCaps()).
func WithCaps(caps merge.Caps) Option {
	return func(c *config) { c.caps, c.capsSet = caps, true }
}

// WithTurnBudget sets the byte budget of each turn (default
// merge.DefaultMaxTurnBytes, 32 MiB; it overrides the MaxTurnBytes of
// [WithCaps]): one accounting of everything a [Stream] keeps of its turn —
// the merge's block texts, tool outputs and out-of-order blocks, the
// blocks a resubscription's snapshot or a GetTask's history backfills, and
// the output artifacts the verdict will carry. Past it the newest is
// dropped and counted: a block in Counters.DroppedByCap (its Change names
// merge.CapBytes), an artifact part in the tracker's counters, with
// Outcome.Truncated set. The verdict is never affected. n ≤ 0 keeps the
// default.
func WithTurnBudget(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.turnBytes = n
		}
	}
}

// WithClientBudget sets the byte budget shared by every turn of the
// client (default 512 MiB): each turn's charges count
// against its own budget ([WithTurnBudget]) and this one, so that many
// concurrent turns together stay under it. A turn gives its charge back
// when its [Stream] is garbage collected. n ≤ 0 keeps the default.
func WithClientBudget(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.clientBytes = n
		}
	}
}

// WithIdleTimeout sets how long a stream may stay silent before it is
// treated as cut (default [DefaultIdleTimeout]). On the HTTP transports
// built by [New] any byte counts, SSE keep-alive comments included; on gRPC
// and on clients passed to [Wrap], an event. d ≤ 0 disables it.
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) { c.idle = d }
}

// WithRetry bounds the resumption after a cut: at most maxAttempts
// subscriptions (each followed, when refused, by a GetTask), waiting
// baseBackoff before the first and doubling up to maxBackoff, with jitter.
// An attempt that brings news — a block, a state or an output artifact the
// turn did not have, not a replay of what it has (a state reached again, a
// message repeated under a fresh id) — resets the count; a turn that
// runs out of attempts ends incomplete with [ErrNoProgress] in its cause.
// [WithResubscribeLimit] bounds the total. maxAttempts 0 means
// no resubscription: a cut is resolved by one GetTask or ends incomplete.
// A negative maxAttempts, and durations ≤ 0, keep the defaults.
func WithRetry(maxAttempts int, baseBackoff, maxBackoff time.Duration) Option {
	return func(c *config) {
		if maxAttempts >= 0 {
			c.maxAttempts = maxAttempts
		}
		if baseBackoff > 0 {
			c.baseBackoff = baseBackoff
		}
		if maxBackoff > 0 {
			c.maxBackoff = maxBackoff
		}
	}
}

// WithRetryFor bounds the resumption after a cut in wall time as well: d
// is a deadline, counted from the cut (for [Client.Follow], from its
// start; for a stream that went silent, from its last event — the idle
// timeout only noticed the cut — leaving at least 10 s), checked before each attempt and ending each attempt's own wait —
// a subscription that stalls, a GetTask that trickles, a backoff — so that
// the turn ends incomplete with [ErrNoProgress] in its cause at most d
// after the cut, however slow each attempt is. A cut after news opens a
// fresh window. While a window is set, the count of [WithRetry] counts
// only the attempts that reached the task and brought nothing but a
// replay of what the turn has; attempts that fail to reach it are the
// window's to bound. d ≤ 0 (the default) sets no window.
func WithRetryFor(d time.Duration) Option {
	return func(c *config) { c.retryFor = max(d, 0) }
}

// WithResubscribeLimit bounds the resubscriptions of one turn whatever
// the peer sends, on top of [WithRetry] (which counts attempts in a row
// without news): at most perTurn in all (default 1000), and at most
// perMinute within any minute (default 30; one past it waits until the
// oldest of the minute ages out). A turn past perTurn is resolved by one
// GetTask, then ends incomplete with [ErrResubscribeLimit] in its cause.
// Values ≤ 0 keep the defaults.
func WithResubscribeLimit(perTurn, perMinute int) Option {
	return func(c *config) {
		if perTurn > 0 {
			c.maxResubscribes = perTurn
		}
		if perMinute > 0 {
			c.resubscribesPerMinute = perMinute
		}
	}
}

// WithHistoryLength bounds the history GetTask asks for when it resolves
// a cut or polls: the last n messages (n ≥ 1). By default the whole history
// is asked for, which is what makes a backfill lossless; a bound trades
// that for a smaller response from a callee with a huge history. On the
// HTTP transports built by [New], a response that is not an event stream
// is refused past 64 MiB (a2a-go decodes it whole): a GetTask over that
// fails like a transport error, and the turn may end incomplete.
func WithHistoryLength(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.historyLength = &n
		}
	}
}

// WithArtifactProgress installs the one place where an artifact update is
// classified: when f returns true, the update is progress, not output
// (PROTOCOL.md §5.1, a runtime that sends its progress frames in the
// artifact channel). Its Reading is merged like a working update's envelope and
// the artifact never reaches the Outcome's artifacts. f must not modify
// the event and is called for the artifacts of Task snapshots too. The
// compatibility layer ([WithCompat], on by default) classifies first: f
// sees the artifacts it did not claim.
func WithArtifactProgress(f func(*a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool)) Option {
	return func(c *config) { c.artifact = f }
}

// WithFactoryOptions passes extra options to the a2aclient factory of
// [New] (a2aclient.WithConfig, interceptors, another transport).
func WithFactoryOptions(opts ...a2aclient.FactoryOption) Option {
	return func(c *config) { c.factoryOpts = append(c.factoryOpts, opts...) }
}

// WithEvents(true) makes every [Update] carry the a2a-go event it came
// from in Update.Event, a plain progress update's too. By default the
// client's reader of JSON-RPC and HTTP+JSON streams builds no a2a-go event
// for a plain progress frame — an A2A 1.0 working (or submitted) status
// update whose message is one part carrying a valid envelope string in
// metadata["tfrs"], nearly every frame of a progress stream — but reads
// its state, ids, timestamp and envelope straight from the frame:
// Update.Event is nil on the updates of such a frame, and a call
// interceptor registered with [WithFactoryOptions] sees, in its After, an
// a2a.Event that is not one of a2a-go's types (its TaskInfo is the
// frame's; it is reused for the stream's next frame, so it must not be
// kept past the call) — for a one-part working update whose tfrs string
// is not a valid envelope too, whose text-fallback update carries a2a-go's
// event, built from the frame. With WithEvents(true) both see a2a-go's event, at some 1–2 µs
// and a dozen allocations more per event (BENCHMARKS.md). Streams on
// gRPC, and from clients given to [Wrap], always carry a2a-go's events.
func WithEvents(on bool) Option {
	return func(c *config) { c.events = on }
}

// WithCompat switches the compatibility layer for peers that send their
// progress in the artifact channel (PROTOCOL.md §5.1) on or off. It is on
// by default.
//
// While it is on, an artifact update that carries the runtime's
// "_remote_invocation" projection — in a part's metadata (text or data
// part), in a data part's object, or in the artifact's metadata — is
// progress, never output: it does not reach Outcome.Artifacts (nor does it
// from a Task snapshot) and is merged as the tool call of its member
// (batchId + toolCallId): tool = target, status by the projection's phase —
// QUEUED and RUNNING running, INPUT_REQUIRED running with an "awaiting
// input" text block, COMPLETED done, FAILED and TIMED_OUT aborted with an
// error block naming resultCategory. The text of such an artifact (the bare
// phase string) is never read as the phase. Its per-member sequence lives
// in a seq space of its own (schema.SourceProjection, keyed
// "ri:<batchId>:<toolCallId>"), so it neither collides with tfrs envelopes
// nor makes gaps among their seqs. A "_remote_invocation" value that does
// not have the documented shape is still progress: a text fallback that
// says why (UpdateProgress with Reading.Fallback and Reading.Err), never
// output. An artifact without the key is untouched.
//
// The interrupt of such a runtime (status.message.metadata._interrupt) is
// read by package terminal whatever this option says.
//
// A hook set with [WithArtifactProgress] classifies what the layer did not
// claim; WithCompat(false) leaves that hook alone in charge.
func WithCompat(on bool) Option {
	return func(c *config) { c.noCompat = !on }
}

// artifactHook is the artifact classifier of a stream: the compatibility
// layer first (unless switched off), then the caller's hook.
func (c *config) artifactHook() func(*a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
	user := c.artifact
	switch {
	case c.noCompat:
		return user
	case user == nil:
		return projection.FromArtifact
	}
	return func(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
		if r, ok := projection.FromArtifact(ev); ok {
			return r, true
		}
		return user(ev)
	}
}
