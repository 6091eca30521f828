package interop

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(testdep.Reporting(m))
}

// turnTimeout bounds one scenario, well below go test's own timeout, so
// that a hang fails one subtest with a clear message.
const turnTimeout = 60 * time.Second

// outcome is what the test checks of a terminal.Outcome: the fields that
// do not change from run to run (ids do).
type outcome struct {
	State     a2a.TaskState
	Ended     schema.Verdict
	Text      string
	Artifacts int
	// Verdict names the sentinel the error matches ("" for none).
	Verdict string
	// Reason is the *terminal.VerdictError's reason (and Outcome.Reason's:
	// the two must agree).
	Reason string
}

func summarize(o terminal.Outcome, err error) outcome {
	s := outcome{State: o.State, Ended: o.Verdict, Text: o.Reply, Artifacts: len(o.Artifacts)}
	switch {
	case err == nil:
	case errors.Is(err, terminal.ErrRejected):
		s.Verdict = "rejected"
	case errors.Is(err, terminal.ErrFailed):
		s.Verdict = "failed"
	case errors.Is(err, terminal.ErrCanceled):
		s.Verdict = "canceled"
	default:
		s.Verdict = "other: " + err.Error()
	}
	if v, ok := errors.AsType[*terminal.VerdictError](err); ok {
		s.Reason = v.Reason
		if o.Reason != v.Reason {
			s.Reason = "Outcome.Reason " + o.Reason + " != VerdictError.Reason " + v.Reason
		}
	}
	return s
}

// scenario is one trajectory of jsagent/server.mjs and what the caller
// must make of it. The server writes its envelopes by hand; the values
// here are written out by hand too.
type scenario struct {
	name string
	// updates is the number of working status updates the server sends:
	// each one is reported as one UpdateProgress, duplicates included.
	updates int
	view    schema.View // Task is ignored (a fresh task id per run)
	out     outcome
	// textOnly is the view over an interface that loses Part.metadata
	// (see metadataLost): every update is a text fallback.
	textOnly schema.View
	// historyDedup counts the replays that the JS SDK's Task.history keeps
	// once: it appends a status message only if no message with its
	// messageId is there yet. A view rebuilt from the history counts that
	// many fewer duplicates.
	historyDedup int64
}

// block builds an envelope block as the view shows it.
func block(kind envelope.Kind, streamKey string, seq int64, status envelope.Status, p envelope.Payload) schema.Block {
	return schema.Block{Key: schema.Key{StreamKey: streamKey, Seq: seq}, Kind: kind, Status: status, Payload: p, Source: schema.SourceEnvelope}
}

// fallback builds the text pseudo block of an update without a usable
// envelope. The server fixes message ids, so the identity is stable.
func fallback(messageID, text string, reason envelope.Reason, anchored bool, after, ordinal int64) schema.Block {
	return schema.Block{
		Key:  schema.Key{ID: "msg:" + messageID},
		Kind: envelope.KindText, Status: envelope.StatusRunning,
		Payload: envelope.Text{Text: text},
		Source:  schema.SourceFallback, Reason: reason,
		Anchored: anchored, After: after, Ordinal: ordinal,
	}
}

// textOnly is the view of updates that all arrived without an envelope:
// each one a text fallback (message id, text), in arrival order, before
// any envelope (there is none).
func textOnly(updates ...[2]string) schema.View {
	v := schema.View{Sealed: true, Counters: schema.Counters{Fallbacks: map[envelope.Reason]int64{}}}
	for i, u := range updates {
		v.Blocks = append(v.Blocks, fallback(u[0], u[1], envelope.ReasonNoEnvelope, false, 0, int64(i+1)))
		v.Counters.Applied++
		v.Counters.Fallbacks[envelope.ReasonNoEnvelope]++
	}
	return v
}

// withDuplicates sets the duplicate count of a view.
func withDuplicates(v schema.View, n int64) schema.View {
	v.Counters.Duplicates = n
	return v
}

const (
	run     = envelope.StatusRunning
	done    = envelope.StatusDone
	aborted = envelope.StatusAborted
)

// The blocks of the base trajectory (server.mjs BASE) that a view lists;
// the chunks (seqs 3, 4, 5) are folded into call-1's output.
var (
	b1 = block(envelope.KindThinking, "", 1, run, envelope.Thinking{Text: "look up the order, then the stock"})
	b2 = block(envelope.KindToolCall, "call-1", 2, run, envelope.ToolCall{Tool: "lookup_order", ToolCallID: "call-1"})
	b6 = block(envelope.KindToolCall, "call-1", 6, done, envelope.ToolCall{Tool: "lookup_order", ToolCallID: "call-1"})
	b7 = block(envelope.KindToolCall, "call-2", 7, run, envelope.ToolCall{Tool: "check_stock"})
	b8 = block(envelope.KindError, "call-2", 8, aborted, envelope.ErrorPayload{Message: "stock service timed out"})
	b9 = block(envelope.KindText, "", 9, run, envelope.Text{Text: "writing the answer"})

	call2 = schema.ToolCall{Key: "call-2", Tool: "check_stock", Status: schema.ToolAborted, Started: true, FirstSeq: 7}

	shipped = outcome{State: a2a.TaskStateCompleted, Ended: schema.VerdictCompleted, Text: "Order 42 has shipped."}
)

func call1(output string, gaps, chunks int, bytes int64) schema.ToolCall {
	return schema.ToolCall{Key: "call-1", Tool: "lookup_order", ToolCallID: "call-1", Status: schema.ToolDone,
		Started: true, FirstSeq: 2, Output: output, Gaps: gaps, Chunks: chunks, Bytes: bytes}
}

var scenarios = []scenario{
	{
		name:    "inorder",
		updates: 9,
		view: schema.View{
			Blocks:    []schema.Block{b1, b2, b6, b7, b8, b9},
			ToolCalls: []schema.ToolCall{call1("order 42: 3 items\ncarrier: DHL\nstatus: shipped\n", 0, 3, 47), call2},
			Counters:  schema.Counters{Applied: 9},
			Sealed:    true,
		},
		textOnly: textOnly(
			[2]string{"inorder-u1", "thinking…"},
			[2]string{"inorder-u2", "calling lookup_order"},
			[2]string{"inorder-u3", "lookup_order: output"},
			[2]string{"inorder-u4", "lookup_order: output"},
			[2]string{"inorder-u5", "lookup_order: output"},
			[2]string{"inorder-u6", "lookup_order finished"},
			[2]string{"inorder-u7", "calling check_stock"},
			[2]string{"inorder-u8", "check_stock failed"},
			[2]string{"inorder-u9", "writing the answer"},
		),
		out: shipped,
	},
	{
		// Arrival 2,1,5,3,7,6,9,8; seq 4 never comes.
		name:    "shuffled",
		updates: 8,
		view: schema.View{
			Blocks:    []schema.Block{b1, b2, b6, b7, b8, b9},
			ToolCalls: []schema.ToolCall{call1("order 42: 3 items\n[gap: 1 seq missing]\nstatus: shipped\n", 1, 2, 34), call2},
			Counters:  schema.Counters{Applied: 8, Late: 4, Gaps: 1},
			Sealed:    true,
		},
		textOnly: textOnly(
			[2]string{"shuffled-u1", "calling lookup_order"},
			[2]string{"shuffled-u2", "thinking…"},
			[2]string{"shuffled-u3", "lookup_order: output"},
			[2]string{"shuffled-u4", "lookup_order: output"},
			[2]string{"shuffled-u5", "calling check_stock"},
			[2]string{"shuffled-u6", "lookup_order finished"},
			[2]string{"shuffled-u7", "writing the answer"},
			[2]string{"shuffled-u8", "check_stock failed"},
		),
		out: shipped,
	},
	{
		// Replays of seqs 2, 3 and 9 and of the plain-text update (same
		// messageId); seq 5 again with other content (the first one stays).
		name:    "duplicated",
		updates: 15,
		view: schema.View{
			Blocks: []schema.Block{b1, b2, b6,
				fallback("duplicated-plain", "checking the stock", envelope.ReasonNoEnvelope, true, 6, 1),
				b7, b8, b9},
			ToolCalls: []schema.ToolCall{call1("order 42: 3 items\ncarrier: DHL\nstatus: shipped\n", 0, 3, 47), call2},
			Counters: schema.Counters{Applied: 10, Duplicates: 4, Conflicts: 1,
				Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 1}},
			Sealed: true,
		},
		// Without envelopes only the plain-text replay (same messageId) is
		// a duplicate: replayed envelopes came in updates of their own ids.
		textOnly: withDuplicates(textOnly(
			[2]string{"duplicated-u1", "thinking…"},
			[2]string{"duplicated-u2", "calling lookup_order"},
			[2]string{"duplicated-u3", "calling lookup_order"},
			[2]string{"duplicated-u4", "lookup_order: output"},
			[2]string{"duplicated-u5", "lookup_order: output"},
			[2]string{"duplicated-u6", "lookup_order: output"},
			[2]string{"duplicated-u7", "lookup_order: output"},
			[2]string{"duplicated-u8", "lookup_order finished"},
			[2]string{"duplicated-plain", "checking the stock"},
			[2]string{"duplicated-u10", "calling check_stock"},
			[2]string{"duplicated-u12", "lookup_order: output"},
			[2]string{"duplicated-u13", "check_stock failed"},
			[2]string{"duplicated-u14", "writing the answer"},
			[2]string{"duplicated-u15", "writing the answer"},
		), 1),
		historyDedup: 1,
		out:          shipped,
	},
	{
		// Each broken update degrades to its text, placed after the
		// highest seq seen when it arrived; valid envelopes around them
		// (one as a nested object) are unaffected. Seqs 2 and 3 were only
		// in broken envelopes: two gaps.
		name:    "broken",
		updates: 9,
		view: schema.View{
			Blocks: []schema.Block{
				fallback("broken-plain", "starting (plain text, no metadata)", envelope.ReasonNoEnvelope, false, 0, 1),
				block(envelope.KindThinking, "", 1, run, envelope.Thinking{Text: "reading the request"}),
				fallback("broken-u3", "fallback: bad json", envelope.ReasonBadJSON, true, 1, 2),
				fallback("broken-u4", "fallback: v2", envelope.ReasonUnsupportedVersion, true, 1, 3),
				fallback("broken-u5", "fallback: unknown kind", envelope.ReasonUnknownKind, true, 1, 4),
				fallback("broken-u6", "fallback: no seq", envelope.ReasonBadField, true, 1, 5),
				fallback("broken-u7", "fallback: number", envelope.ReasonBadJSON, true, 1, 6),
				block(envelope.KindText, "", 4, run, envelope.Text{Text: "object form"}),
				block(envelope.KindText, "", 5, run, envelope.Text{Text: "still here"}),
			},
			Counters: schema.Counters{Applied: 9, Gaps: 2, Fallbacks: map[envelope.Reason]int64{
				envelope.ReasonNoEnvelope:         1,
				envelope.ReasonBadJSON:            2,
				envelope.ReasonUnsupportedVersion: 1,
				envelope.ReasonUnknownKind:        1,
				envelope.ReasonBadField:           1,
			}},
			Sealed: true,
		},
		textOnly: textOnly(
			[2]string{"broken-plain", "starting (plain text, no metadata)"},
			[2]string{"broken-u2", "thinking…"},
			[2]string{"broken-u3", "fallback: bad json"},
			[2]string{"broken-u4", "fallback: v2"},
			[2]string{"broken-u5", "fallback: unknown kind"},
			[2]string{"broken-u6", "fallback: no seq"},
			[2]string{"broken-u7", "fallback: number"},
			[2]string{"broken-u8", "object form"},
			[2]string{"broken-u9", "still here"},
		),
		out: outcome{State: a2a.TaskStateCompleted, Ended: schema.VerdictCompleted, Text: "Survived the broken envelopes."},
	},
	{
		// The tool's aborted error envelope is progress; the verdict comes
		// from the failed state.
		name:    "failed",
		updates: 3,
		view: schema.View{
			Blocks: []schema.Block{
				block(envelope.KindToolCall, "call-9", 10, run, envelope.ToolCall{Tool: "deploy", ToolCallID: "call-9"}),
				block(envelope.KindError, "call-9", 12, aborted, envelope.ErrorPayload{Message: "permission denied"}),
			},
			ToolCalls: []schema.ToolCall{{Key: "call-9", Tool: "deploy", ToolCallID: "call-9", Status: schema.ToolAborted,
				Started: true, FirstSeq: 10, Output: "step 1/3 ok\n", Chunks: 1, Bytes: 12}},
			Counters: schema.Counters{Applied: 3},
			Sealed:   true,
		},
		textOnly: textOnly(
			[2]string{"failed-u1", "calling deploy"},
			[2]string{"failed-u2", "deploy: output"},
			[2]string{"failed-u3", "deploy failed"},
		),
		out: outcome{State: a2a.TaskStateFailed, Ended: schema.VerdictFailed,
			Verdict: "failed", Reason: "deploy failed: permission denied"},
	},
}

// viewOpts ignores the task id, which is fresh on every run (checked
// against the stream's instead).
var viewOpts = cmp.Options{cmpopts.IgnoreFields(schema.View{}, "Task", "Turn"), cmpopts.IgnoreFields(schema.Block{}, "At")}

// result is one scenario as the caller saw it.
type result struct {
	taskID   a2a.TaskID
	progress int
	view     schema.View
	out      outcome
	rawOut   terminal.Outcome
}

// play sends one scenario and reads its stream to the end.
func play(t *testing.T, cl *client.Client, name string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(turnTimeout))
	defer cancel()
	st, err := cl.SendText(ctx, name)
	if err != nil {
		t.Fatalf("SendText(%q): %v", name, err)
	}
	var r result
	for u, err := range st.Updates() {
		if err != nil {
			t.Fatalf("stream of %q ended with %v", name, err)
		}
		switch u.Type {
		case client.UpdateProgress:
			r.progress++
		case client.UpdateReconnect, client.UpdateIgnored:
			t.Errorf("unexpected %s update: %v", u.Type, u.Err)
		}
	}
	o, err := st.Outcome()
	r.taskID, r.view, r.out, r.rawOut = st.TaskID(), st.View(), summarize(o, err), o
	return r
}

// check compares a result with the scenario's expectations; view is
// sc.view or, over an interface that loses Part.metadata, sc.textOnly.
func check(t *testing.T, sc scenario, view schema.View, r result) {
	t.Helper()
	if d := cmp.Diff(view, r.view, viewOpts); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
	if d := cmp.Diff(sc.out, r.out); d != "" {
		t.Errorf("outcome (-want +got):\n%s", d)
	}
	if r.progress != sc.updates {
		t.Errorf("progress updates = %d, want %d (one per working update)", r.progress, sc.updates)
	}
	if r.taskID == "" || string(r.taskID) != r.view.Task || r.rawOut.TaskID != r.taskID {
		t.Errorf("task ids: stream %q, view %q, outcome %q", r.taskID, r.view.Task, r.rawOut.TaskID)
	}
}

// metadataLost names the interfaces (binding-version) of the JS SDK that
// drop Part.metadata on the wire. Its v0.3 HTTP+JSON compatibility layer
// writes parts with a v0.3 proto shape that has no metadata field (only
// text/file/data), although the v0.3 proto a2a-go speaks has it (field 4).
// No envelope survives there: the caller must degrade every update to its
// text, and the verdict must still come from the terminal state. If a
// newer SDK carries the metadata, this test fails on that interface:
// remove it from here.
var metadataLost = map[string]bool{"HTTP+JSON-0.3": true}

// viewOver is the view the scenario must leave over the interface name:
// sc.view, or sc.textOnly where the interface loses Part.metadata.
func (sc scenario) viewOver(name string) schema.View {
	if metadataLost[name] {
		return sc.textOnly
	}
	return sc.view
}

// Every interface of the JS agent's card × every scenario, each interface
// forced (client.WithTransport takes the interface URL, not the card).
func TestJSAgentEveryInterface(t *testing.T) {
	agent := startJSAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(turnTimeout))
	defer cancel()
	ifaces, err := agent.interfaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, iface := range ifaces {
		names = append(names, iface.name())
	}
	if d := cmp.Diff([]string{"JSONRPC-1.0", "HTTP+JSON-1.0", "JSONRPC-0.3", "HTTP+JSON-0.3"}, names); d != "" {
		t.Errorf("card interfaces (-want +got):\n%s", d)
	}
	for _, iface := range ifaces {
		name := iface.name()
		t.Run(name, func(t *testing.T) {
			cl := iface.client(ctx, t)
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					check(t, sc, sc.viewOver(name), play(t, cl, sc.name))
				})
			}
		})
	}
}

// client.New on the card URL: a2a-go parses the JS SDK's card and picks
// an interface itself.
func TestJSAgentFromCard(t *testing.T) {
	agent := startJSAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(turnTimeout))
	defer cancel()
	cl, err := client.New(ctx, agent.Base)
	if err != nil {
		t.Fatalf("client.New(card): %v", err)
	}
	defer cl.Close()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			check(t, sc, sc.view, play(t, cl, sc.name))
		})
	}
}

// The task of each scenario once it has settled, followed (SubscribeToTask
// is refused for a terminal task: the JS SDK answers UnsupportedOperation,
// and the client resolves the turn with GetTask) and polled (GetTask): the
// view is rebuilt from the JS SDK's Task.history, the verdict from its
// status.
func TestJSAgentSettledTask(t *testing.T) {
	agent := startJSAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(turnTimeout))
	defer cancel()
	ifaces, err := agent.interfaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, iface := range ifaces {
		name := iface.name()
		t.Run(name, func(t *testing.T) {
			cl := iface.client(ctx, t)
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					want := sc.viewOver(name)
					want.Counters.Duplicates -= sc.historyDedup
					live := play(t, cl, sc.name)
					for _, mode := range []string{"follow", "poll"} {
						t.Run(mode, func(t *testing.T) {
							tctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(turnTimeout))
							defer cancel()
							var (
								st  *client.Stream
								err error
							)
							if mode == "follow" {
								st, err = cl.Follow(tctx, live.taskID)
							} else {
								st, err = cl.Poll(tctx, live.taskID, 10*time.Millisecond)
							}
							if err != nil {
								t.Fatal(err)
							}
							for _, err := range st.Updates() {
								if err != nil {
									t.Fatalf("stream ended with %v", err)
								}
							}
							o, err := st.Outcome()
							got := st.View()
							if d := cmp.Diff(want, got, viewOpts); d != "" {
								t.Errorf("view (-want +got):\n%s", d)
							}
							if d := cmp.Diff(sc.out, summarize(o, err)); d != "" {
								t.Errorf("outcome (-want +got):\n%s", d)
							}
						})
					}
				})
			}
		})
	}
}
