package client

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// A caller's http.Client with a whole-request Timeout would kill every
// stream at it (a2a-go's default is 3 minutes). The client is copied with
// the Timeout removed; the caller's value is not touched.
func TestHTTPClientTimeoutIsRemoved(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	s.Register(agenttest.Trajectory(6, agenttest.Named("slow")).WithPause(25 * time.Millisecond))
	hc := &http.Client{Timeout: 60 * time.Millisecond}
	for _, c := range []combo{{a2a.TransportProtocolJSONRPC, agenttest.V1}, {a2a.TransportProtocolHTTPJSON, agenttest.V0}} {
		var cc calls
		cl := newForced(t, s, c, WithHTTPClient(hc), cc.option())
		st, _ := cl.SendText(testCtx(t), "slow")
		r := collect(t, st)
		if r.err != nil || r.outErr != nil || r.count(UpdateReconnect) != 0 {
			t.Errorf("%s: stream %v, outcome %v, %d reconnects", c, r.err, r.outErr, r.count(UpdateReconnect))
		}
	}
	if hc.Timeout != 60*time.Millisecond || hc.Transport != nil {
		t.Errorf("the caller's client was modified: %+v", hc)
	}
}

// --auth, --svc-param and --tenant, as in a2a-go's CLI: on every call and
// on the card request.
func TestAuthServiceParamsTenant(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	var (
		mu       sync.Mutex
		cardAuth string
	)
	card := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cardAuth = r.Header.Get("Authorization")
		mu.Unlock()
		a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{Name: "proxy", Capabilities: a2a.AgentCapabilities{Streaming: true},
			SupportedInterfaces: []*a2a.AgentInterface{s.Endpoint(a2a.TransportProtocolJSONRPC, agenttest.V1)}}).ServeHTTP(w, r)
	}))
	defer card.Close()
	var cc calls
	tenants := &tenantSpy{}
	// The card names another origin (the callee's port): credentials go
	// there only when allowed.
	iface, _ := url.Parse(s.Endpoint(a2a.TransportProtocolJSONRPC, agenttest.V1).URL)
	cl, err := New(testCtx(t), card.URL, WithAuth("Bearer s3cret"), WithServiceParam("X-Trace", "t-1"), WithAllowedHosts(iface.Host),
		WithServiceParam("X-Region", "eu"), WithServiceParam("X-Trace", "t-2"), WithTenant("acme"),
		cc.option(), WithFactoryOptions(a2aclient.WithCallInterceptors(tenants)))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	id := dispatch(t, cl, agenttest.RealisticName)
	st, _ := cl.Follow(testCtx(t), id)
	if _, err := st.Run(func(Update) error { return nil }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if cardAuth != "Bearer s3cret" {
		t.Errorf("card request Authorization = %q", cardAuth)
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for i, p := range cc.params {
		if strings.Join(p.Get("Authorization"), "") != "Bearer s3cret" || strings.Join(p.Get("X-Trace"), ",") != "t-1,t-2" ||
			strings.Join(p.Get("X-Region"), "") != "eu" {
			t.Errorf("call %d params = %v", i, p)
		}
	}
	if got := tenants.get(); got != "acme,acme" {
		t.Errorf("tenants = %q, want acme on the dispatch and the subscription", got)
	}
}

type tenantSpy struct {
	a2aclient.PassthroughInterceptor
	mu  sync.Mutex
	got []string
}

func (s *tenantSpy) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch p := req.Payload.(type) {
	case *a2a.SendMessageRequest:
		s.got = append(s.got, p.Tenant)
	case *a2a.SubscribeToTaskRequest:
		s.got = append(s.got, p.Tenant)
	}
	return ctx, nil, nil
}

func (s *tenantSpy) get() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.got, ",")
}

// Wrap adopts a caller's a2aclient.Client and leaves it open.
func TestWrap(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	hc := &http.Client{} // no Timeout: the caller's duty with Wrap
	ac, err := a2aclient.NewFromEndpoints(testCtx(t), []*a2a.AgentInterface{s.Endpoint(a2a.TransportProtocolHTTPJSON, agenttest.V1)},
		a2aclient.WithRESTTransport(hc))
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Destroy()
	cl := Wrap(ac)
	st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
	out, err := st.Run(func(Update) error { return nil })
	if err != nil || out.Reply != agenttest.RealisticReply {
		t.Fatalf("%q, %v", out.Reply, err)
	}
	if cl.Close() != nil || cl.A2A() != ac {
		t.Error("Close or A2A misbehaves")
	}
}

// Reconnects are logged at debug level; envelope contents never reach the log.
func TestLogging(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1}, WithLogger(logger), fastRetry)
	s.CutAfter(3, true)
	st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
	if _, err := st.Run(func(Update) error { return nil }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	log := buf.String()
	if !strings.Contains(log, "level=DEBUG") || !strings.Contains(log, "resubscribing") {
		t.Errorf("no debug reconnect record:\n%s", log)
	}
	if strings.Contains(log, "order 42") || strings.Contains(log, "level=INFO") {
		t.Errorf("envelope contents or info records in the log:\n%s", log)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestInvalidInput(t *testing.T) {
	t.Parallel()
	cl := Wrap(nil)
	if _, err := cl.Send(context.Background(), nil); err == nil {
		t.Error("Send(nil) succeeded")
	}
	if _, err := cl.Send(context.Background(), &a2a.Message{}); err == nil {
		t.Error("Send(no parts) succeeded")
	}
	if _, err := cl.Follow(context.Background(), ""); err == nil {
		t.Error("Follow(\"\") succeeded")
	}
	if _, err := cl.Poll(context.Background(), "", 0); err == nil {
		t.Error("Poll(\"\") succeeded")
	}
	if _, err := New(context.Background(), "http://127.0.0.1:1", WithTransport("carrier-pigeon")); err == nil {
		t.Error("New with an unknown transport succeeded")
	}
	var ie *IncompleteError
	err := error(&IncompleteError{TaskID: "t", State: a2a.TaskStateWorking, Attempts: 2, Err: errCleanClose})
	if !errors.As(err, &ie) || !errors.Is(err, ErrIncomplete) || !errors.Is(err, errCleanClose) {
		t.Error("IncompleteError does not match")
	}
	if got := err.Error(); got != `client: turn incomplete (task "t", last state TASK_STATE_WORKING, 2 attempts): stream closed before a terminal or interrupted state` {
		t.Errorf("Error() = %s", got)
	}
}

// historySpy records the HistoryLength of every GetTask.
type historySpy struct {
	a2aclient.PassthroughInterceptor
	mu  sync.Mutex
	got []string
}

func (s *historySpy) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	if p, ok := req.Payload.(*a2a.GetTaskRequest); ok {
		s.mu.Lock()
		defer s.mu.Unlock()
		if p.HistoryLength == nil {
			s.got = append(s.got, "all")
		} else {
			s.got = append(s.got, strconv.Itoa(*p.HistoryLength))
		}
	}
	return ctx, nil, nil
}

// GetTask (Poll, and the resolution of a cut) asks for the whole history by default (a lossless backfill) and
// for the last n messages with WithHistoryLength(n); n < 1 keeps the default.
func TestHistoryLength(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	c := combo{a2a.TransportProtocolJSONRPC, agenttest.V1}
	for _, tc := range []struct {
		name string
		opts []Option
		want string
		full bool // the view holds every block of the turn
	}{
		{name: "default", want: "all", full: true},
		{name: "bounded", opts: []Option{WithHistoryLength(3)}, want: "3"},
		{name: "zero keeps the default", opts: []Option{WithHistoryLength(0)}, want: "all", full: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spy := &historySpy{}
			cl := newForced(t, s, c, append(tc.opts, WithFactoryOptions(a2aclient.WithCallInterceptors(spy)))...)
			// Stream the turn to its end first, so that the task has settled;
			// Poll then resolves it with one GetTask, from its history.
			sent, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
			if _, err := sent.Run(func(Update) error { return nil }); err != nil {
				t.Fatal(err)
			}
			st, _ := cl.Poll(testCtx(t), sent.TaskID(), time.Hour)
			out, err := st.Run(func(Update) error { return nil })
			if err != nil || out.Reply != agenttest.RealisticReply {
				t.Fatalf("outcome %q, %v", out.Reply, err)
			}
			spy.mu.Lock()
			got := strings.Join(spy.got, ",")
			spy.mu.Unlock()
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("GetTask history lengths = %q, want %s first", got, tc.want)
			}
			if n := len(st.View().Blocks); (n == 8) != tc.full {
				t.Errorf("%d blocks in the view; full history = %v", n, tc.full)
			}
		})
	}
}
