package client_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
)

// Unreachable words real failures to reach an agent, and refuses errors
// that are the agent's answer.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: listen, note the port, close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, refused := http.Get("http://" + addr + "/.well-known/agent-card.json")
	_, dns := net.DefaultResolver.LookupHost(context.Background(), "no-such-host.invalid")
	type got struct {
		Why string
		OK  bool
	}
	cases := map[string]struct {
		err  error
		want got
	}{
		"connection refused": {fmt.Errorf("client: card: %w", refused), got{"nothing listens there (connection refused)", true}},
		"no such host":       {dns, got{"its host name does not resolve", true}},
		"deadline":           {context.DeadlineExceeded, got{"it does not answer (timed out)", true}},
		"task not found":     {a2a.ErrTaskNotFound, got{}},
		"nil":                {nil, got{}},
	}
	for name, tc := range cases {
		why, ok := client.Unreachable(tc.err)
		if d := cmp.Diff(tc.want, got{why, ok}); d != "" {
			t.Errorf("%s (%v): (-want +got):\n%s", name, tc.err, d)
		}
	}
}
