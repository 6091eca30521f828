package client

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A send whose connection fails before its request is sent — a TLS
// handshake with a plaintext peer, on gRPC and over HTTPS — says so: no
// orphaned task is looked for or spoken of, since none can exist.
func TestUnsentSendSaysSo(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	plain := httptest.NewServer(nil)
	t.Cleanup(plain.Close)
	for name, tc := range map[string]struct {
		p   a2a.TransportProtocol
		url string
	}{
		"grpc tls to plaintext":   {a2a.TransportProtocolGRPC, s.Endpoint(a2a.TransportProtocolGRPC, a2a.Version).URL},
		"https to plaintext":      {a2a.TransportProtocolJSONRPC, strings.Replace(plain.URL, "http://", "https://", 1)},
		"jsonrpc nothing listens": {a2a.TransportProtocolJSONRPC, "http://127.0.0.1:1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cl, err := New(testCtx(t), tc.url, WithTransport(tc.p)) // TLS with the system roots
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cl.Close() })
			st, _ := cl.SendText(testCtx(t), "x")
			r := collect(t, st)
			var ie *IncompleteError
			if r.err == nil || errors.As(r.err, &ie) || !strings.Contains(r.err.Error(), "no connection to the agent, the message was not sent") {
				t.Fatalf("err = %v, want a send that says the message was not sent", r.err)
			}
			if strings.Contains(r.err.Error(), "may have created a task") {
				t.Errorf("err speaks of an orphaned task: %v", r.err)
			}
		})
	}
}
