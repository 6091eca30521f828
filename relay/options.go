package relay

import (
	"log/slog"
	"net/http"
	"time"
)

// Defaults of the bounds. The exported ones are those other packages size
// themselves by (relay/redisstore, a2a-tail web); the others are fixed for
// users (the tests of this package change them).
const (
	// DefaultMaxOps and defaultMaxLogBytes cap one task's op log: the ops a
	// subscriber can resume from. A subscriber whose cursor fell out of the
	// log gets a snapshot instead, so the caps bound memory, not correctness.
	// The bytes count what an op holds in the log: its JSON twice (the
	// encoded op and the decoded one) and 512 bytes of structures.
	DefaultMaxOps      = 4096
	defaultMaxLogBytes = 8 << 20
	// defaultMaxTaskBytes is what one task may cost the relay in all, in
	// bytes: its op log (at most defaultMaxLogBytes of it, counted as
	// above), a running Follow of it (reserved whole: see
	// WithFollowBudget), its merged view for snapshots (at most
	// merge.DefaultMaxTurnBytes, every turn it keeps together) and, in what
	// those leave, what each front-end subscriber of the task (package
	// relay/frontend: AG-UI, AI SDK) keeps: its own merged view, charged as
	// it grows, and its encoder's state, reserved whole when it subscribes
	// (about 3.1 MiB). Past it a new front-end subscriber of the task gets
	// 503 with Retry-After (counted in Stats.Refused), and a block that
	// does not fit a subscriber's view is dropped from it and counted in
	// its result (droppedByCap), as merge's caps do.
	defaultMaxTaskBytes = 128 << 20
	// defaultMaxBytes caps what all tasks cost together, as
	// defaultMaxTaskBytes counts it (op logs, merged views, running
	// Follows, front-end subscribers): past it a request for a task the
	// relay does not hold, or a new front-end subscriber, gets 503 with
	// Retry-After, and is counted in Stats.Refused; a block that would take
	// a view past it is dropped from that view and counted. The tasks held
	// go on; eviction frees their bytes. It is what keeps the process's
	// RSS under about 256 MiB however many tasks flood it (the Go heap
	// grows to about twice its live part before a collection:
	// TestRelayFloodRSS measures it; see the package doc).
	defaultMaxBytes = 64 << 20
	// defaultMaxTurns caps the turns the front-end endpoints (package
	// relay/frontend) run at once, each holding one upstream stream until
	// it ends: past it a request gets 503.
	defaultMaxTurns = 256
	// DefaultFollowBudget is the turn budget the relay reserves for each
	// running Follow unless WithFollowBudget says otherwise: build the
	// Follower with client.WithTurnBudget(DefaultFollowBudget).
	DefaultFollowBudget = 8 << 20
	// defaultMaxSubscribersPerTask and defaultMaxSubscribers cap open event
	// streams per task and per Handler; past them a request gets 503.
	defaultMaxSubscribersPerTask = 1024
	defaultMaxSubscribers        = 10000
	// DefaultMaxTasks caps the tasks a Handler holds (each may run one
	// upstream subscription); past it a request for a new task gets 503.
	DefaultMaxTasks = 1024
	// DefaultTTL is how long a task nobody watches is kept: its log, view
	// and upstream. A settled task's reconnects within it cost the agent
	// nothing; after it, one Follow (which, for a settled task, is one
	// GetTask).
	DefaultTTL = 5 * time.Minute
	// defaultKeepAlive is the interval of the SSE comment sent on an idle
	// stream, below common proxy idle timeouts (60 s).
	defaultKeepAlive = 15 * time.Second
	// defaultRetry is the reconnect delay sent to EventSource (retry:).
	defaultRetry = 2 * time.Second
	// defaultWriteTimeout bounds one write to a subscriber: a browser that
	// stops reading is dropped when it passes, and its goroutine ends.
	defaultWriteTimeout = 10 * time.Second
	// DefaultStartTimeout bounds how long a request for a task waits for the
	// upstream's first response before it gets 504.
	DefaultStartTimeout = 30 * time.Second
)

// An Authorizer decides whether request r may watch task. It returns nil to
// allow; an error wrapping [ErrNotFound] to respond 404; any other error to
// respond 403. The error's text is sent in the JSON body: do not put secrets
// in it. It is called for every request, before anything is started for the
// task, and must be safe for concurrent use. The relay reads the task with
// its own credentials, not the requester's: an Authorizer decides which
// tasks a requester may see, not only who it is ([TaskSet] is the common
// policy: the tasks started through this relay).
type Authorizer func(r *http.Request, task string) error

// Option configures a Handler.
type Option func(*config)

type config struct {
	authorize    Authorizer
	started      *TaskSet
	corsOrigins  map[string]bool
	corsAny      bool
	maxOps       int
	maxLogBytes  int
	maxBytes     int64
	maxTurns     int
	maxTaskBytes int
	followBudget int64
	maxPerTask   int
	maxSubs      int
	maxTasks     int
	ttl          time.Duration
	keepAlive    time.Duration
	retry        time.Duration
	writeTimeout time.Duration
	startTimeout time.Duration
	formats      map[string]Format
	logger       *slog.Logger
	store        Store // WithStore; nil: in memory
}

func defaultConfig() config {
	return config{
		maxOps:       DefaultMaxOps,
		maxLogBytes:  defaultMaxLogBytes,
		maxBytes:     defaultMaxBytes,
		maxTurns:     defaultMaxTurns,
		followBudget: DefaultFollowBudget,
		maxTaskBytes: defaultMaxTaskBytes,
		maxPerTask:   defaultMaxSubscribersPerTask,
		maxSubs:      defaultMaxSubscribers,
		maxTasks:     DefaultMaxTasks,
		ttl:          DefaultTTL,
		keepAlive:    defaultKeepAlive,
		retry:        defaultRetry,
		writeTimeout: defaultWriteTimeout,
		startTimeout: DefaultStartTimeout,
		formats:      map[string]Format{},
		logger:       slog.New(slog.DiscardHandler),
	}
}

// WithAuthorizer sets the access check. Without it every request is
// refused with 403: a relay shows what an agent does, so it has no open
// default. [AllowLoopback] is what `a2a-tail web` uses on 127.0.0.1.
func WithAuthorizer(a Authorizer) Option { return func(c *config) { c.authorize = a } }

// WithStartedTasks adds to s every task the handler's attached streams
// run — every stream given to [Handler.Attach], the turns relay/frontend's
// endpoints send included — as the stream adopts
// it, before any subscriber can ask for it. With s.Authorizer as the
// handler's Authorizer, a client reads only the tasks started through this
// relay (and those added to s).
func WithStartedTasks(s *TaskSet) Option { return func(c *config) { c.started = s } }

// WithCORS allows cross-origin pages of the given origins (scheme://host[:port],
// or "*" for any) to read the event streams. Without it no CORS header is
// sent and browsers keep cross-origin pages out.
func WithCORS(origins ...string) Option {
	return func(c *config) {
		c.corsOrigins = map[string]bool{}
		for _, o := range origins {
			if o == "*" {
				c.corsAny = true
			}
			c.corsOrigins[o] = true
		}
	}
}

// withLogCaps sets the op log caps of each task: ops and bytes of op JSON
// (defaults [DefaultMaxOps], defaultMaxLogBytes). The oldest ops leave
// first; values < 1 keep the default.
func withLogCaps(maxOps, maxBytes int) Option {
	return func(c *config) {
		setPositive(&c.maxOps, maxOps)
		setPositive(&c.maxLogBytes, maxBytes)
	}
}

// WithHandlerBudget caps what all tasks cost together, as the budget counts it
// (default 64 MiB, which keeps the process's RSS under about 256 MiB
// however many tasks flood it: the RSS runs to about four times the
// budget). With the default Follow budget each running Follow reserves
// 12 MiB of it, so about five run at once; a relay that must follow more
// tasks at a time raises it, and its memory bound with it. A value < 1
// keeps the default.
func WithHandlerBudget(n int64) Option {
	return func(c *config) { setPositive(&c.maxBytes, n) }
}

// WithMaxTurns caps the turns the front-end endpoints of package
// relay/frontend run at once for this Handler (default 256); past it a
// request that would send one gets 503 with Retry-After. n < 1 keeps the
// default.
func WithMaxTurns(n int) Option {
	return func(c *config) { setPositive(&c.maxTurns, n) }
}

// WithFollowBudget says what one Follow of the Follower may keep of its
// turn: its client's turn budget (client.WithTurnBudget). The relay cannot
// see a Follow's own budget, so it reserves n and the Follow's decoding
// (4 MiB) in the task's budget, and so in the handler's, while the Follow
// runs; past the handler's budget a new task gets 503. Default
// [DefaultFollowBudget] (8 MiB), which a client.Client made with
// client.WithTurnBudget(relay.DefaultFollowBudget) holds to; a client with
// its own default (32 MiB) holds four times as much, outside the relay's
// count unless it is said here. n < 1 keeps the default.
func WithFollowBudget(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.followBudget = n
		}
	}
}

// withTaskBudget sets what one task may cost in all (default
// defaultMaxTaskBytes); a value < 1 keeps the default. What is left of it
// past the op log's byte cap (withLogCaps) holds the task's merged view (at
// most merge.DefaultMaxTurnBytes) and, in what that leaves, its front-end
// subscribers; a budget that leaves them nothing refuses every front-end
// subscriber (503), and one smaller than the log's cap leaves the view
// nothing either: every block of it is dropped.
func withTaskBudget(n int) Option {
	return func(c *config) { setPositive(&c.maxTaskBytes, n) }
}

// withSubscriberCaps sets the caps on open event streams per task and in
// total (defaults defaultMaxSubscribersPerTask, defaultMaxSubscribers);
// values < 1 keep the default.
func withSubscriberCaps(perTask, total int) Option {
	return func(c *config) {
		setPositive(&c.maxPerTask, perTask)
		setPositive(&c.maxSubs, total)
	}
}

// withMaxTasks caps the tasks held at once (default [DefaultMaxTasks]).
func withMaxTasks(n int) Option {
	return func(c *config) { setPositive(&c.maxTasks, n) }
}

// withTTL sets how long a task without subscribers is kept (default
// [DefaultTTL]). A task that an attached stream still feeds is kept until
// that stream ends.
func withTTL(d time.Duration) Option {
	return func(c *config) { setPositive(&c.ttl, d) }
}

// withKeepAlive sets the keep-alive comment interval (default
// defaultKeepAlive).
func withKeepAlive(d time.Duration) Option {
	return func(c *config) { setPositive(&c.keepAlive, d) }
}

// WithReconnectDelay sets the reconnect delay sent to EventSource (default
// 2 s).
func WithReconnectDelay(d time.Duration) Option {
	return func(c *config) { setPositive(&c.retry, d) }
}

// withWriteTimeout bounds each write to a subscriber (default
// defaultWriteTimeout).
func withWriteTimeout(d time.Duration) Option {
	return func(c *config) { setPositive(&c.writeTimeout, d) }
}

// WithFormat serves f for ?format=name, besides the built-in formats
// (a name given here replaces a built-in one).
func WithFormat(name string, f Format) Option {
	return func(c *config) { c.formats[name] = f }
}

// WithLogger sets where the relay logs upstream failures (default: nowhere).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// setPositive sets *field to v when v > 0; a zero or negative value keeps
// the default, as every numeric option documents.
func setPositive[T int | int64 | time.Duration](field *T, v T) {
	if v > 0 {
		*field = v
	}
}
