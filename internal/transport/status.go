package transport

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sync/atomic"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A task that does not exist must be reported as [a2a.ErrTaskNotFound].
// a2a-go maps the usual answers itself, but a REST server that answers 404
// with a body a2a-go cannot read (the JS SDK's {code, message}, plain
// text) leaves it with nothing but ErrServerError, ErrInternalError or
// ErrParseError — the 404 that says it all is dropped — so the HTTP
// transport records the status of the calls that ask for it (WithStatus),
// and TaskCallErr puts the meaning back.

// statusKey is the context key of a call's StatusSlot.
type statusKey struct{}

// StatusSlot receives the HTTP status of the call whose context carries it.
type StatusSlot struct{ code atomic.Int32 }

// WithStatus returns ctx with a fresh slot for the status of one call.
func WithStatus(ctx context.Context) (context.Context, *StatusSlot) {
	slot := &StatusSlot{}
	return context.WithValue(ctx, statusKey{}, slot), slot
}

// errorTransport records the response status of calls that ask for it,
// and labels an error body of type application/problem+json as
// application/json: a2a-go's own v0.3 REST server sends its errors —
// a google.rpc.Status body — with that type, and a2a-go's REST clients
// read an error body only when the type is application/json; without the
// label every refusal of that server (task not found, not cancelable, …)
// would arrive as a bare ErrServerError.
type errorTransport struct{ base http.RoundTripper }

func (t *errorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err
	}
	if slot, ok := req.Context().Value(statusKey{}).(*StatusSlot); ok {
		slot.code.Store(int32(resp.StatusCode))
	}
	if resp.StatusCode >= 400 {
		if mt, params, perr := mime.ParseMediaType(resp.Header.Get("Content-Type")); perr == nil && mt == "application/problem+json" {
			resp.Header.Set("Content-Type", mime.FormatMediaType("application/json", params))
		}
	}
	return resp, err
}

// TaskCallErr gives the error of a call addressed to one task (GetTask,
// CancelTask) its meaning when the HTTP status says "not found" and a2a-go
// could not read the body. A 404 that a2a-go read as another A2A error
// stays that error; a JSON-RPC endpoint's 404 is a wrong URL, which a2a-go
// reports as an unexpected status and which is left alone.
//
// 401 and 403 likewise mean a refused credential, which a2a-go's JSON-RPC
// transport reports as a bare unexpected status: they become
// [a2a.ErrUnauthenticated] and [a2a.ErrUnauthorized], so that a caller
// can tell a refusal no retry changes from a failure that may heal.
func TaskCallErr(err error, slot *StatusSlot) error {
	if err == nil {
		return err
	}
	var meant error
	switch slot.code.Load() {
	case http.StatusNotFound:
		meant = a2a.ErrTaskNotFound
	case http.StatusUnauthorized:
		meant = a2a.ErrUnauthenticated
	case http.StatusForbidden:
		meant = a2a.ErrUnauthorized
	default:
		return err
	}
	if errors.Is(err, meant) || meant == a2a.ErrTaskNotFound && !(errors.Is(err, a2a.ErrServerError) || errors.Is(err, a2a.ErrInternalError) || errors.Is(err, a2a.ErrParseError)) {
		return err
	}
	return fmt.Errorf("%w (HTTP %d): %w", meant, slot.code.Load(), err)
}
