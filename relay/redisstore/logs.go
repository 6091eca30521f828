package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// go-redis writes some failures (a dial that failed after its retries, a
// connection it could not close) to one logger per process, stderr by
// default, besides returning them. A Store tags what it can of its own:
// the context of each of its commands, and the error of each of its dials
// (go-redis dials on a context of its own, but logs the dial's error). The
// router below, installed once per process by the first New,
// sends a tagged line to that Store's logger (WithLogger; by default
// nowhere, since the relay reports a store that fails in its own log and
// Stats) and writes every other line as go-redis's default logger does, so
// that the program's other go-redis clients log as before.

// logTag is the context value a Store's commands carry: its logger, nil
// for none.
type logTag struct{ l *slog.Logger }

type logTagKey struct{}

// logRouter is the go-redis logger redisstore installs.
type logRouter struct{ fallback *log.Logger }

// Printf implements go-redis's Logging.
func (r logRouter) Printf(ctx context.Context, format string, v ...any) {
	t, ok := tagOf(ctx, v)
	if !ok {
		r.fallback.Printf(format, v...)
		return
	}
	if t.l != nil {
		msg := fmt.Sprintf(format, v...)
		if !strings.HasPrefix(msg, "redis: ") {
			msg = "redis: " + msg
		}
		t.l.DebugContext(context.WithoutCancel(ctx), msg)
	}
}

// tagOf finds a Store's tag on a log line: in its context, or on an error
// among its arguments.
func tagOf(ctx context.Context, v []any) (logTag, bool) {
	if ctx == nil {
		ctx = context.Background()
	}
	if t, ok := ctx.Value(logTagKey{}).(logTag); ok {
		return t, true
	}
	for _, a := range v {
		var d *dialError
		if err, ok := a.(error); ok && errors.As(err, &d) {
			return d.tag, true
		}
	}
	return logTag{}, false
}

// dialError is a failed dial of a Store's client: the error, unchanged in
// text and for errors.Is and As, with the Store's tag.
type dialError struct {
	err error
	tag logTag
}

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// Timeout and Temporary answer for the dial's error, so that a dialError
// is a net.Error as the dial's own is: go-redis classifies failed calls
// with a type assertion.
func (e *dialError) Timeout() bool {
	var t interface{ Timeout() bool }
	return errors.As(e.err, &t) && t.Timeout()
}

// Temporary: see Timeout.
func (e *dialError) Temporary() bool {
	var t interface{ Temporary() bool }
	return errors.As(e.err, &t) && t.Temporary()
}

var _ net.Error = (*dialError)(nil)

var routeOnce sync.Once

// routeRedisLogs installs the router, once per process.
func routeRedisLogs() {
	routeOnce.Do(func() {
		redis.SetLogger(logRouter{log.New(os.Stderr, "redis: ", log.LstdFlags)})
	})
}

// tagHook puts a Store's logTag on the context of every command and on
// the error of every dial.
type tagHook struct{ tag logTag }

func (h tagHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, &dialError{err, h.tag}
		}
		return c, nil
	}
}

func (h tagHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return next(context.WithValue(ctx, logTagKey{}, h.tag), cmd)
	}
}

func (h tagHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return next(context.WithValue(ctx, logTagKey{}, h.tag), cmds)
	}
}
