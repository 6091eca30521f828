package interop

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// A task the JS SDK agent does not know, on each interface of its card:
// Follow and Poll end with a2a.ErrTaskNotFound (not an incomplete turn),
// and Respond and Cancel fail with it — whatever shape the JS SDK gives
// "not found" on that wire (JSON-RPC -32001, a REST 404 with its own body).
func TestJSAgentUnknownTask(t *testing.T) {
	agent := startJSAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(turnTimeout))
	defer cancel()
	ifaces, err := agent.interfaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type verdict struct{ NotFound, Incomplete bool }
	of := func(err error) verdict {
		return verdict{errors.Is(err, a2a.ErrTaskNotFound), errors.Is(err, client.ErrIncomplete)}
	}
	want := verdict{NotFound: true}
	for _, iface := range ifaces {
		t.Run(iface.name(), func(t *testing.T) {
			cl := iface.client(ctx, t)
			for _, mode := range []string{"follow", "poll", "answer", "cancel"} {
				var err error
				switch mode {
				case "follow", "poll":
					var st *client.Stream
					if mode == "follow" {
						st, _ = cl.Follow(ctx, "no-such-task")
					} else {
						st, _ = cl.Poll(ctx, "no-such-task", time.Millisecond)
					}
					for _, serr := range st.Updates() {
						err = serr
					}
				case "answer":
					_, err = cl.Respond(ctx, "no-such-task", "hello")
				case "cancel":
					_, err = cl.Cancel(ctx, "no-such-task")
				}
				if d := cmp.Diff(want, of(err)); d != "" {
					t.Errorf("%s: %v (-want +got):\n%s", mode, err, d)
				}
			}
		})
	}
}
