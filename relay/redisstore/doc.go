// Package redisstore shares a relay's op logs, chat map and follow leases
// between processes through Redis Streams: give the same Store to the
// Handlers of every relay replica and of every orchestrator worker
// ([relay.WithStore]), and any replica serves any task — a turn a worker
// Attaches, a /v1/query stream, a useChat resume that lands on a replica
// that never saw the POST — while one process per task follows it upstream.
//
// # The model
//
// Each task has one stream, <prefix>{<task>}:log. Every op a publisher
// (Attach, a leased Follow) appends is one entry, XADD'ed by a Lua script
// that also numbers it (field n: 1, 2, … without gaps) and trims the stream
// to its caps in ops and in bytes of op JSON, oldest first. The entry's
// stream id (ms-seq) is the SSE event id a browser gets, so a reader that
// reconnects with Last-Event-ID to any replica is resumed from the stream
// with XREAD, without a snapshot; a cursor the stream no longer holds (its
// entry trimmed, the stream lost) gets a snapshot, as in memory. Each
// serving replica mirrors a watched task's stream into its own bounded log
// with XREAD BLOCK (one connection per served task while it waits).
//
// A stream expires defaultLiveTTL after its latest op, and defaultSettledTTL
// after the op that settles its turn. The chat → task map (SET with a TTL)
// and the follow leases (SET NX PX, renewed by their holder) expire by
// themselves.
//
// # When Redis misbehaves
//
// Nothing is retried blindly: go-redis's command retries are off unless the
// URL sets max_retries, because a retried append can land twice.
//
//   - Down at start, or down for a while: publishers log the failed appends
//     and count them in the Handler's Stats (StoreErrors, StoreDown); a
//     mirror whose read fails drops the task, so its readers' responses end
//     and their reconnects get 503 with Retry-After until Redis answers.
//   - Back again, with its data: a publisher whose append failed appends its
//     whole view again, readers' mirrors skip the ops they have, and a
//     reader resumes from its cursor: every op once.
//   - Back again, empty (a restart without persistence), or the stream
//     evicted under maxmemory: a publisher's next append finds its stream
//     gone (relay.ErrLogLost) and starts a new one with its whole view;
//     mirrors see the numbering start over, drop what they held, and each
//     reader gets a snapshot. Progress published while Redis was away
//     reaches readers only through that republished view; a publisher that
//     has nothing more to publish keeps trying for a minute, then gives up
//     (logged): readers then see the view up to the outage. The verdict is
//     never lost — the agent's task store is authoritative, and a follow
//     (or the next turn) brings it.
//   - Slow: appends and reads wait for Redis (go-redis's timeouts bound
//     each call); an op reaches readers late, never out of order.
//   - Full (maxmemory with noeviction): appends fail as above; use
//     noeviction or volatile-* so that Redis refuses rather than evicts
//     streams, and size maxmemory by the bounds below.
//
// # Logs
//
// go-redis writes some failures, such as a dial that failed after its
// retries, to a logger of its own that is global to the process (stderr
// unless the program replaced it), besides returning them to the caller.
// A Store leaves that logger alone: the relay reports a failing store in
// its own log (relay.WithLogger) and its Stats, and a program that wants
// go-redis's lines elsewhere, or nowhere, sets go-redis's logger itself
// (a2a-tail leaves them on stderr).
//
// # Bounds
//
// Per task: at most relay.DefaultMaxOps entries and 1 MiB of op JSON,
// plus Redis's own per-entry overhead (measured in BENCHMARKS.md). A
// stream lives an hour after its latest op and relay.DefaultTTL after the
// op that settles its turn; a chat's latest task, a day. The Redis memory
// the relays may use is those bounds times the tasks published within the
// hour, plus a small hash per stream, one key per lease and per chat.
// Set Redis's maxmemory to cap the total: past it appends fail loudly.
//
// # Why go-redis
//
// github.com/redis/go-redis/v9 is Redis's own Go client, kept by Redis:
// it speaks RESP2/3, TLS (rediss://) and ACL users from a URL, and runs Lua
// scripts with EVALSHA and an EVAL fallback after a restart. The relay uses
// a handful of commands (EVALSHA, XREAD, SET, GET); nothing here depends on
// go-redis beyond them.
package redisstore
