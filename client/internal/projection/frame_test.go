package projection

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/envelope"
)

// seedRunning is the projection of the seed's first A2A frame, as a JSON
// decoder hands it.
func seedRunning() map[string]any {
	return map[string]any{"kind": "remote_agent_invocation", "batchId": "d1625ae4-...",
		"toolCallId": "call_00_32BxucUtBW0bBQZE9mz32638", "sequence": float64(1), "target": "expense-review",
		"phase": "RUNNING", "latencyMs": float64(0)}
}

func with(kv ...any) map[string]any {
	m := seedRunning()
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
			continue
		}
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func TestParse(t *testing.T) {
	tests := []struct {
		name       string
		in         any
		want       Frame
		wantReason envelope.Reason
		wantField  string
	}{
		{name: "the seed's RUNNING frame", in: seedRunning(),
			want: Frame{BatchID: "d1625ae4-...", ToolCallID: "call_00_32BxucUtBW0bBQZE9mz32638", Sequence: 1, Target: "expense-review", Phase: PhaseRunning}},
		{name: "resultCategory and latency", in: with("phase", "INPUT_REQUIRED", "resultCategory", "INPUT_REQUIRED", "latencyMs", float64(12058), "sequence", float64(2)),
			want: Frame{BatchID: "d1625ae4-...", ToolCallID: "call_00_32BxucUtBW0bBQZE9mz32638", Sequence: 2, Target: "expense-review",
				Phase: PhaseInputRequired, ResultCategory: "INPUT_REQUIRED", LatencyMs: 12058}},
		{name: "an int from a Go producer, extra fields ignored", in: with("sequence", 3, "extra", true),
			want: Frame{BatchID: "d1625ae4-...", ToolCallID: "call_00_32BxucUtBW0bBQZE9mz32638", Sequence: 3, Target: "expense-review", Phase: PhaseRunning}},
		{name: "not an object", in: "RUNNING", wantReason: envelope.ReasonBadJSON, wantField: "_remote_invocation"},
		{name: "another kind", in: with("kind", "remote_agent_progress"), wantReason: envelope.ReasonUnknownKind, wantField: "_remote_invocation.kind"},
		{name: "no kind", in: with("kind", nil), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.kind"},
		{name: "unknown phase", in: with("phase", "CANCELLED"), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.phase"},
		{name: "phase of the wrong type", in: with("phase", float64(1)), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.phase"},
		{name: "sequence as a string", in: with("sequence", "1"), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.sequence"},
		{name: "fractional sequence", in: with("sequence", 1.5), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.sequence"},
		{name: "negative sequence", in: with("sequence", float64(-1)), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.sequence"},
		{name: "sequence past int64", in: with("sequence", 1e19), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.sequence"},
		{name: "empty batchId", in: with("batchId", ""), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.batchId"},
		{name: "missing toolCallId", in: with("toolCallId", nil), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.toolCallId"},
		{name: "empty target", in: with("target", ""), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.target"},
		{name: "missing latencyMs", in: with("latencyMs", nil), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.latencyMs"},
		{name: "resultCategory of the wrong type", in: with("resultCategory", []any{}), wantReason: envelope.ReasonBadField, wantField: "_remote_invocation.resultCategory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantReason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("frame (-want +got):\n%s", diff)
				}
				return
			}
			var e *envelope.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *envelope.Error", err)
			}
			if diff := cmp.Diff([2]string{string(tt.wantReason), tt.wantField}, [2]string{string(e.Reason), e.Field}); diff != "" {
				t.Errorf("reason, field (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadingByPhase(t *testing.T) {
	f := Frame{BatchID: "b1", ToolCallID: "call-1", Sequence: 4, Target: "expense-review"}
	call := envelope.ToolCall{Tool: "expense-review", ToolCallID: "call-1"}
	tests := []struct {
		phase    Phase
		category string
		kind     envelope.Kind
		status   envelope.Status
		payload  envelope.Payload
	}{
		{PhaseQueued, "", envelope.KindToolCall, envelope.StatusRunning, call},
		{PhaseRunning, "", envelope.KindToolCall, envelope.StatusRunning, call},
		{PhaseInputRequired, "INPUT_REQUIRED", envelope.KindText, envelope.StatusRunning, envelope.Text{Text: "expense-review: awaiting input"}},
		{PhaseCompleted, "SUCCESS", envelope.KindToolCall, envelope.StatusDone, call},
		{PhaseFailed, "REMOTE_ERROR", envelope.KindError, envelope.StatusAborted, envelope.ErrorPayload{Message: "expense-review: REMOTE_ERROR"}},
		{PhaseTimedOut, "", envelope.KindError, envelope.StatusAborted, envelope.ErrorPayload{Message: "expense-review: TIMED_OUT"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase), func(t *testing.T) {
			g := f
			g.Phase, g.ResultCategory = tt.phase, tt.category
			want := envelope.Reading{Part: 0, ID: "ri:b1:call-1:4", Envelope: envelope.Envelope{V: 1, Kind: tt.kind,
				StreamKey: "ri:b1:call-1", Seq: 4, Status: tt.status, Payload: tt.payload}}
			got := g.Reading(0)
			if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("reading (-want +got):\n%s", diff)
			}
			if err := got.Envelope.Validate(); err != nil {
				t.Errorf("the mapped envelope is invalid: %v", err)
			}
		})
	}
}

// Ids holding ":" or "%" cannot make two members share a key.
func TestStreamKeyInjective(t *testing.T) {
	tests := []struct {
		name       string
		a, b       Frame
		wantA      string
		wantDiffer bool
	}{
		{name: "colon moved between the ids", a: Frame{BatchID: "a:b", ToolCallID: "c"}, b: Frame{BatchID: "a", ToolCallID: "b:c"},
			wantA: "ri:a%3Ab:c", wantDiffer: true},
		{name: "an escape written literally", a: Frame{BatchID: "a%3Ab", ToolCallID: "c"}, b: Frame{BatchID: "a:b", ToolCallID: "c"},
			wantA: "ri:a%253Ab:c", wantDiffer: true},
		{name: "the seed's ids", a: Frame{BatchID: "333a9f5f-...", ToolCallID: "call_00_JIhiVhnvjabn7DCjgY2D1744"},
			b:     Frame{BatchID: "333a9f5f-...", ToolCallID: "call_00_JIhiVhnvjabn7DCjgY2D1744"},
			wantA: "ri:333a9f5f-...:call_00_JIhiVhnvjabn7DCjgY2D1744"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.wantA, tt.a.StreamKey()); diff != "" {
				t.Errorf("key (-want +got):\n%s", diff)
			}
			if differ := tt.a.StreamKey() != tt.b.StreamKey(); differ != tt.wantDiffer {
				t.Errorf("%q vs %q: differ = %v, want %v", tt.a.StreamKey(), tt.b.StreamKey(), differ, tt.wantDiffer)
			}
		})
	}
}
