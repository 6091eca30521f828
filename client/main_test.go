package client

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// combo is one transport in one protocol version.
type combo struct {
	t a2a.TransportProtocol
	v a2a.ProtocolVersion
}

func (c combo) String() string { return string(c.t) + "-" + string(c.v) }

func combos() []combo {
	var out []combo
	for _, v := range agenttest.Versions() {
		for _, t := range agenttest.Transports() {
			out = append(out, combo{t, v})
		}
	}
	return out
}

// startCallee starts the reference callee for one test and closes it at
// the end.
func startCallee(t *testing.T, opts ...agenttest.Option) *agenttest.Agent {
	t.Helper()
	s, err := agenttest.New(opts...)
	if err != nil {
		t.Fatalf("agenttest.Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("agenttest.Close: %v", err)
		}
	})
	return s
}

// testCtx is a context that ends when the test made no progress (an
// update collected) for a minute of an idle machine, scaled by the load
// ([testdep.Watchdog]): a hang fails one test with a clear message, a long
// turn on a busy machine does not.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	return testdep.Watchdog(t, 60*time.Second)
}

var insecureGRPC = WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials()))

// fastRetry keeps reconnect tests quick.
var fastRetry = WithRetry(8, time.Millisecond, 20*time.Millisecond)

// newForced builds a client on exactly one transport and version of s.
func newForced(t *testing.T, s *agenttest.Agent, c combo, opts ...Option) *Client {
	t.Helper()
	e := s.Endpoint(c.t, c.v)
	opts = append([]Option{WithTransport(c.t), WithProtocolVersion(c.v), insecureGRPC}, opts...)
	cl, err := New(testCtx(t), e.URL, opts...)
	if err != nil {
		t.Fatalf("New(%s): %v", c, err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// collect iterates a stream to its end and returns its updates, the
// stream's error, the outcome and the view.
type result struct {
	updates []Update
	err     error
	out     terminal.Outcome
	outErr  error
	view    schema.View
}

func collect(t *testing.T, s *Stream) result {
	t.Helper()
	var r result
	for u, err := range s.Updates() {
		if err != nil {
			r.err = err
			break
		}
		r.updates = append(r.updates, u)
		testdep.Progress(t)
	}
	r.out, r.outErr = s.Outcome()
	r.view = s.View()
	return r
}

func (r result) count(typ UpdateType) int {
	n := 0
	for _, u := range r.updates {
		if u.Type == typ {
			n++
		}
	}
	return n
}

// viewOpts compares views of different runs: task ids differ per run.
var viewOpts = cmp.Options{cmpopts.IgnoreFields(schema.View{}, "Task", "Turn"), cmpopts.IgnoreFields(schema.Block{}, "At")}

// cutViewOpts also ignores the duplicate count: a resumed stream replays
// history, which the merge counts as duplicates — and that is the point.
var cutViewOpts = cmp.Options{cmpopts.IgnoreFields(schema.View{}, "Task", "Turn"), cmpopts.IgnoreFields(schema.Block{}, "At"), cmpopts.IgnoreFields(schema.Counters{}, "Duplicates")}

// outcomeOpts compares outcomes of different runs: ids and shared pointers differ.
var outcomeOpts = cmp.Options{
	cmpopts.IgnoreFields(terminal.Outcome{}, "TaskID", "ContextID", "Message", "Err"),
	cmpopts.IgnoreFields(a2a.Artifact{}, "ID"),
	cmpopts.EquateEmpty(),
}
