package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/projection"
)

// QueryPath is the path of the plain REST endpoint of a runtime that
// mis-routes its progress frames (PROTOCOL.md §5.3), relative to its base
// URL.
const QueryPath = "/v1/query"

// ErrQueryStatus is matched (errors.Is) by the error of [Query] when the
// endpoint answers with a status other than 2xx, or with a body that is not
// an SSE stream.
var ErrQueryStatus = errors.New("client: query refused")

// WithConversationID sets the conversation_id that [Query] sends (default:
// a new random id per call). Answer an interrupt by querying again with
// the id of the interrupted turn, which is its Outcome.TaskID.
func WithConversationID(id string) Option {
	return func(c *config) { c.conversation = id }
}

// Query sends text to the plain REST endpoint of an agent runtime
// (PROTOCOL.md §5.3) — POST <baseURL>/v1/query with {"conversation_id", "message",
// "stream": true} — and returns its turn as a [Stream], the same type and
// pipeline as an A2A turn: the same updates, merged View and Outcome.
//
// That endpoint answers with untyped SSE data: frames, framed here through
// the r3labs seam and told apart by shape: projection frames
// {content, projection} are progress (merged like the A2A form's
// projections; see [WithCompat], which is always on here because the shape
// is all there is), the frame {message, items} is the interrupt (an
// Outcome.Interrupt with its items, state input-required), and every other
// frame is a business chunk of the reply (UpdateArtifact; the Outcome's
// artifact "reply", one part per chunk; Outcome.Text, the text chunks
// joined). Each frame is translated into the A2A event the runtime's own
// A2A exit sends for it, which is what Update.Event holds. The
// conversation id is the turn's task and context id, known at once
// ([Stream.TaskID]); the turn is named by the request ("query:" and a
// random id, [Stream.Turn]): the endpoint has no message ids. The body's
// clean end completes the turn — the stream has no other end signal; a
// body cut inside a frame, a read error or the idle timeout ends it with
// an [*IncompleteError]. A turn is never resumed: the endpoint has no
// resubscription, and re-sending would ask twice.
//
// The request is sent before Query returns: a transport error, a non-2xx
// status or a response that is not text/event-stream is returned as an
// error (ErrQueryStatus for the last two). Options that apply:
// WithHTTPClient (its whole-request Timeout is removed, as for A2A
// streams), WithAuth and WithServiceParam(s) (sent as headers),
// WithIdleTimeout, WithCaps, WithLogger, WithArtifactProgress,
// WithConversationID. Iterate the Stream, or cancel ctx, to release the
// connection.
func Query(ctx context.Context, baseURL, text string, opts ...Option) (*Stream, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	cfg.noCompat = false
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
		return nil, fmt.Errorf("client: query: %w", err)
	}
	url := strings.TrimRight(baseURL, "/") + QueryPath
	hc, _ := streamingHTTPClient(cfg.httpClient, cfg.bounds)
	guardRedirects(hc, cfg.params)
	qctx, w, cancel := withWatchdog(ctx, cfg.idle)
	req, err := http.NewRequestWithContext(qctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("client: query: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, vs := range cfg.params {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("client: query %s: %w", redactURL(url), idleCause(qctx, err))
	}
	if err := checkQueryResponse(resp); err != nil {
		_ = resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("client: query %s: %w", redactURL(url), err)
	}

	events := func(yield func(a2a.Event, error) bool) {
		defer cancel()
		defer resp.Body.Close()
		for ev, err := range projection.QueryEvents(resp.Body, conv) {
			if err != nil && w.Fired() {
				err = fmt.Errorf("%w: %w", errIdle, err)
			}
			// The consumer's time is not the peer's silence.
			w.pause()
			ok := yield(ev, err)
			w.resume()
			if !ok {
				return
			}
		}
	}
	cfg.idle = 0 // the request's own watchdog measures the silence
	cfg.params = nil
	s := newClient(nil, cfg).newStream(ctx, modeReplay, a2a.TaskID(conv), nil, 0)
	s.events = iter.Seq2[a2a.Event, error](events)
	// The endpoint has no message ids and no second reader (nothing can
	// follow a query): the request's own id names the turn.
	s.turnID = "query:" + a2a.NewMessageID()
	return s, nil
}

// checkQueryResponse refuses a non-2xx status (with the head of its body)
// and a body that is not an SSE stream.
func checkQueryResponse(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%w: %s: %s", ErrQueryStatus, resp.Status, strings.TrimSpace(string(head)))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !isEventStream(ct) {
		return fmt.Errorf("%w: the response is %q, not text/event-stream", ErrQueryStatus, ct)
	}
	return nil
}
