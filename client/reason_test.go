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

// Reason words what ends a call or a turn; a turn that could not be
// resumed because the agent went away says so, not the Go chain.
func TestReason(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, refused := http.Get("http://" + addr + "/")
	cases := map[string]struct {
		err  error
		want string
	}{
		"refused":           {refused, "the agent cannot be reached: nothing listens there (connection refused)"},
		"incomplete, gone":  {&client.IncompleteError{TaskID: "t1", Err: refused}, "the turn could not be resumed: the agent cannot be reached: nothing listens there (connection refused)"},
		"incomplete":        {&client.IncompleteError{TaskID: "t1", Err: fmt.Errorf("stream closed")}, "the turn stopped before it ended and could not be resumed"},
		"task not found":    {fmt.Errorf("client: follow: %w", a2a.ErrTaskNotFound), "the agent does not know the task"},
		"agent down (Lazy)": {fmt.Errorf("%w (connecting)", client.ErrAgentDown), "the agent is not reachable yet"},
		"canceled":          {context.Canceled, "the call was canceled"},
		"other":             {fmt.Errorf("the agent said no"), "the agent said no"},
	}
	for name, tc := range cases {
		if d := cmp.Diff(tc.want, client.Reason(tc.err)); d != "" {
			t.Errorf("%s: (-want +got):\n%s", name, d)
		}
	}
}
