package client

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// Dial options that say nothing about credentials keep the TLS default:
// they neither make New fail ("no transport security set") nor open a
// plaintext connection. The callee serves plaintext, so a TLS client's
// send fails there, while the insecure option (later) still wins.
func TestGRPCDialOptionsKeepTLSDefault(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	e := s.Endpoint(a2a.TransportProtocolGRPC, agenttest.V1)
	ua := WithGRPCDialOptions(grpc.WithUserAgent("a2a-progress-test"))

	cl, err := New(testCtx(t), e.URL, WithTransport(a2a.TransportProtocolGRPC), ua, fastRetry, WithRetry(0, 0, 0))
	if err != nil {
		t.Fatalf("New with a user-agent dial option: %v", err)
	}
	defer cl.Close()
	st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
	if r := collect(t, st); r.err == nil {
		t.Errorf("a TLS client completed a turn on a plaintext server: the TLS default was dropped")
	}

	plain, err := New(testCtx(t), e.URL, WithTransport(a2a.TransportProtocolGRPC), ua, insecureGRPC)
	if err != nil {
		t.Fatalf("New with the insecure option: %v", err)
	}
	defer plain.Close()
	st, _ = plain.SendText(testCtx(t), agenttest.RealisticName)
	if r := collect(t, st); r.err != nil || r.out.State != a2a.TaskStateCompleted {
		t.Errorf("plaintext: %s %v", r.out.State, r.err)
	}
}
