package frontend

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/relay/internal/sse"
	"github.com/tfrs/a2a-progress/schema"
)

// lateOrders are long turns whose envelopes arrive late: a tenth swapped
// with the one before, every one reversed (each but the first lands before
// what was told), and the first few held back to the end (late far back).
// They pass the render credit's burst, so they run the degraded mode.
func lateOrders(n int) map[string][]envelope.Reading {
	var sent []envelope.Reading
	for _, e := range agenttest.Trajectory(n).Envelopes() {
		sent = append(sent, envelope.Reading{Envelope: e})
	}
	var swapped []envelope.Reading
	for _, e := range agenttest.Trajectory(n, agenttest.Reorder(n/10)).Envelopes() {
		swapped = append(swapped, envelope.Reading{Envelope: e})
	}
	var reversed []envelope.Reading
	for i := len(sent) - 1; i >= 0; i-- {
		reversed = append(reversed, sent[i])
	}
	farBack := append(append([]envelope.Reading(nil), sent[5:]...), sent[:5]...)
	return map[string][]envelope.Reading{"tenth-swapped": swapped, "reversed": reversed, "far-back": farBack}
}

// TestFrontStreamLateLong: long turns with many late envelopes, and late
// ones far back, reach both client libraries through the live path (late
// items told out of place, renders deferred past the credit) with each
// block once, in view order, at the turn's end.
func TestFrontStreamLateLong(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	var cases []frontCase
	for name, rs := range lateOrders(400) {
		out := outcomes()["completed"]
		s := streamServer(t, opsOf(rs, out), false)
		want := wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)
		cases = append(cases, frontCase{name: name, base: s.URL, want: want, out: out})
	}
	checkFronts(t, cases)
}

// encodeTurn writes ops to w through s as the relay does for one
// subscriber, up to the stream's end.
func encodeTurn(t *testing.T, s *frontStream, w http.ResponseWriter, ops []schema.Op) {
	t.Helper()
	ew := newEventWriter(w)
	for _, op := range ops {
		if err := s.Op(ew, sse.Event{Op: op}); errors.Is(err, errFrontDone) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	_ = s.End(ew, true)
	_ = ew.Flush()
}

// countWriter counts the bytes written to a response.
type countWriter struct {
	h http.Header
	n int
}

func (w *countWriter) Header() http.Header         { return w.h }
func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
func (w *countWriter) WriteHeader(int)             {}

// TestLateEnvelopesCostBounded: a turn delivered in reverse (every
// envelope but the first late) costs each format — top level and nested —
// at most a few times what the same turn costs in order, in allocations
// and, at the top level, in bytes sent: never a render and a re-send of
// the view per late envelope (issue #33: O(blocks) per op, O(blocks²) per
// turn).
func TestLateEnvelopesCostBounded(t *testing.T) {
	const n = 3000
	var inOrder, reversed []envelope.Reading
	for _, e := range agenttest.Trajectory(n).Envelopes() {
		inOrder = append(inOrder, envelope.Reading{Envelope: e})
	}
	for i := len(inOrder) - 1; i >= 0; i-- {
		reversed = append(reversed, inOrder[i])
	}
	out := &frontResult{Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: "done"}
	top := func(mk func() *frontStream) func(rs []envelope.Reading) int {
		return func(rs []envelope.Reading) int { return streamBytes(t, mk, opsOf(rs, out)) }
	}
	formats := map[string]func(rs []envelope.Reading) int{
		FormatAGUI:  top(func() *frontStream { return newAGUIStream("thread", "run", nil, false) }),
		FormatAISDK: top(func() *frontStream { return newAISDKStream(false) }),
		"ag-ui-subagent": func(rs []envelope.Reading) int {
			run := NewAGUIRun(func(map[string]any) error { return nil })
			sub, _ := run.start("call-1", SubagentOptions{})
			for _, u := range calleeUpdates("task-1", rs, *out) {
				_ = sub.Update(u)
			}
			_, _ = sub.End(nil)
			return 0
		},
		"ai-sdk-tool": func(rs []envelope.Reading) int {
			tool := NewChatStream().startTool("call-1", ChatToolOptions{})
			clock := &fakeClock{t: time.Unix(0, 0)}
			tool.now, tool.after = clock.now, clock.after
			for _, u := range calleeUpdates("task-1", rs, *out) {
				_ = tool.Update(u)
				clock.advance(time.Millisecond)
			}
			_, _ = tool.End(nil)
			return 0
		},
	}
	for name, run := range formats {
		t.Run(name, func(t *testing.T) {
			// The ops themselves are made inside: both runs pay for them.
			var wireIn, wireLate int
			allocsIn := testing.AllocsPerRun(1, func() { wireIn = run(inOrder) })
			allocsLate := testing.AllocsPerRun(1, func() { wireLate = run(reversed) })
			if allocsLate > 3*allocsIn {
				t.Errorf("reversed: %.0f allocations, in order %.0f: more than 3x", allocsLate, allocsIn)
			}
			if wireLate > 3*wireIn {
				t.Errorf("reversed: %d bytes sent, in order %d: more than 3x", wireLate, wireIn)
			}
			t.Logf("allocations %.0f -> %.0f, bytes %d -> %d", allocsIn, allocsLate, wireIn, wireLate)
		})
	}
}

// TestLateEnvelopesInterleavedWithNested: a peer that follows every late
// envelope with a nested block in order (which renders the view) cannot
// make each of those renders re-send the view: while a late block is owed,
// renders spend the credit too.
func TestLateEnvelopesInterleavedWithNested(t *testing.T) {
	const n = 600
	env := func(seq int64, kind envelope.Kind, key, parent string, p envelope.Payload) envelope.Reading {
		return envelope.Reading{Envelope: envelope.Envelope{V: envelope.Version, Seq: seq, Kind: kind, StreamKey: key,
			Status: envelope.StatusRunning, Parent: parent, Payload: p}}
	}
	call := env(1, envelope.KindToolCall, "call-0", "", envelope.ToolCall{Tool: "delegate", ToolCallID: "call-0"})
	inOrder := []envelope.Reading{call}
	interleaved := []envelope.Reading{call}
	for k := int64(1); k <= n; k++ {
		plain := env(2*k, envelope.KindText, "", "", envelope.Text{Text: fmt.Sprintf("step %d", k)})
		nested := env(2*k+1, envelope.KindText, "", "call-0", envelope.Text{Text: fmt.Sprintf("forwarded %d", k)})
		inOrder = append(inOrder, plain, nested)
		interleaved = append(interleaved, nested, plain) // the plain one late
	}
	out := &frontResult{Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: "done"}
	for name, mk := range map[string]func() *frontStream{
		FormatAGUI:  func() *frontStream { return newAGUIStream("thread", "run", nil, false) },
		FormatAISDK: func() *frontStream { return newAISDKStream(false) },
	} {
		t.Run(name, func(t *testing.T) {
			wire := func(rs []envelope.Reading) int { return streamBytes(t, mk, opsOf(rs, out)) }
			in, late := wire(inOrder), wire(interleaved)
			if late > 5*in {
				t.Errorf("interleaved: %d bytes sent, in order %d: more than 5x", late, in)
			}
			t.Logf("bytes %d -> %d", in, late)
		})
	}
}

// TestRestatingInOrderBounded: ops in order can restate the view too — a
// call seen first through its output moves, and is renamed, when its
// tool_call block comes after a later block — and a peer that does that
// for every call cannot make each restate it: those renders spend the
// render credit as late ones do.
func TestRestatingInOrderBounded(t *testing.T) {
	const n = 400
	env := func(seq int64, kind envelope.Kind, key string, p envelope.Payload) envelope.Reading {
		return envelope.Reading{Envelope: envelope.Envelope{V: envelope.Version, Seq: seq, Kind: kind, StreamKey: key,
			Status: envelope.StatusRunning, Payload: p}}
	}
	var plain, moving []envelope.Reading
	for k := int64(1); k <= n; k++ {
		key := fmt.Sprintf("call-%d", k)
		start := func(seq int64) envelope.Reading {
			return env(seq, envelope.KindToolCall, key, envelope.ToolCall{Tool: "search", ToolCallID: key})
		}
		chunk := func(seq int64, tool string) envelope.Reading {
			return env(seq, envelope.KindToolOutputAppend, key, envelope.ToolOutputAppend{Tool: tool, ToolCallID: key, Chunk: "line\n"})
		}
		text := func(seq int64) envelope.Reading {
			return env(seq, envelope.KindText, "", envelope.Text{Text: fmt.Sprintf("step %d", k)})
		}
		plain = append(plain, start(3*k), chunk(3*k+1, "search"), text(3*k+2))
		moving = append(moving, chunk(3*k, "pending"), text(3*k+1), start(3*k+2))
	}
	out := &frontResult{Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: "done"}
	for name, mk := range map[string]func() *frontStream{
		FormatAGUI:  func() *frontStream { return newAGUIStream("thread", "run", nil, false) },
		FormatAISDK: func() *frontStream { return newAISDKStream(false) },
	} {
		t.Run(name, func(t *testing.T) {
			in, restating := streamBytes(t, mk, opsOf(plain, out)), streamBytes(t, mk, opsOf(moving, out))
			if restating > 5*in {
				t.Errorf("calls moved by their tool_call: %d bytes sent, plain %d: more than 5x", restating, in)
			}
			t.Logf("bytes %d -> %d", in, restating)
		})
	}
}

// streamBytes is what a frontStream made by mk writes for ops, in bytes.
func streamBytes(t *testing.T, mk func() *frontStream, ops []schema.Op) int {
	t.Helper()
	w := &countWriter{h: http.Header{}}
	encodeTurn(t, mk(), w, ops)
	return w.n
}
