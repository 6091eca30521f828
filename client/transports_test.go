package client

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/schema"
)

// Every transport × both protocol versions: one trajectory yields one
// View and one Outcome.
func TestSendEveryTransportAndVersion(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	traj := agenttest.Trajectory(40, agenttest.Named("matrix"), agenttest.Reorder(3), agenttest.Duplicate(3), agenttest.SkipSeqs(2), agenttest.PlainText(2))
	s.Register(traj)
	var (
		first     *result
		firstName string
	)
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			cl := newForced(t, s, c)
			st, err := cl.SendText(testCtx(t), "matrix")
			if err != nil {
				t.Fatal(err)
			}
			r := collect(t, st)
			if r.err != nil || r.outErr != nil {
				t.Fatalf("stream error %v, outcome error %v", r.err, r.outErr)
			}
			if r.out.State != a2a.TaskStateCompleted || r.out.Reply != "done: 40 updates" {
				t.Errorf("outcome = %s %q, want completed %q", r.out.State, r.out.Reply, "done: 40 updates")
			}
			if !r.view.Sealed {
				t.Error("view not sealed")
			}
			// 40 envelopes + 3 duplicates + 2 plain-text updates: every working update reported.
			if got, want := r.count(UpdateProgress), 45; got != want {
				t.Errorf("progress updates = %d, want %d", got, want)
			}
			if r.view.Counters.Fallbacks == nil {
				t.Error("plain-text updates did not become fallbacks")
			}
			if first == nil {
				first, firstName = &r, c.String()
				return
			}
			// Fallback ids are message ids, which differ per run.
			if d := cmp.Diff(normFallbacks(first.view), normFallbacks(r.view), viewOpts); d != "" {
				t.Errorf("view differs from %s (-%s +%s):\n%s", firstName, firstName, c, d)
			}
			if d := cmp.Diff(first.out, r.out, outcomeOpts); d != "" {
				t.Errorf("outcome differs from %s:\n%s", firstName, d)
			}
		})
	}
}

// normFallbacks blanks the message-id identity of fallback blocks, which
// the callee generates per run.
func normFallbacks(v schema.View) schema.View {
	v.Blocks = append([]schema.Block(nil), v.Blocks...)
	for i := range v.Blocks {
		if v.Blocks[i].Source == schema.SourceFallback {
			v.Blocks[i].Key.ID = "fallback"
		}
	}
	return v
}

// The agent card path: a v1.0 card and a v0.3 card, each listing only one
// transport so that every combination is reached through a card.
func TestNewFromCardEveryTransportAndVersion(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	var want *result
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			cl, err := New(testCtx(t), s.CardURLFor(c.t, c.v), insecureGRPC)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer cl.Close()
			st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
			r := collect(t, st)
			if r.outErr != nil {
				t.Fatalf("outcome: %v (stream %v)", r.outErr, r.err)
			}
			if r.out.Reply != agenttest.RealisticReply || len(r.out.Artifacts) != 1 {
				t.Errorf("outcome text %q, %d artifacts", r.out.Reply, len(r.out.Artifacts))
			}
			if want == nil {
				want = &r
				return
			}
			if d := cmp.Diff(want.view, r.view, viewOpts); d != "" {
				t.Errorf("view (-first +this):\n%s", d)
			}
			if d := cmp.Diff(want.out, r.out, outcomeOpts); d != "" {
				t.Errorf("outcome (-first +this):\n%s", d)
			}
		})
	}
	// A card listing all three interfaces: a2a-go picks one.
	for _, v := range agenttest.Versions() {
		cl, err := New(testCtx(t), s.CardURL(v), insecureGRPC)
		if err != nil {
			t.Fatalf("New(card %s): %v", v, err)
		}
		st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
		out, err := st.Run(func(Update) error { return nil })
		if err != nil || out.State != a2a.TaskStateCompleted {
			t.Errorf("card %s: %s, %v", v, out.State, err)
		}
		_ = cl.Close()
	}
}

// Realistic: the view the demo shows, pinned.
func TestSendRealistic(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	cl := newForced(t, s, combo{a2a.TransportProtocolJSONRPC, agenttest.V1})
	st, _ := cl.SendText(testCtx(t), agenttest.RealisticName)
	r := collect(t, st)
	if r.outErr != nil {
		t.Fatal(r.outErr)
	}
	v := r.view
	if len(v.ToolCalls) != 2 || v.ToolCalls[0].Status != schema.ToolDone || v.ToolCalls[1].Status != schema.ToolDone {
		t.Fatalf("tool calls = %+v", v.ToolCalls)
	}
	if got, want := v.ToolCalls[1].Output, "sku A: 12 in stock\nsku B: 1 in stock\nsku C: 7 in stock\n"; got != want {
		t.Errorf("call-2 output = %q, want %q (seq order, not arrival order)", got, want)
	}
	if v.Counters.Duplicates != 1 || v.Counters.Late != 1 {
		t.Errorf("counters = %+v, want 1 duplicate, 1 late", v.Counters)
	}
	// The stream: state changes, every working update, the settling state
	// with the seal, then the result.
	seal, last := r.updates[len(r.updates)-2], r.updates[len(r.updates)-1]
	if seal.Type != UpdateState || seal.State != a2a.TaskStateCompleted || seal.Change.Op.Type != schema.OpSeal {
		t.Errorf("update before the last = %+v, want the settling state with the seal op", seal)
	}
	if last.Type != UpdateResult || last.Change.Op.Type != schema.OpResult || last.Change.Op.Result.Verdict != schema.VerdictCompleted ||
		last.Change.Op.Result.Reply != r.out.Reply {
		t.Errorf("last update = %+v, want the result op of the completed turn", last)
	}
	if r.out.Verdict != schema.VerdictCompleted {
		t.Errorf("verdict = %v", r.out.Verdict)
	}
	for _, u := range r.updates {
		if u.TaskID == "" || u.ContextID == "" || u.Timestamp.IsZero() {
			t.Fatalf("update without A2A context: %+v", u)
		}
	}
}
