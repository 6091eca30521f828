package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/errordetails"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/tfrs/a2a-progress/internal/idle"
	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// HTTPClient returns the client the transports use: a copy of hc
// (or of a zero client) whose whole-request Timeout is removed — every
// stream would die at it (a2a-go's default client has a 3-minute Timeout,
// which ends every longer stream) — and whose Transport
// reports received bytes to the watchdog of the request's context. It also
// returns the removed Timeout, which non-streaming calls get back as a
// deadline.
func HTTPClient(hc *http.Client, b Bounds) (*http.Client, time.Duration) {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	removed := c.Timeout
	c.Timeout = 0
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &watchTransport{base: &errorTransport{base: base}, bounds: b}
	return &c, removed
}

// FactoryOptions registers a2a-go's gRPC transports, for both protocol
// versions, on the given dial options, and the interceptor that gives an
// oversize event its one error. The HTTP transports are
// internal/fastpath's.
func FactoryOptions(grpcOpts []grpc.DialOption, b Bounds) []a2aclient.FactoryOption {
	// grpc.NewClient refuses to dial without credentials; TLS with the
	// system roots is the safe default. It goes first, so the caller's
	// options — applied in order — replace it when they set credentials,
	// and keep it when they only add a user agent or an interceptor.
	// gRPC's own default refuses a received message over 4 MiB: a Task
	// (GetTask, a subscription's snapshot) with a long history would never
	// resolve, where the HTTP transports take it. The same bound as theirs
	// (b.Response) applies instead.
	// A stream's message is one event: it gets the bound of an event
	// (b.Event), as on the HTTP transports, through an interceptor
	// whose call option comes last and so wins.
	grpcOpts = append([]grpc.DialOption{
		grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(nil, "")),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(int(b.Response)), grpc.ForceCodecV2(countingCodec{max: b.Elements})),
		grpc.WithChainStreamInterceptor(boundStreamEvents(b.Event)),
	}, grpcOpts...)
	return []a2aclient.FactoryOption{
		a2agrpc.WithGRPCTransport(grpcOpts...),
		a2agrpcv0.WithGRPCTransport(grpcOpts...),
		a2aclient.WithCallInterceptors(eventBound{}),
	}
}

// eventBound is a call interceptor (a2a-go's public extension point for
// what a call returns) that gives an oversize event the client's one
// error, ssewire.ErrEventTooLarge (client.ErrEventTooLarge), on gRPC too:
// the HTTP transports' reader returns it already; gRPC refuses a message
// over the bound with a status that a2a-go turns into its own error,
// through which only the detail set by boundStreamEvents survives. It is
// registered first, so its After runs last and sees the error the caller
// would.
type eventBound struct {
	a2aclient.PassthroughInterceptor
}

// After implements a2aclient.CallInterceptor.
func (eventBound) After(ctx context.Context, resp *a2aclient.Response) error {
	err := resp.Err
	if err == nil || errors.Is(err, ssewire.ErrEventTooLarge) {
		return nil
	}
	if grpcEventTooLarge(err) {
		return fmt.Errorf("%w: %w", ssewire.ErrEventTooLarge, err)
	}
	return nil
}

// eventTooLargeMeta is the ErrorInfo metadata key by which
// boundStreamEvents marks gRPC's refusal of a message over the bound.
const eventTooLargeMeta = "a2a-progress-event-too-large"

// grpcEventTooLarge reports whether err is a2a-go's form of a gRPC
// refusal marked by boundStreamEvents.
func grpcEventTooLarge(err error) bool {
	var ae *a2a.Error
	if !errors.As(err, &ae) {
		return false
	}
	for _, d := range ae.TypedDetails {
		if d == nil || d.TypeURL != errordetails.ErrorInfoType {
			continue
		}
		if m, ok := d.Value["metadata"].(map[string]string); ok && m[eventTooLargeMeta] != "" {
			return true
		}
	}
	return false
}

// GRPCTooLarge makes gRPC's refusal of an oversize answer match
// ErrResponseTooLarge, as the HTTP transports' does, so that the client's
// GetTask shrinks its history on gRPC too. a2a-go turns the gRPC status
// into an a2a error and keeps only its message, which gRPC words "grpc:
// received message larger than max (N vs. M)" for the receiving side's
// bound.
func GRPCTooLarge(err error) error {
	if err == nil || errors.Is(err, ErrResponseTooLarge) || !strings.Contains(err.Error(), "received message larger than max") {
		return err
	}
	return fmt.Errorf("%w: %w", ErrResponseTooLarge, err)
}

// Unsent reports whether a call's error says that its request never
// reached the peer: the connection could not be made (a dial failure) or
// its TLS handshake failed. Such a call cannot have created anything on
// the peer. HTTP errors keep their types; a2a-go keeps only the message
// of a gRPC status, which grpc-go words "connection error: desc =
// \"transport: Error while dialing…\"" or "…authentication handshake
// failed…" for these.
func Unsent(err error) bool {
	if err == nil {
		return false
	}
	var op *net.OpError
	var cert *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	if errors.As(err, &op) && op.Op == "dial" || errors.As(err, &cert) || errors.As(err, &rec) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection error: desc = \"transport: Error while dialing") ||
		strings.Contains(msg, "transport: authentication handshake failed") ||
		strings.Contains(msg, "http: server gave HTTP response to HTTPS client") // net/http's word for a RecordHeaderError
}

// boundStreamEvents gives a gRPC stream the per-event bound max, and marks
// gRPC's refusal of a message over it (ResourceExhausted, "received message
// larger than max") with an ErrorInfo detail that survives a2a-go's
// conversion of the status, for eventBound.
func boundStreamEvents(max int64) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, append(opts, grpc.MaxCallRecvMsgSize(int(max)))...)
		if err != nil {
			return cs, err
		}
		return boundedStream{cs}, nil
	}
}

type boundedStream struct{ grpc.ClientStream }

func (s boundedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	st, ok := status.FromError(err)
	if err == nil || !ok || st.Code() != codes.ResourceExhausted && st.Code() != codes.Internal || !strings.Contains(st.Message(), "larger than max") {
		return err
	}
	marked, derr := st.WithDetails(&errdetails.ErrorInfo{
		Reason:   "EVENT_TOO_LARGE",
		Domain:   "a2a-progress",
		Metadata: map[string]string{eventTooLargeMeta: "1"},
	})
	if derr != nil {
		return err
	}
	return marked.Err()
}

// ParseCard reads a v1.0 card with a2a-go's own parser and, when that
// finds no supportedInterfaces (a v0.3 card: url, preferredTransport,
// additionalInterfaces), with the a2acompat parser. The compat parser
// would read most v1.0 cards too, but through a v0.3 shape; a v1.0 card is
// read exactly as a2a-go reads it.
func ParseCard(body []byte) (*a2a.AgentCard, error) {
	card, err := agentcard.DefaultCardParser(body)
	if err == nil && len(card.SupportedInterfaces) > 0 {
		return card, nil
	}
	compat, cerr := a2av0.NewAgentCardParser()(body)
	if cerr != nil {
		if err != nil {
			return nil, err
		}
		return nil, cerr
	}
	return compat, nil
}

// GRPCTarget turns "http://host:port" into the "host:port" grpc.NewClient
// expects; other strings are returned unchanged.
func GRPCTarget(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return raw
	}
	return u.Host
}

type watchdogKey struct{}

// WithWatchdog returns a context canceled by cancel or by the watchdog,
// and the watchdog (nil when d ≤ 0), which the HTTP transport kicks for
// every read of a call on that context that makes progress. The caller
// must call cancel.
func WithWatchdog(ctx context.Context, d time.Duration) (context.Context, *idle.Watchdog, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := idle.New(d, cancel)
	if w == nil {
		return ctx, nil, func() { cancel(nil) }
	}
	ctx = context.WithValue(ctx, watchdogKey{}, w)
	return ctx, w, func() { w.Stop(); cancel(nil) }
}

// IdleCause says why a call on ctx failed when its watchdog fired: the
// transport reports a bare "context canceled", which does not tell the
// user that the peer went silent.
func IdleCause(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), idle.ErrIdle) && !errors.Is(err, idle.ErrIdle) {
		return fmt.Errorf("%w: %w", idle.ErrIdle, err)
	}
	return err
}

// watchTransport wraps response bodies with the bounds of the call that
// asked for them (limits.go): whether a call is a stream is read from the
// request's Accept header, which a2a-go sets on its streaming calls — never
// from the response's Content-Type, which the peer chooses. Every read
// that makes progress kicks the watchdog of the request's context.
type watchTransport struct {
	base   http.RoundTripper
	bounds Bounds
}

func (t *watchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	w, _ := req.Context().Value(watchdogKey{}).(*idle.Watchdog)
	w.Kick()
	resp.Body = newBoundedBody(resp.Body, w, isEventStream(req.Header.Get("Accept")), t.bounds)
	return resp, nil
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}
