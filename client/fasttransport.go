package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/tfrs/a2a-progress/internal/fastframe"
	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// WithFastPath switches the fast wire path of the HTTP transports on or
// off; it is on by default.
//
// With it on, the streaming calls of JSON-RPC and HTTP+JSON (REST), A2A 1.0
// and 0.3 — SendStreamingMessage and SubscribeToTask — are still made by
// a2a-go's own transport (its request types, marshalling and headers, the
// client's interceptors), but the SSE body of a successful response is read
// by the client: events bounded in size (MaxEventBytes, 10 MiB per event
// over all its lines, where a2a-go bounds each line but not the event), a
// buffer that grows only as far as a line needs, and a one-pass decoder for
// A2A 1.0 status updates, the frames that make up nearly all of a progress
// stream. Every other frame — snapshots, artifact updates, messages,
// anything the one-pass decoder does not recognise exactly, and every 0.3
// frame — is decoded with a2a-go's own types and unmarshalling, in the
// order its transports apply them; a frame on which that fails (an error
// frame, a malformed one) is handed to a2a-go's transport itself, for its
// own error. So an event always means what a2a-go says it means.
// gRPC, non-streaming calls and clients from [Wrap] are never affected.
func WithFastPath(on bool) Option {
	return func(c *config) { c.noFast = !on }
}

// FastPathEnv names the environment variable that, set to "off", makes
// WithFastPath(false) the default of every [New] in the process: the
// switch by which the test suites run once on each path, and by which a
// deployment can step back to a2a-go's reader without a rebuild. An explicit
// WithFastPath wins.
const FastPathEnv = "A2A_PROGRESS_FASTPATH"

func fastPathOff() bool { return os.Getenv(FastPathEnv) == "off" }

// MaxEventBytes bounds one SSE event on the fast wire path, over all its
// lines: a2a-go's own bound for one line, so that every event a2a-go reads
// as one line is read here too. A larger event cuts the stream with an
// error (the turn then resumes as after any cut, PROTOCOL.md §3.2).
const MaxEventBytes = ssewire.DefaultMaxEventBytes

// withFastPath puts fastFactoryOptions into fopts before its last user
// options (WithFactoryOptions), which stay last: a transport the caller
// registers for the same key wins.
func withFastPath(fopts []a2aclient.FactoryOption, user int, hc *http.Client) []a2aclient.FactoryOption {
	k := len(fopts) - user
	out := append([]a2aclient.FactoryOption(nil), fopts[:k]...)
	out = append(out, fastFactoryOptions(hc)...)
	return append(out, fopts[k:]...)
}

// fastFactoryOptions registers the four HTTP transports again (same keys,
// so they replace those of factoryOptions), each wrapped in a
// fastTransport. The a2a-go transports inside run on a copy of hc whose
// RoundTripper can hand a streaming response's body over (handover).
func fastFactoryOptions(hc *http.Client) []a2aclient.FactoryOption {
	c := *hc
	c.Transport = &handoverTransport{base: hc.Transport}
	hc = &c
	wrap := func(v1, rpc bool, f a2aclient.TransportFactory) a2aclient.TransportFactory {
		return a2aclient.TransportFactoryFn(func(ctx context.Context, card *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
			t, err := f.Create(ctx, card, iface)
			if err != nil {
				return nil, err
			}
			return &fastTransport{Transport: t, v1: v1, rpc: rpc}, nil
		})
	}
	jsonrpc := a2aclient.TransportFactoryFn(func(ctx context.Context, card *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
		return a2aclient.NewJSONRPCTransport(iface.URL, hc), nil
	})
	rest := a2aclient.TransportFactoryFn(func(ctx context.Context, card *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
		u, err := url.Parse(iface.URL)
		if err != nil {
			return nil, fmt.Errorf("failed to parse endpoint URL: %w", err)
		}
		return a2aclient.NewRESTTransport(u, hc), nil
	})
	return []a2aclient.FactoryOption{
		a2aclient.WithTransport(a2a.TransportProtocolJSONRPC, wrap(true, true, jsonrpc)),
		a2aclient.WithTransport(a2a.TransportProtocolHTTPJSON, wrap(true, false, rest)),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC,
			wrap(false, true, a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{Client: hc}))),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolHTTPJSON,
			wrap(false, false, a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{Client: hc}))),
	}
}

// fastTransport is a2a-go's transport with the two streaming calls read by
// the client. Every other call is a2a-go's, unchanged.
type fastTransport struct {
	a2aclient.Transport
	v1  bool // A2A 1.0: the one-pass decoder applies; 0.3: fastframe.DecodeV03
	rpc bool // JSON-RPC: frames are JSON-RPC responses
}

// SendStreamingMessage implements a2aclient.Transport.
func (t *fastTransport) SendStreamingMessage(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return t.stream(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return t.Transport.SendStreamingMessage(ctx, params, req)
	})
}

// SubscribeToTask implements a2aclient.Transport.
func (t *fastTransport) SubscribeToTask(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return t.stream(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return t.Transport.SubscribeToTask(ctx, params, req)
	})
}

// stream lets a2a-go make the call with a handover in its context: a
// response with status 200 gives its body to the handover and an empty one
// to a2a-go, which then ends without an event. Any other outcome — a
// transport error, another status (a2a-go turns it into its own error) — is
// a2a-go's and passes through. The body is then read here: the one-pass
// decoder first (1.0), then a2a-go's types (fastframe.DecodeV1, DecodeV03),
// and for a frame those fail on, a2a-go's transport itself (replay).
func (t *fastTransport) stream(ctx context.Context, call func(context.Context) iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		h := &handover{}
		hctx := context.WithValue(ctx, handoverKey{}, h)
		for ev, err := range call(hctx) {
			if !yield(ev, err) || err != nil {
				h.close()
				return
			}
		}
		body := h.take()
		if body == nil {
			return
		}
		defer body.Close()
		rd := ssewire.NewReader(body, MaxEventBytes)
		dec := fastframe.Decoder{RPC: t.rpc}
		for {
			data, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			var (
				ev a2a.Event
				ok bool
			)
			if t.v1 {
				if ev, ok = dec.Decode(data); !ok {
					ev, ok = fastframe.DecodeV1(t.rpc, data)
				}
			} else {
				ev, ok = fastframe.DecodeV03(t.rpc, data)
			}
			if ok {
				if !yield(ev, nil) {
					return
				}
				continue
			}
			ev, err = t.replay(ctx, call, data)
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// errReplayEmpty: a2a-go yielded nothing for a replayed frame; it cannot
// happen for a frame with data, and is reported rather than dropped.
var errReplayEmpty = errors.New("client: a2a-go decoded no event from an SSE frame")

// replay decodes one frame with a2a-go: the same call is made with a
// context that answers it, without any network, with a 200 response whose
// body is that one frame. a2a-go's transport parses it exactly as it would
// have parsed it in the stream — JSON-RPC errors, REST error frames and the
// v0.3 conversions included.
func (t *fastTransport) replay(ctx context.Context, call func(context.Context) iter.Seq2[a2a.Event, error], data []byte) (a2a.Event, error) {
	var body bytes.Buffer
	body.Grow(len(data) + 16)
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		body.WriteString("data: ")
		body.Write(line)
		body.WriteByte('\n')
	}
	body.WriteByte('\n')
	rctx := context.WithValue(ctx, handoverKey{}, &handover{replay: body.Bytes()})
	for ev, err := range call(rctx) {
		return ev, err
	}
	return nil, errReplayEmpty
}

type handoverKey struct{}

// handover carries a streaming response's body from the RoundTripper to
// fastTransport.stream, or a frame to replay the other way.
type handover struct {
	replay []byte // non-nil: answer the request with this SSE body

	mu     sync.Mutex
	body   io.ReadCloser
	closed bool
}

func (h *handover) put(b io.ReadCloser) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.body != nil {
		return false
	}
	h.body = b
	return true
}

func (h *handover) take() io.ReadCloser {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.body
	h.body, h.closed = nil, true
	return b
}

// close releases a body nobody will read (the consumer stopped early).
func (h *handover) close() {
	if b := h.take(); b != nil {
		b.Close()
	}
}

// handoverTransport is the RoundTripper of the a2a-go transports inside a
// fastTransport. Without a handover in the request's context it is base.
type handoverTransport struct{ base http.RoundTripper }

func (t *handoverTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h, _ := req.Context().Value(handoverKey{}).(*handover)
	if h != nil && h.replay != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return &http.Response{
			Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:  http.Header{"Content-Type": {"text/event-stream"}},
			Body:    io.NopCloser(bytes.NewReader(h.replay)),
			Request: req, ContentLength: -1,
		}, nil
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	// Only a streaming call asks for an event stream (the same test as
	// watchTransport's bounds): any other call keeps its body.
	if err != nil || h == nil || resp.StatusCode != http.StatusOK || !isEventStream(req.Header.Get("Accept")) {
		return resp, err
	}
	if !h.put(resp.Body) {
		return resp, nil
	}
	if b, ok := resp.Body.(*boundedBody); ok {
		b.handOver()
	}
	resp.Body = http.NoBody
	return resp, nil
}
