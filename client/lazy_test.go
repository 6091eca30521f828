package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/client"
)

// A Lazy whose agent is not up says so in its state — the URL without the
// credentials it may carry, the reason in words — and its calls fail at
// once with ErrAgentDown.
func TestLazyAgentDown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := client.NewLazy(ctx, "http://user:secret@127.0.0.1:1/card?token=t0k#x", time.Hour)
	defer l.Close()
	<-l.Tried()
	want := client.AgentState{State: "unreachable", URL: "http://127.0.0.1:1/card", Reason: "nothing listens there (connection refused)", Attempts: 1}
	if d := cmp.Diff(want, l.State(), cmpopts.IgnoreFields(client.AgentState{}, "Error", "Retry", "Wait")); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
	if _, err := l.Send(ctx, nil); !errors.Is(err, client.ErrAgentDown) {
		t.Errorf("Send before the agent is up: %v, want ErrAgentDown", err)
	}
}
