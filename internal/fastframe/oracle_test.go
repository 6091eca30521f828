package fastframe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/go-cmp/cmp"
)

// A2A decodes the data of one SSE frame as a2a-go's own streaming
// transport of that binding (JSON-RPC or HTTP+JSON) and protocol version
// (1.0 or 0.3) decodes it in a stream: the transport makes a
// SendStreamingMessage call whose response, served without any network,
// is that one frame. It returns a2a-go's event or its error.
func A2A(ctx context.Context, binding a2a.TransportProtocol, version a2a.ProtocolVersion, data []byte) (a2a.Event, error) {
	hc := &http.Client{Transport: frameResponse(sseBody(data))}
	const endpoint = "http://frame.invalid/a2a"
	var t a2aclient.Transport
	switch {
	case binding == a2a.TransportProtocolJSONRPC && version == a2av0.Version:
		t = a2av0.NewJSONRPCTransport(a2av0.JSONRPCTransportConfig{URL: endpoint, Client: hc})
	case binding == a2a.TransportProtocolHTTPJSON && version == a2av0.Version:
		rt, err := a2av0.NewRESTTransport(a2av0.RESTTransportConfig{URL: endpoint, Client: hc})
		if err != nil {
			return nil, err
		}
		t = rt
	case binding == a2a.TransportProtocolJSONRPC:
		t = a2aclient.NewJSONRPCTransport(endpoint, hc)
	case binding == a2a.TransportProtocolHTTPJSON:
		u, _ := url.Parse(endpoint)
		t = a2aclient.NewRESTTransport(u, hc)
	default:
		return nil, fmt.Errorf("fastframe: no HTTP transport for %s %s", binding, version)
	}
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("frame"))}
	for ev, err := range t.SendStreamingMessage(ctx, nil, req) {
		return ev, err
	}
	return nil, errors.New("fastframe: a2a-go decoded no event from the frame")
}

// sseBody renders data as one SSE event, one data: line per line of it.
func sseBody(data []byte) []byte {
	var b bytes.Buffer
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// frameResponse answers every request with 200 and body.
type frameResponse []byte

func (f frameResponse) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(bytes.NewReader(f)),
		Request: req, ContentLength: -1,
	}, nil
}

// CompareV1 decodes an A2A 1.0 frame with DecodeV1 and, when it accepts,
// with a2a-go's 1.0 transport of that binding; like Compare, it reports
// whether DecodeV1 accepted and how the two differ.
func CompareV1(ctx context.Context, binding a2a.TransportProtocol, data []byte) (accepted bool, err error) {
	got, ok := DecodeV1(binding == a2a.TransportProtocolJSONRPC, data)
	if !ok {
		return false, nil
	}
	want, werr := A2A(ctx, binding, a2a.Version, data)
	if werr != nil {
		return true, fmt.Errorf("fastframe: 1.0: accepted a frame a2a-go refuses (%v): %q", werr, data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return true, fmt.Errorf("fastframe: 1.0: %q decoded differently (-a2a-go +fast):\n%s", data, diff)
	}
	return true, nil
}

// CompareV03 decodes an A2A 0.3 frame with DecodeV03 and, when it
// accepts, with a2a-go's 0.3 transport of that binding; like Compare, it
// reports whether DecodeV03 accepted and how the two differ.
func CompareV03(ctx context.Context, binding a2a.TransportProtocol, data []byte) (accepted bool, err error) {
	got, ok := DecodeV03(binding == a2a.TransportProtocolJSONRPC, data)
	if !ok {
		return false, nil
	}
	want, werr := A2A(ctx, binding, a2av0.Version, data)
	if werr != nil {
		return true, fmt.Errorf("fastframe: 0.3: accepted a frame a2a-go refuses (%v): %q", werr, data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return true, fmt.Errorf("fastframe: 0.3: %q decoded differently (-a2a-go +fast):\n%s", data, diff)
	}
	return true, nil
}

// Compare decodes data with a Decoder (RPC for JSON-RPC) and, when the
// Decoder accepts it, with a2a-go (A2A 1.0). It reports whether the
// Decoder accepted the frame, and an error when the two differ: a2a-go
// failing on a frame the Decoder accepted, or a different event (a
// cmp.Diff, want = a2a-go's).
func Compare(ctx context.Context, binding a2a.TransportProtocol, data []byte) (accepted bool, err error) {
	d := Decoder{RPC: binding == a2a.TransportProtocolJSONRPC}
	got, ok := d.Decode(data)
	if !ok {
		return false, nil
	}
	want, werr := A2A(ctx, binding, a2a.Version, data)
	if werr != nil {
		return true, fmt.Errorf("fastframe: accepted a frame a2a-go refuses (%v): %q", werr, data)
	}
	if diff := cmp.Diff(want, a2a.Event(got)); diff != "" {
		return true, fmt.Errorf("fastframe: %q decoded differently (-a2a-go +fast):\n%s", data, diff)
	}
	return true, nil
}
