// Package fastpath is the client's fast wire path: a2a-go's four HTTP
// transports (JSON-RPC and HTTP+JSON, A2A 1.0 and 0.3), registered through
// a2a-go's public transport factories, with their two streaming calls —
// SendStreamingMessage and SubscribeToTask — made and read here. Every
// other call is a2a-go's own transport's, unchanged. It is the one HTTP
// streaming path of package client: a2a-go's own stream reading is the
// oracle of its tests, never used by the client.
package fastpath

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v0/pbjson"
	"github.com/google/uuid"

	"github.com/tfrs/a2a-progress/internal/fastframe"
	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// FactoryOptions registers the four HTTP transports (JSON-RPC and
// HTTP+JSON, A2A 1.0 and 0.3) on hc: each a fastTransport around a2a-go's
// own transport on the same HTTP client, whose streams' events are
// bounded at maxEvent bytes (all their lines together; <= 0: the
// default, ssewire.DefaultMaxEventBytes). A plain progress frame is
// yielded as a *fastframe.Progress (fastframe.Decoder.Read), unless events
// asks for a2a-go's event of every frame.
func FactoryOptions(hc *http.Client, maxEvent int64, events bool) []a2aclient.FactoryOption {
	wrap := func(v1, rpc bool, f a2aclient.TransportFactory) a2aclient.TransportFactory {
		return a2aclient.TransportFactoryFn(func(ctx context.Context, card *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
			t, err := f.Create(ctx, card, iface)
			if err != nil {
				return nil, err
			}
			ft := &fastTransport{Transport: t, hc: hc, endpoint: iface.URL, v1: v1, rpc: rpc, maxEvent: int(maxEvent), events: events}
			if !rpc {
				// a2a-go's HTTP+JSON factories parse it too, and have
				// already refused it when it does not parse.
				if ft.base, err = url.Parse(iface.URL); err != nil {
					return nil, fmt.Errorf("failed to parse endpoint URL: %w", err)
				}
			}
			return ft, nil
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

// fastTransport is a2a-go's transport with the two streaming calls made
// and read by the client. Every other call is a2a-go's, unchanged.
type fastTransport struct {
	a2aclient.Transport
	hc       *http.Client
	endpoint string   // the interface's URL, as the card gives it (JSON-RPC)
	base     *url.URL // the same, parsed (HTTP+JSON: paths join onto it)
	v1       bool     // A2A 1.0: the one-pass decoder applies; 0.3: fastframe.DecodeV03
	rpc      bool     // JSON-RPC: frames are JSON-RPC responses
	maxEvent int      // the bound of one event (ssewire.NewReader)
	events   bool     // a2a-go's event for every frame: no fastframe.Progress
}

// The JSON-RPC methods of the two streaming calls, A2A 1.0 and 0.3.
const (
	rpcStreamV1    = "SendStreamingMessage"
	rpcSubscribeV1 = "SubscribeToTask"
	rpcStreamV0    = "message/stream"
	rpcSubscribeV0 = "tasks/resubscribe"
)

// SendStreamingMessage implements a2aclient.Transport.
func (t *fastTransport) SendStreamingMessage(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	switch {
	case t.v1 && t.rpc:
		return t.stream(ctx, func() (*http.Request, error) { return t.rpcRequest(ctx, rpcStreamV1, params, req) })
	case t.v1:
		return t.stream(ctx, func() (*http.Request, error) {
			body, err := json.Marshal(req)
			if err != nil {
				return nil, fmt.Errorf("failed to marshal request: %w: %w", err, a2a.ErrInvalidRequest)
			}
			return t.restRequest(ctx, http.MethodPost, req.Tenant, "/message:stream", params, body)
		})
	case t.rpc:
		return t.stream(ctx, func() (*http.Request, error) {
			return t.rpcRequest(ctx, rpcStreamV0, params, a2av0.FromV1SendMessageRequest(req))
		})
	}
	return t.stream(ctx, func() (*http.Request, error) {
		body, err := pbjson.ToProtoSendMessageRequest(req)
		if err != nil {
			return nil, fmt.Errorf("failed to marshal SendMessageRequest: %w", err)
		}
		return t.restRequest(ctx, http.MethodPost, "", a2av0.RESTPathPrefix+"/message:stream", params, body)
	})
}

// SubscribeToTask implements a2aclient.Transport.
func (t *fastTransport) SubscribeToTask(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	switch {
	case t.v1 && t.rpc:
		return t.stream(ctx, func() (*http.Request, error) { return t.rpcRequest(ctx, rpcSubscribeV1, params, req) })
	case t.v1:
		return t.stream(ctx, func() (*http.Request, error) {
			return t.restRequest(ctx, http.MethodPost, req.Tenant, "/tasks/"+string(req.ID)+":subscribe", params, nil)
		})
	case t.rpc:
		return t.stream(ctx, func() (*http.Request, error) {
			return t.rpcRequest(ctx, rpcSubscribeV0, params, a2av0.FromV1SubscribeToTaskRequest(req))
		})
	}
	return t.stream(ctx, func() (*http.Request, error) {
		return t.restRequest(ctx, http.MethodGet, "", a2av0.RESTPathPrefix+"/tasks/"+string(req.ID)+":subscribe", params, nil)
	})
}

// header adds the service parameters to h as a2a-go's transport of the
// protocol version does: 1.0 as they are, 0.3 through a2av0's mapping.
func (t *fastTransport) header(h http.Header, params a2aclient.ServiceParams) {
	m := map[string][]string(params)
	if !t.v1 {
		m = a2av0.FromServiceParams(params)
	}
	for k, vals := range m {
		for _, v := range vals {
			h.Add(k, v)
		}
	}
}

// rpcRequest is a JSON-RPC 2.0 call of method with payload as params, as
// a2a-go's JSON-RPC transports send it.
func (t *fastTransport) rpcRequest(ctx context.Context, method string, params a2aclient.ServiceParams, payload any) (*http.Request, error) {
	body, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
		ID      string `json:"id"`
	}{"2.0", method, payload, uuid.NewString()})
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("failed to create HTTP request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	t.header(req.Header, params)
	return req, nil
}

// restRequest is an HTTP+JSON call of path under the endpoint (and under
// tenant, when set), as a2a-go's HTTP+JSON transports send it.
func (t *fastTransport) restRequest(ctx context.Context, method, tenant, path string, params a2aclient.ServiceParams, body []byte) (*http.Request, error) {
	rel, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("failed to parse path: %w", err)
	}
	var u *url.URL
	if tenant != "" {
		u = t.base.JoinPath(tenant, rel.Path)
	} else {
		u = t.base.JoinPath(rel.Path)
	}
	if t.v1 {
		u.RawQuery = rel.RawQuery // a2a-go's 1.0 transport sets it; its 0.3 one keeps the endpoint's
	}
	var rd io.Reader
	if len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("failed to create HTTP request: %w", err)
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	t.header(req.Header, params)
	return req, nil
}

// maxErrorBody bounds the error body of a refused streaming call that is
// read (HTTP+JSON's google.rpc.Status): an error is a few hundred bytes;
// one over the bound fails to decode, as a truncated body would.
const maxErrorBody = 64 << 10

// stream makes the call built by build, asking for an event stream, and
// reads the answer. A status other than 200 ends it with the error
// a2a-go's transport gives (fastframe.HTTPError). The body is read here:
// the one-pass decoder first (1.0), then a2a-go's types
// (fastframe.DecodeV1, DecodeV03); a frame those decline ends the stream
// with a2a-go's error for it (fastframe.FrameError).
func (t *fastTransport) stream(ctx context.Context, build func() (*http.Request, error)) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		req, err := build()
		if err != nil {
			yield(nil, err)
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		resp, err := t.hc.Do(req)
		if err != nil {
			yield(nil, fmt.Errorf("failed to send HTTP request: %w", err))
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			yield(nil, fastframe.HTTPError(t.rpc, resp.Status, resp.Header.Get("Content-Type"), io.LimitReader(resp.Body, maxErrorBody)))
			return
		}
		rd := ssewire.NewReader(resp.Body, t.maxEvent)
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
			switch {
			case t.v1 && t.events:
				if ev, ok = dec.Decode(data); !ok {
					ev, ok = fastframe.DecodeV1(t.rpc, data)
				}
			case t.v1:
				if ev, ok = dec.Read(data); !ok {
					ev, ok = fastframe.DecodeV1(t.rpc, data)
				}
			default:
				ev, ok = fastframe.DecodeV03(t.rpc, data)
			}
			if !ok {
				yield(nil, fastframe.FrameError(t.v1, t.rpc, data))
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}
