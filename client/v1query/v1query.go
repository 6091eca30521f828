package v1query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/internal/projection"
	"github.com/tfrs/a2a-progress/internal/idle"
	"github.com/tfrs/a2a-progress/internal/redirect"
)

// queryPath is the path of the endpoint, relative to the runtime's base URL.
const queryPath = "/v1/query"

// ErrStatus is matched (errors.Is) by the error of [Send] when the endpoint
// answers with a status other than 2xx, or with a body that is not an SSE
// stream.
var ErrStatus = errors.New("v1query: query refused")

// errIdle is the cause of a cut where nothing arrived for the idle timeout.
var errIdle = idle.ErrIdle

// Option configures [Send].
type Option func(*config)

type config struct {
	conversation string
	httpClient   *http.Client
	header       http.Header
	idle         time.Duration
	stream       []client.Option
}

// WithConversationID sets the conversation_id to send (default: a new
// random id per call). Respond to an interrupt by sending again with the id of
// the interrupted turn, which is its Outcome.TaskID.
func WithConversationID(id string) Option {
	return func(c *config) { c.conversation = id }
}

// WithHTTPClient sets the HTTP client (default: a zero http.Client). Its
// whole-request Timeout is removed — it would end every longer stream;
// [WithIdleTimeout] bounds silence instead.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient = hc }
}

// WithHeader adds a request header, e.g. WithHeader("Authorization",
// "Bearer xyz"). It may be repeated. On a redirect to another origin these
// headers are dropped, with Authorization, Proxy-Authorization and Cookie.
func WithHeader(key, value string) Option {
	return func(c *config) {
		if c.header == nil {
			c.header = http.Header{}
		}
		c.header.Add(key, value)
	}
}

// WithIdleTimeout sets how long the stream may stay silent — no byte
// received, the consumer's own time not counted — before the turn ends
// incomplete (default [client.DefaultIdleTimeout]; ≤ 0 waits forever).
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) { c.idle = d }
}

// WithStreamOptions passes options to the [client.Replay] that runs the
// turn: client.WithCaps, client.WithLogger and client.WithArtifactProgress
// apply. The compatibility layer (client.WithCompat) is always on: the
// frames' shape is all there is.
func WithStreamOptions(opts ...client.Option) Option {
	return func(c *config) { c.stream = append(c.stream, opts...) }
}

// Send sends text to the endpoint — POST <baseURL>/v1/query with
// {"conversation_id", "message", "stream": true} — and returns its turn as
// a [client.Stream]: the same updates, merged View and Outcome as an A2A
// turn.
//
// Each frame is translated into the A2A event the runtime's own A2A exit
// sends for it (see the package doc), which is what Update.Event holds.
// The conversation id is the turn's task and context id, known at once
// (Stream.TaskID); the turn is named by the request ("query:" and a random
// id, Stream.Turn; PROTOCOL.md §3.3): the endpoint has no message ids. The
// body's clean end completes the turn — the stream has no other end
// signal; a body cut inside a frame, a read error or the idle timeout ends
// it with a *client.IncompleteError. A turn is never resumed: the endpoint
// has no resubscription, and re-sending would ask twice.
//
// The request is sent before Send returns: a transport error, a non-2xx
// status or a response that is not text/event-stream is returned as an
// error ([ErrStatus] for the last two). Iterate the Stream, or cancel ctx,
// to release the connection.
func Send(ctx context.Context, baseURL, text string, opts ...Option) (*client.Stream, error) {
	cfg := config{idle: client.DefaultIdleTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	conv := cfg.conversation
	if conv == "" {
		conv = a2a.NewContextID()
	}
	body, err := json.Marshal(struct {
		ConversationID string `json:"conversation_id"`
		Message        string `json:"message"`
		Stream         bool   `json:"stream"`
	}{conv, text, true})
	if err != nil {
		return nil, fmt.Errorf("v1query: %w", err)
	}
	target := strings.TrimRight(baseURL, "/") + queryPath
	hc := httpClient(cfg.httpClient, cfg.header)
	qctx, cancel := context.WithCancelCause(ctx)
	w := idle.New(cfg.idle, cancel)
	req, err := http.NewRequestWithContext(qctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		w.Stop()
		cancel(nil)
		return nil, fmt.Errorf("v1query: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, vs := range cfg.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		w.Stop()
		cancel(nil)
		return nil, fmt.Errorf("v1query: %s: %w", redirect.Redact(target), w.Cause(err))
	}
	w.Kick() // the headers arrived
	if err := checkResponse(resp); err != nil {
		_ = resp.Body.Close()
		w.Stop()
		cancel(nil)
		return nil, fmt.Errorf("v1query: %s: %w", redirect.Redact(target), err)
	}

	events := func(yield func(a2a.Event, error) bool) {
		defer cancel(nil)
		defer w.Stop()
		defer resp.Body.Close()
		for ev, err := range projection.QueryEvents(&kickReader{resp.Body, w}, conv) {
			if err != nil {
				err = w.Cause(err)
			}
			// The consumer's time is not the peer's silence.
			w.Pause()
			ok := yield(ev, err)
			w.Resume()
			if !ok {
				return
			}
		}
	}
	// The endpoint has no message ids and no second reader (nothing can
	// follow a query): the request's own id names the turn.
	sopts := append(append([]client.Option(nil), cfg.stream...),
		client.WithCompat(true), client.WithTurn(a2a.TaskID(conv), "query:"+a2a.NewMessageID()))
	return client.Replay(ctx, events, sopts...), nil
}

// httpClient returns a copy of hc without its whole-request Timeout, which
// drops the credentials on a redirect to another origin than the first
// request's (see [redirect.Guard]).
func httpClient(hc *http.Client, header http.Header) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	c.Timeout = 0
	redirect.Guard(&c, header)
	return &c
}

// checkResponse refuses a non-2xx status (with the head of its body) and a
// body that is not an SSE stream.
func checkResponse(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%w: %s: %s", ErrStatus, resp.Status, strings.TrimSpace(string(head)))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/event-stream" {
			return fmt.Errorf("%w: the response is %q, not text/event-stream", ErrStatus, ct)
		}
	}
	return nil
}

// kickReader kicks the watchdog on every read that brings bytes.
type kickReader struct {
	r io.Reader
	w *idle.Watchdog
}

func (k *kickReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.w.Kick()
	}
	return n, err
}
