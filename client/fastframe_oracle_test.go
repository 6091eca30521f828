package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/internal/fastframe"
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
	return nil, errNoFrame
}

// errNoFrame: a2a-go's SSE reader saw no event in the data (it holds
// nothing but line breaks), nor does ssewire's: no stream delivers it.
var errNoFrame = errors.New("fastframe: a2a-go decoded no event from the frame")

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
	rpc := binding == a2a.TransportProtocolJSONRPC
	got, ok := fastframe.DecodeV1(rpc, data)
	if !ok {
		return false, sameError(ctx, binding, a2a.Version, data)
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
	rpc := binding == a2a.TransportProtocolJSONRPC
	got, ok := fastframe.DecodeV03(rpc, data)
	if !ok {
		return false, sameError(ctx, binding, a2av0.Version, data)
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

// sameError checks that FrameError gives, for a frame the decoder of
// that version declined, the error a2a-go's transport gives: the same
// text, the same A2A error (sentinel, message, details) when it is one.
func sameError(ctx context.Context, binding a2a.TransportProtocol, version a2a.ProtocolVersion, data []byte) error {
	if bytes.IndexByte(data, '\r') >= 0 {
		// No stream delivers it: a CR ends a line for ssewire, and
		// a2a-go's line scanner would cut it off the line's end.
		return nil
	}
	_, want := A2A(ctx, binding, version, data)
	if errors.Is(want, errNoFrame) {
		return nil
	}
	got := fastframe.FrameError(version == a2a.Version, binding == a2a.TransportProtocolJSONRPC, data)
	if want == nil {
		return fmt.Errorf("fastframe: %s: declined a frame a2a-go decodes: %q", version, data)
	}
	var wa, ga *a2a.Error
	errors.As(want, &wa)
	errors.As(got, &ga)
	if diff := cmp.Diff(normalError(want.Error()), normalError(got.Error())); diff != "" {
		return fmt.Errorf("fastframe: %s: %q: error differs (-a2a-go +FrameError):\n%s", version, data, diff)
	}
	if (wa == nil) != (ga == nil) {
		return fmt.Errorf("fastframe: %s: %q: a2a-go's error is an A2A error: %v, FrameError's: %v", version, data, wa != nil, ga != nil)
	}
	if wa == nil {
		return nil
	}
	if diff := cmp.Diff(*wa, *ga, cmpopts.EquateErrors()); diff != "" {
		return fmt.Errorf("fastframe: %s: %q: A2A error differs (-a2a-go +FrameError):\n%s", version, data, diff)
	}
	return nil
}

// goPackage is the package of a Go type a JSON type error names: a2a-go's
// internal jsonrpc or rest, or fastframe for FrameError's copy of the type.
var goPackage = regexp.MustCompile(`of type (jsonrpc|rest|fastframe)\.`)

// normalError is an error text with the two things that may differ
// between a2a-go's error and FrameError's for the same frame without the
// error meaning anything else: the order of keysSorted, and the package
// of the type a JSON type error names ("Go value of type
// jsonrpc.ClientResponse"); the type's name and the field's are the same.
func normalError(msg string) string {
	return goPackage.ReplaceAllString(keysSorted(msg), "of type <pkg>.")
}

// unknownKeys is a2a-go's "unknown event type: [k1 k2]" or "unknown part
// content type: [k1 k2]", whose keys it prints in map order (a different
// order on every call).
var unknownKeys = regexp.MustCompile(`unknown [a-z ]+: \[`)

// keysSorted makes the key lists of unknownKeys independent of their
// order. A key may itself hold spaces or "]" (or be empty), so the list
// cannot be split back into keys: it runs to the message's last "]", and
// its runes are sorted — the same keys in any order give the same string.
func keysSorted(msg string) string {
	loc := unknownKeys.FindStringIndex(msg)
	end := strings.LastIndexByte(msg, ']')
	if loc == nil || end < loc[1] {
		return msg
	}
	list := []rune(msg[loc[1]:end])
	slices.Sort(list)
	return msg[:loc[1]] + string(list) + msg[end:]
}

// Compare decodes data with a Decoder (RPC for JSON-RPC) and, when the
// Decoder accepts it, with a2a-go (A2A 1.0). It reports whether the
// Decoder accepted the frame, and an error when the two differ: a2a-go
// failing on a frame the Decoder accepted, or a different event (a
// cmp.Diff, want = a2a-go's).
func Compare(ctx context.Context, binding a2a.TransportProtocol, data []byte) (accepted bool, err error) {
	d := fastframe.Decoder{RPC: binding == a2a.TransportProtocolJSONRPC}
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

// CompareRead is Compare for Decoder.Read, the client's decoding: where
// it returns a Progress, its ids, state and timestamp must be a2a-go's
// event's, its Tfrs the message's metadata["tfrs"] string and its Event
// a2a-go's whole event; any other event it returns must equal a2a-go's.
// (Over Tfrs, envelope.FromTfrs is envelope.FromMessage: FuzzParse.)
func CompareRead(ctx context.Context, binding a2a.TransportProtocol, data []byte) (progress bool, err error) {
	d := fastframe.Decoder{RPC: binding == a2a.TransportProtocolJSONRPC}
	got, ok := d.Read(data)
	if !ok {
		return false, nil
	}
	want, werr := A2A(ctx, binding, a2a.Version, data)
	if werr != nil {
		return false, fmt.Errorf("fastframe: Read accepted a frame a2a-go refuses (%v): %q", werr, data)
	}
	p, ok := got.(*fastframe.Progress)
	if !ok {
		if diff := cmp.Diff(want, got); diff != "" {
			return false, fmt.Errorf("fastframe: %q read differently (-a2a-go +fast):\n%s", data, diff)
		}
		return false, nil
	}
	su, ok := want.(*a2a.TaskStatusUpdateEvent)
	if !ok || su.Status.Message == nil || len(su.Status.Message.Parts) != 1 {
		return true, fmt.Errorf("fastframe: %q read as progress, a2a-go: %#v", data, want)
	}
	thin := *su
	thin.Status.Message = nil
	if diff := cmp.Diff(&thin, &p.TaskStatusUpdateEvent); diff != "" {
		return true, fmt.Errorf("fastframe: %q progress event differs (-a2a-go +fast):\n%s", data, diff)
	}
	if tfrs, ok := su.Status.Message.Parts[0].Metadata["tfrs"].(string); !ok || tfrs != string(p.Tfrs) {
		return true, fmt.Errorf("fastframe: %q progress tfrs %q, a2a-go's metadata: %#v", data, p.Tfrs, su.Status.Message.Parts[0].Metadata)
	}
	if diff := cmp.Diff(want, a2a.Event(p.Event())); diff != "" {
		return true, fmt.Errorf("fastframe: %q progress's event differs (-a2a-go +fast):\n%s", data, diff)
	}
	return true, nil
}
