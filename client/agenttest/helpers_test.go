package agenttest

import (
	"context"
	"iter"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// combo is one transport in one protocol version.
type combo struct {
	t a2a.TransportProtocol
	v a2a.ProtocolVersion
}

func (c combo) String() string { return string(c.t) + "/" + string(c.v) }

func allCombos() []combo {
	var out []combo
	for _, v := range versions {
		for _, t := range transports {
			out = append(out, combo{t, v})
		}
	}
	return out
}

func startServer(t *testing.T, opts ...Option) *Agent {
	t.Helper()
	s, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// clientOptions gives the factory options for one combo. The http.Client
// has no whole-request timeout (a2a-go's default of 3 minutes kills
// streams) and its own transport, closed by cleanup, so that no idle
// connection outlives the test (goleak).
func clientOptions(t *testing.T, c combo) []a2aclient.FactoryOption {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr, Timeout: 0}
	creds := grpc.WithTransportCredentials(insecure.NewCredentials())
	switch c {
	case combo{a2a.TransportProtocolJSONRPC, V1}:
		return []a2aclient.FactoryOption{a2aclient.WithJSONRPCTransport(hc)}
	case combo{a2a.TransportProtocolHTTPJSON, V1}:
		return []a2aclient.FactoryOption{a2aclient.WithRESTTransport(hc)}
	case combo{a2a.TransportProtocolGRPC, V1}:
		return []a2aclient.FactoryOption{grpcv1.WithGRPCTransport(creds)}
	case combo{a2a.TransportProtocolJSONRPC, V0}:
		return []a2aclient.FactoryOption{a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc})}
	case combo{a2a.TransportProtocolHTTPJSON, V0}:
		return []a2aclient.FactoryOption{a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc})}
	case combo{a2a.TransportProtocolGRPC, V0}:
		return []a2aclient.FactoryOption{grpcv0.WithGRPCTransport(creds)}
	}
	t.Fatalf("no client for %v", c)
	return nil
}

// newClient builds an a2a-go client that can only use combo c.
func newClient(t *testing.T, s *Agent, c combo) *a2aclient.Client {
	t.Helper()
	cl, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{s.Endpoint(c.t, c.v)}, clientOptions(t, c)...)
	if err != nil {
		t.Fatalf("%v: client: %v", c, err)
	}
	t.Cleanup(func() { _ = cl.Destroy() })
	return cl
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testdep.Budget(30*time.Second))
	t.Cleanup(cancel)
	return ctx
}

func userMessage(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// collect drains a stream.
func collect(seq iter.Seq2[a2a.Event, error]) ([]a2a.Event, error) {
	var out []a2a.Event
	for ev, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// envelopesIn parses every working status update with a message and
// returns its envelopes (fallbacks excluded) and its fallback texts.
func envelopesIn(events []a2a.Event) (envs []envelope.Envelope, texts []string) {
	for _, ev := range events {
		su, ok := ev.(*a2a.TaskStatusUpdateEvent)
		if !ok || su.Status.State != a2a.TaskStateWorking || su.Status.Message == nil {
			continue
		}
		r := envelope.FromMessage(su.Status.Message)
		if r.Fallback {
			texts = append(texts, r.Envelope.Payload.(envelope.Text).Text)
			continue
		}
		envs = append(envs, r.Envelope)
	}
	return envs, texts
}

// lastStatus returns the state and text of the last status in events.
func lastStatus(events []a2a.Event) (a2a.TaskState, *a2a.Message) {
	for i := len(events) - 1; i >= 0; i-- {
		switch e := events[i].(type) {
		case *a2a.TaskStatusUpdateEvent:
			return e.Status.State, e.Status.Message
		case *a2a.Task:
			return e.Status.State, e.Status.Message
		}
	}
	return "", nil
}

func taskID(t *testing.T, events []a2a.Event) a2a.TaskID {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	return events[0].TaskInfo().TaskID
}

// agentcardResolver reads v1.0 cards, or v0.3 ones with the a2av0 parser.
func agentcardResolver(v a2a.ProtocolVersion) agentcard.Resolver {
	if v == V0 {
		return agentcard.Resolver{CardParser: a2av0.NewAgentCardParser()}
	}
	return agentcard.Resolver{}
}
