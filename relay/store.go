package relay

import (
	"context"
	"errors"
	"time"
)

// A Store holds what several relay processes share, so that any replica can
// serve any reader and a process that only publishes (an orchestrator
// worker that Attaches its own turns) needs no HTTP server: per task, an
// append-only op log read from a cursor with a blocking wait; the chat →
// task map of [Handler.Chat]; and a short lease so that one process
// follows a given task upstream. Package relay/redisstore is one, on Redis
// Streams.
//
// Without a Store (the default) a Handler keeps each task's op log in its
// own memory and is the only process that serves it: nothing to install,
// and the figures of BENCHMARKS.md. With one ([WithStore]), every op a
// Handler publishes — Attach, a Follow — is appended to the Store, and each
// task a Handler serves is mirrored from the Store into that same bounded
// in-memory log, one reading goroutine per served task; the SSE event id is
// the Store's record id, so a reader resumes on any replica.
//
// Implementations must be safe for concurrent use by several Handlers and
// processes.
type Store interface {
	// Append adds op (the op's JSON) to task's log and returns its record.
	// A publisher passes continuing once it has appended an op of this
	// task before: if the log is gone meanwhile (expired, evicted, the
	// store restarted empty) Append appends nothing and returns an error
	// wrapping [ErrLogLost], and the publisher republishes what it has.
	// settles says the op settles the task's latest turn: the store may
	// then let the log expire sooner.
	Append(ctx context.Context, task string, op []byte, continuing, settles bool) (Record, error)
	// AppendAll is Append of every op of ops, in order, at once: a Read
	// returns none of them or, up to its bound, all. A publisher puts its
	// whole view back with it, so that a reader never takes a snapshot of
	// half a view and gets the rest as ops it already has. settles is
	// said of the last op.
	AppendAll(ctx context.Context, task string, ops [][]byte, continuing, settles bool) error
	// Read returns the records of task's log after the record id after (""
	// or "0": from the start), oldest first, at most a bounded number (at
	// least 2); when there are none it waits up to wait (0: not at all) for
	// one. No
	// records and no error is a wait that ended empty; a missing log reads
	// as empty.
	Read(ctx context.Context, task, after string, wait time.Duration) ([]Record, error)
	// SetChat remembers that chat's latest task is task; Chat returns it,
	// "" when unknown. Entries expire by themselves.
	SetChat(ctx context.Context, chat, task string) error
	Chat(ctx context.Context, chat string) (string, error)
	// Lease takes or renews, for ttl, the right of owner to follow task
	// upstream, and reports whether owner holds it. Unlease gives it back
	// when owner holds it.
	Lease(ctx context.Context, task, owner string, ttl time.Duration) (bool, error)
	Unlease(ctx context.Context, task, owner string) error
	// Leased reports whether some process holds task's lease: a publisher
	// is at work on it, so an empty log is one to come back to.
	Leased(ctx context.Context, task string) (bool, error)
}

// A Record is one op of a task's log in a [Store].
type Record struct {
	// ID names the record: strictly increasing within the log, at most
	// maxCursorBytes long. It is the SSE event id of the op.
	ID string
	// N numbers the ops of the log from 1, without gaps: a reader that sees
	// another number than the one after its last knows that the log was
	// trimmed past it or lost, and starts over.
	N uint64
	// Op is the op's JSON.
	Op []byte
}

// ErrLogLost reports that a task's log disappeared from a [Store] between
// two appends of one publisher.
var ErrLogLost = errors.New("relay: store: the task's log was lost")

// Defaults of a shared store's timing (see [WithStore]).
const (
	// defaultLeaseTTL is how long a follow lease lasts without renewal: a
	// process that dies while following a task hands it over to another
	// replica after at most this long.
	defaultLeaseTTL = 10 * time.Second
	// storeWait bounds one blocking Read of a mirror, so that it notices
	// its end and the Store's health at least this often: a Store client
	// may not abort a blocked read when its context ends (go-redis does
	// not), so this is also how long Close may wait for a mirror.
	storeWait = time.Second
	// storeRetry is the pause before a follow retries a lease or a failed
	// store, and between two follows of an unsettled task.
	storeRetry = time.Second
)

// WithStore shares the relay's op logs, chat map and follow leases through
// s (see [Store]) with the other processes given the same store. Without it
// a Handler keeps them in memory. The caller closes s after the Handler.
//
// With a Store, Attach waits for each append (one round trip: ops stay in
// order) and holds the task's follow lease while its stream runs; a failed
// append is logged, counted in [Stats], and repaired by appending the
// publisher's whole view once the Store responds again (for up to a minute
// after the stream ended). Each served task costs one goroutine that waits
// on the Store (at most a second per wait) besides its bounded log.
func WithStore(s Store) Option {
	return func(c *config) { c.store = s }
}
