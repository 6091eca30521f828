package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/chaintest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// chainRetry keeps the resumes of the chain tests quick.
var chainRetry = client.WithRetry(8, time.Millisecond, 20*time.Millisecond)

// node is one line of a view's tree: a block or a tool call, what a user
// sees of it, and where it nests.
type node struct {
	Kind, Key, Parent, Status, Text string
	Depth                           int
}

// tree is v as nodes: the blocks in view order (a tool call's own blocks
// with its status), then the tool calls with their output.
func tree(v schema.View) []node {
	var out []node
	for _, b := range v.Blocks {
		n := node{Kind: string(b.Kind), Key: b.ToolKey(), Parent: b.Parent, Status: string(b.Status)}
		switch p := b.Payload.(type) {
		case envelope.Text:
			n.Text = p.Text
		case envelope.Thinking:
			n.Text = p.Text
		case envelope.ToolCall:
			n.Text = p.Tool
		}
		out = append(out, n)
	}
	for _, c := range v.ToolCalls {
		out = append(out, node{Kind: "call", Key: c.Key, Parent: c.Parent, Status: string(c.Status),
			Text: c.Tool + ": " + c.Output, Depth: c.Depth})
	}
	return out
}

// wantTree is what A must see: B's text and its ask_colleague call, and
// under it C's thinking, C's search (under which C's own forwarded lookup)
// and C's text — each block once.
func wantTree() []node {
	ask := chaintest.AskID
	search := envelope.ForwardKey(ask, "s1")
	lookup := envelope.ForwardKey(ask, "fw:s1:d1")
	return []node{
		{Kind: "text", Status: "running", Text: "B: asking a colleague"},
		{Kind: "tool_call", Key: ask, Status: "running", Text: chaintest.AskTool},
		{Kind: "thinking", Parent: ask, Status: "running", Text: "C: which order?"},
		{Kind: "tool_call", Key: search, Parent: ask, Status: "running", Text: "search"},
		{Kind: "tool_call", Key: lookup, Parent: search, Status: "running", Text: "lookup"},
		{Kind: "tool_call", Key: lookup, Parent: search, Status: "done", Text: "lookup"},
		{Kind: "tool_call", Key: search, Parent: ask, Status: "done", Text: "search"},
		{Kind: "text", Parent: ask, Status: "running", Text: "C: found it"},
		{Kind: "tool_call", Key: ask, Status: "done", Text: chaintest.AskTool},
		{Kind: "call", Key: ask, Status: "done", Text: chaintest.AskTool + ": "},
		{Kind: "call", Key: search, Parent: ask, Status: "done", Text: "search: order 42\nstatus: shipped\n", Depth: 1},
		{Kind: "call", Key: lookup, Parent: search, Status: "done", Text: "lookup: shipped\n", Depth: 2},
	}
}

// chainRun is what A got from one turn of the chain.
type chainRun struct {
	view    schema.View
	ops     []schema.Op
	reply   string
	raw     []*a2a.TaskStatusUpdateEvent // the live working updates, for the plain reader
	resumes int
	// bResumes counts B's calls to C that resume: SubscribeToTask, GetTask.
	bResumes atomic.Int64
}

// Before counts B's resuming calls to C.
func (r *chainRun) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	if req.Method == "SubscribeToTask" || req.Method == "GetTask" {
		r.bResumes.Add(1)
	}
	return ctx, nil, nil
}

// After implements a2aclient.CallInterceptor.
func (r *chainRun) After(context.Context, *a2aclient.Response) error { return nil }

func runChain(t *testing.T, cutAB, cutBC int, abrupt bool) *chainRun {
	t.Helper()
	return runChainVia(t, cutAB, cutBC, abrupt, func(b *agenttest.Agent) string { return b.URL })
}

// runChainVia is runChain with A's client on the address url gives for B,
// built with opts too.
func runChainVia(t *testing.T, cutAB, cutBC int, abrupt bool, url func(*agenttest.Agent) string, opts ...client.Option) *chainRun {
	t.Helper()
	r := new(chainRun)
	ch, err := chaintest.Start(chainRetry, client.WithFactoryOptions(a2aclient.WithCallInterceptors(r)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ch.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if cutAB >= 0 {
		ch.B.CutAfter(cutAB, abrupt)
	}
	if cutBC >= 0 {
		ch.C.CutAfter(cutBC, abrupt)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(60*time.Second))
	defer cancel()
	cl, err := client.New(ctx, url(ch.B), append([]client.Option{chainRetry, client.WithEvents(true)}, opts...)...) // r.raw: the events
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	s, err := cl.SendText(ctx, "where is my order?")
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Run(func(u client.Update) error {
		if op, ok := u.Op(); ok {
			r.ops = append(r.ops, op)
		}
		if u.Type == client.UpdateReconnect {
			r.resumes++
		}
		if ev, ok := u.Event.(*a2a.TaskStatusUpdateEvent); ok && u.Type == client.UpdateProgress && !u.Backfill {
			r.raw = append(r.raw, ev)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("outcome: %v", err)
	}
	r.view, r.reply = s.View(), out.Reply
	return r
}

// checkChain checks what A got: the tree, each block once, and the same
// view rebuilt from the ops, through JSON, by a receiver.
func checkChain(t *testing.T, r *chainRun) {
	t.Helper()
	if d := cmp.Diff("B: "+chaintest.Reply, r.reply); d != "" {
		t.Errorf("reply (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantTree(), tree(r.view)); d != "" {
		t.Errorf("A's tree (-want +got):\n%s", d)
	}
	// Every block once: 9 listed blocks and 3 chunks, no gap, nothing
	// dropped.
	c := r.view.Counters
	if c.Applied != 12 || c.Gaps != 0 || c.DroppedByCap != 0 || c.Invalid != 0 || c.Conflicts != 0 {
		t.Errorf("counters = %+v, want 12 applied and no gap, conflict or drop", c)
	}
	rx := merge.NewReceiver(r.view.Task, merge.Caps{})
	for _, op := range r.ops {
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		var back schema.Op
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if res := rx.Apply(back); res != merge.Applied {
			t.Errorf("op %s: %v, want applied (each op once)", b, res)
		}
	}
	got := rx.View()
	// Late and duplicates are each side's own observations of its arrivals.
	got.Counters.Late, got.Counters.Duplicates = r.view.Counters.Late, r.view.Counters.Duplicates
	if d := cmp.Diff(r.view, got); d != "" {
		t.Errorf("the receiver's view (-A's +receiver's):\n%s", d)
	}
}

// TestChain: A → B (emit) → C, all on loopback. A's view shows C's tool
// calls nested under B's ask_colleague call, every block once, with no cut
// and across cuts on either hop and on both.
func TestChain(t *testing.T) {
	t.Parallel()
	r := runChain(t, -1, -1, false)
	checkChain(t, r)
	if r.resumes != 0 || r.bResumes.Load() != 0 {
		t.Errorf("resumes without a cut: A %d, B %d", r.resumes, r.bResumes.Load())
	}
	// B's stream has 12 working updates (its text, the call's start and end,
	// 9 of C's); cut A→B in it, and C's (9 updates) in it.
	for _, abrupt := range []bool{true, false} {
		for _, k := range []int{1, 3, 6, 10} {
			t.Run(fmt.Sprintf("cut-A-B-after-%d-abrupt-%v", k, abrupt), func(t *testing.T) {
				t.Parallel()
				r := runChain(t, k, -1, abrupt)
				checkChain(t, r)
				if r.resumes == 0 {
					t.Errorf("no resume: the cut did not happen")
				}
			})
			t.Run(fmt.Sprintf("cut-B-C-after-%d-abrupt-%v", k, abrupt), func(t *testing.T) {
				t.Parallel()
				r := runChain(t, -1, k, abrupt)
				checkChain(t, r)
				if r.bResumes.Load() == 0 {
					t.Errorf("B did not resume: the cut did not happen")
				}
			})
		}
		t.Run(fmt.Sprintf("cut-both-abrupt-%v", abrupt), func(t *testing.T) {
			t.Parallel()
			r := runChain(t, 4, 4, abrupt)
			checkChain(t, r)
			if r.resumes == 0 || r.bResumes.Load() == 0 {
				t.Errorf("resumes: A %d, B %d; want both cut", r.resumes, r.bResumes.Load())
			}
		})
	}
}

// plainEnvelope is the envelope v1 as a reader that knows nothing of the
// nesting extension decodes it: parent is an unknown field, ignored.
type plainEnvelope struct {
	V         int             `json:"v"`
	Kind      string          `json:"kind"`
	StreamKey string          `json:"streamKey"`
	Seq       int64           `json:"seq"`
	Status    string          `json:"status"`
	Payload   json.RawMessage `json:"payload"`
}

// TestChainPlainReader: a v1 reader that ignores the extension — here a
// plain encoding/json decoder of B's updates, with the same update texts a
// pre-envelope caller shows — sees one flat, complete turn of B: every
// block once, seqs strictly increasing in B's turn, C's blocks in C's order.
func TestChainPlainReader(t *testing.T) {
	t.Parallel()
	r := runChain(t, -1, -1, false)
	type line struct {
		Kind, Key string
		Text      string
	}
	var got []line
	seen := map[[2]string]bool{}
	var last int64
	for i, ev := range r.raw {
		if ev.Status.Message == nil || len(ev.Status.Message.Parts) != 1 {
			t.Fatalf("update %d: want one part", i)
		}
		p := ev.Status.Message.Parts[0]
		raw, _ := p.Metadata[envelope.MetadataKey].(string)
		var e plainEnvelope
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		id := [2]string{e.StreamKey, fmt.Sprint(e.Seq)}
		if seen[id] {
			t.Errorf("update %d: identity %v twice", i, id)
		}
		seen[id] = true
		if i > 0 && e.Seq <= last {
			t.Errorf("update %d: seq %d after %d, want strictly increasing", i, e.Seq, last)
		}
		last = e.Seq
		got = append(got, line{e.Kind, e.StreamKey, p.Text()})
	}
	ask := chaintest.AskID
	search, lookup := envelope.ForwardKey(ask, "s1"), envelope.ForwardKey(ask, "fw:s1:d1")
	want := []line{
		{"text", "", "B: asking a colleague"},
		{"tool_call", ask, "calling tool ask_colleague"},
		{"thinking", "", "ask_colleague › thinking: C: which order?"},
		{"tool_call", search, "ask_colleague › calling tool search"},
		{"tool_output_append", search, "order 42\n"},
		{"tool_call", lookup, "ask_colleague › calling tool lookup"},
		{"tool_output_append", lookup, "shipped\n"},
		{"tool_call", lookup, "ask_colleague › tool lookup done"},
		{"tool_output_append", search, "status: shipped\n"},
		{"tool_call", search, "ask_colleague › tool search done"},
		{"text", "", "ask_colleague › C: found it"},
		{"tool_call", ask, "tool ask_colleague done"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the plain reader's turn (-want +got):\n%s", d)
	}
}

// A block B cannot forward (its key, in the call's namespace, is over the
// identifier cap) is not dropped silently: an error block under the call
// says so, and the rest of C's turn still arrives.
func TestChainUnforwardable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("k", envelope.MaxIdentBytes-4)
	c, err := agenttest.New(agenttest.WithScripts(agenttest.Script{Name: chaintest.ScriptName, Steps: []agenttest.Step{
		{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindToolCall, StreamKey: long, Seq: 1, Status: envelope.StatusRunning,
			Payload: envelope.ToolCall{Tool: "search"}}},
		{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 2, Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: "C: still here"}}},
	}, Final: a2a.TaskStateCompleted, FinalText: "ok"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, err := agenttest.New(agenttest.WithExecutor(chaintest.Colleague(c.URL, chainRetry)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(60*time.Second))
	defer cancel()
	cl, err := client.New(ctx, b.URL, chainRetry)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	s, err := cl.SendText(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(func(client.Update) error { return nil }); err != nil {
		t.Fatal(err)
	}
	ask := chaintest.AskID
	want := []node{
		{Kind: "text", Status: "running", Text: "B: asking a colleague"},
		{Kind: "tool_call", Key: ask, Status: "running", Text: chaintest.AskTool},
		{Kind: "error", Parent: ask, Status: "running"},
		{Kind: "text", Parent: ask, Status: "running", Text: "C: still here"},
		{Kind: "tool_call", Key: ask, Status: "done", Text: chaintest.AskTool},
		{Kind: "call", Key: ask, Status: "done", Text: chaintest.AskTool + ": "},
	}
	v := s.View()
	if d := cmp.Diff(want, tree(v)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if msg := v.Blocks[2].Payload.(envelope.ErrorPayload).Message; !strings.Contains(msg, "could not be forwarded") ||
		!strings.Contains(msg, "identifier cap") {
		t.Errorf("error block %q does not say why", msg)
	}
}

// TestChainTransports: the A→B hop on every transport and protocol version
// of B, cut once: the same tree.
func TestChainTransports(t *testing.T) {
	t.Parallel()
	for _, v := range agenttest.Versions() {
		for _, tr := range agenttest.Transports() {
			t.Run(string(tr)+"-"+string(v), func(t *testing.T) {
				t.Parallel()
				endpoint := func(b *agenttest.Agent) string { return b.Endpoint(tr, v).URL }
				r := runChainVia(t, 5, -1, true, endpoint, client.WithTransport(tr), client.WithProtocolVersion(v),
					client.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
				checkChain(t, r)
				if r.resumes == 0 {
					t.Errorf("no resume: the cut did not happen")
				}
			})
		}
	}
}
