package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tfrs/a2a-progress/relay"
)

// Defaults of a Store.
const (
	// defaultPrefix starts every key the Store writes.
	defaultPrefix = "a2a-progress:"
	// defaultMaxBytes caps the op JSON of one task's stream.
	defaultMaxBytes = 1 << 20
	// defaultLiveTTL is how long a stream lives after its latest op.
	defaultLiveTTL = time.Hour
	// defaultSettledTTL is how long a stream lives after the op that
	// settles its turn: the relay's own TTL.
	defaultSettledTTL = relay.DefaultTTL
	// defaultChatTTL is how long a chat's latest task is remembered.
	defaultChatTTL = 24 * time.Hour
	// readCount caps the entries of one read.
	readCount = 512
)

// Store is a [relay.Store] on one Redis server (or a proxy that speaks to
// one: every key of a task shares its hash tag, so Redis Cluster's slot
// rule holds). It is safe for concurrent use.
type Store struct {
	rdb                          *redis.Client
	prefix                       string
	maxOps, maxBytes             int
	liveTTL, settledTTL, chatTTL time.Duration
}

var _ relay.Store = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithPrefix sets the prefix of every key (default "a2a-progress:"), so
// that several deployments share one Redis.
func WithPrefix(p string) Option { return func(s *Store) { s.prefix = p } }

// withLogCaps caps each task's stream in entries and in bytes of op JSON
// (defaults relay.DefaultMaxOps, defaultMaxBytes); the oldest go first.
// Values < 1 keep the default.
func withLogCaps(maxOps, maxBytes int) Option {
	return func(s *Store) {
		if maxOps > 0 {
			s.maxOps = maxOps
		}
		if maxBytes > 0 {
			s.maxBytes = maxBytes
		}
	}
}

// withTTLs sets how long a stream lives after its latest op and after the
// op that settles its turn, and how long a chat entry lives (defaults
// defaultLiveTTL, defaultSettledTTL, defaultChatTTL). Values < 1
// keep the default.
func withTTLs(live, settled, chat time.Duration) Option {
	return func(s *Store) {
		for _, f := range []struct {
			p *time.Duration
			v time.Duration
		}{{&s.liveTTL, live}, {&s.settledTTL, settled}, {&s.chatTTL, chat}} {
			if f.v > 0 {
				*f.p = f.v
			}
		}
	}
}

// New connects to the Redis of rawURL: redis://[user:password@]host:port/db
// or rediss:// for TLS, with go-redis's query options (pool_size,
// dial_timeout, …). Unless the URL says otherwise, commands are not retried
// (a retried append could land twice) and the pool holds
// relay.DefaultMaxTasks connections more than go-redis's default, since a
// replica waits on one per served task. New does not wait for Redis: a
// Redis that is down is reported by the calls (see the package doc); call
// Ping to check at start.
func New(rawURL string, opts ...Option) (*Store, error) {
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	q := url.Values{}
	if u, err := url.Parse(rawURL); err == nil {
		q = u.Query()
	}
	if !q.Has("max_retries") {
		o.MaxRetries = -1
	}
	if !q.Has("pool_size") {
		o.PoolSize = 10*4 + relay.DefaultMaxTasks
	}
	return newClient(redis.NewClient(o), opts...), nil
}

// newClient returns a Store on rdb, which it owns: Close closes it.
func newClient(rdb *redis.Client, opts ...Option) *Store {
	s := &Store{rdb: rdb, prefix: defaultPrefix, maxOps: relay.DefaultMaxOps, maxBytes: defaultMaxBytes,
		liveTTL: defaultLiveTTL, settledTTL: defaultSettledTTL, chatTTL: defaultChatTTL}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redisstore: %w", err)
	}
	return nil
}

// Close closes the connections. Close the Handlers that use s first.
func (s *Store) Close() error { return s.rdb.Close() }

func (s *Store) key(task, what string) string { return s.prefix + "{" + task + "}:" + what }

// appendScript appends ARGV[5], ARGV[6], … to the stream KEYS[1], in
// order and at once, numbering them in the hash KEYS[2], and trims the
// stream to ARGV[2] entries and ARGV[3] bytes of op JSON (never its newest
// entry). A continuing publisher (ARGV[1] = "1") whose stream or numbering
// is gone gets LOST and appends nothing; a new publisher starts them
// again. It returns the id and number of the last op appended.
var appendScript = redis.NewScript(`
local live = redis.call('EXISTS', KEYS[1]) == 1 and redis.call('EXISTS', KEYS[2]) == 1
if not live then
  if ARGV[1] == '1' then return redis.error_reply('LOST the task log is gone') end
  redis.call('DEL', KEYS[1], KEYS[2])
end
local n, id, bytes = 0, '', 0
for i = 5, #ARGV do
  n = redis.call('HINCRBY', KEYS[2], 'n', 1)
  id = redis.call('XADD', KEYS[1], '*', 'n', n, 'op', ARGV[i])
  bytes = redis.call('HINCRBY', KEYS[2], 'bytes', string.len(ARGV[i]))
end
local len = redis.call('XLEN', KEYS[1])
local maxlen, maxbytes = tonumber(ARGV[2]), tonumber(ARGV[3])
while len > 1 and (len > maxlen or bytes > maxbytes) do
  local e = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  local f, size = e[2], 0
  for i = 1, #f, 2 do if f[i] == 'op' then size = string.len(f[i + 1]) end end
  redis.call('XDEL', KEYS[1], e[1])
  bytes = redis.call('HINCRBY', KEYS[2], 'bytes', -size)
  len = len - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {id, n}
`)

// Append implements [relay.Store].
func (s *Store) Append(ctx context.Context, task string, op []byte, continuing, settles bool) (relay.Record, error) {
	id, n, err := s.append(ctx, task, [][]byte{op}, continuing, settles)
	if err != nil {
		return relay.Record{}, err
	}
	return relay.Record{ID: id, N: n, Op: op}, nil
}

// AppendAll implements [relay.Store]: one script, so that a read sees
// none of ops or all of them.
func (s *Store) AppendAll(ctx context.Context, task string, ops [][]byte, continuing, settles bool) error {
	if len(ops) == 0 {
		return nil
	}
	_, _, err := s.append(ctx, task, ops, continuing, settles)
	return err
}

// append runs appendScript and returns the last op's id and number.
func (s *Store) append(ctx context.Context, task string, ops [][]byte, continuing, settles bool) (string, uint64, error) {
	ttl := s.liveTTL
	if settles {
		ttl = s.settledTTL
	}
	cont := "0"
	if continuing {
		cont = "1"
	}
	args := make([]any, 0, 4+len(ops))
	args = append(args, cont, s.maxOps, s.maxBytes, ttl.Milliseconds())
	for _, op := range ops {
		args = append(args, op)
	}
	res, err := appendScript.Run(ctx, s.rdb, []string{s.key(task, "log"), s.key(task, "meta")}, args...).Slice()
	if err != nil {
		if strings.HasPrefix(err.Error(), "LOST") {
			return "", 0, fmt.Errorf("redisstore: %s: %w", task, relay.ErrLogLost)
		}
		return "", 0, fmt.Errorf("redisstore: append: %w", err)
	}
	if len(res) != 2 {
		return "", 0, fmt.Errorf("redisstore: append: unexpected reply %v", res)
	}
	id, _ := res[0].(string)
	n, _ := res[1].(int64)
	if id == "" || n < 1 {
		return "", 0, fmt.Errorf("redisstore: append: unexpected reply %v", res)
	}
	return id, uint64(n), nil
}

// Read implements [relay.Store].
func (s *Store) Read(ctx context.Context, task, after string, wait time.Duration) ([]relay.Record, error) {
	if after == "" {
		after = "0"
	}
	block := time.Duration(-1)
	if wait > 0 {
		block = max(wait, time.Millisecond)
	}
	streams, err := s.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{s.key(task, "log"), after}, Count: readCount, Block: block}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: read: %w", err)
	}
	var recs []relay.Record
	for _, st := range streams {
		for _, m := range st.Messages {
			ns, _ := m.Values["n"].(string)
			op, _ := m.Values["op"].(string)
			n, err := strconv.ParseUint(ns, 10, 64)
			if err != nil || n == 0 || op == "" {
				return recs, fmt.Errorf("redisstore: read: entry %s of %s is not a relay record", m.ID, task)
			}
			recs = append(recs, relay.Record{ID: m.ID, N: n, Op: []byte(op)})
		}
	}
	return recs, nil
}

// SetChat implements [relay.Store].
func (s *Store) SetChat(ctx context.Context, chat, task string) error {
	if err := s.rdb.Set(ctx, s.prefix+"chat:"+chat, task, s.chatTTL).Err(); err != nil {
		return fmt.Errorf("redisstore: chat: %w", err)
	}
	return nil
}

// Chat implements [relay.Store].
func (s *Store) Chat(ctx context.Context, chat string) (string, error) {
	task, err := s.rdb.Get(ctx, s.prefix+"chat:"+chat).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("redisstore: chat: %w", err)
	}
	return task, nil
}

var leaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
`)

var unleaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// Lease implements [relay.Store].
func (s *Store) Lease(ctx context.Context, task, owner string, ttl time.Duration) (bool, error) {
	n, err := leaseScript.Run(ctx, s.rdb, []string{s.key(task, "lease")}, owner, max(ttl.Milliseconds(), 1)).Int()
	if err != nil {
		return false, fmt.Errorf("redisstore: lease: %w", err)
	}
	return n == 1, nil
}

// Unlease implements [relay.Store].
func (s *Store) Unlease(ctx context.Context, task, owner string) error {
	if err := unleaseScript.Run(ctx, s.rdb, []string{s.key(task, "lease")}, owner).Err(); err != nil {
		return fmt.Errorf("redisstore: lease: %w", err)
	}
	return nil
}

// Leased implements [relay.Store].
func (s *Store) Leased(ctx context.Context, task string) (bool, error) {
	n, err := s.rdb.Exists(ctx, s.key(task, "lease")).Result()
	if err != nil {
		return false, fmt.Errorf("redisstore: lease: %w", err)
	}
	return n == 1, nil
}
