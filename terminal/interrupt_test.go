package terminal

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/schema"
)

func TestParseInterrupt(t *testing.T) {
	type result struct {
		Question  string
		Items     []schema.InterruptItem
		Malformed bool
	}
	item := map[string]any{"toolCallId": "call_1", "toolName": "expense-review", "message": "approve?"}
	want1 := schema.InterruptItem{ToolCallID: "call_1", ToolName: "expense-review", Message: "approve?"}
	tests := []struct {
		name string
		meta map[string]any
		want result
	}{
		{"no metadata", nil, result{}},
		{"no _interrupt key", map[string]any{"other": 1.0}, result{}},
		{"null _interrupt", map[string]any{"_interrupt": nil}, result{}},
		{"the seed's shape", map[string]any{"_interrupt": map[string]any{"message": "Q", "items": []any{item}}},
			result{Question: "Q", Items: []schema.InterruptItem{want1}}},
		{"message only", map[string]any{"_interrupt": map[string]any{"message": "Q"}}, result{Question: "Q"}},
		{"items only", map[string]any{"_interrupt": map[string]any{"items": []any{item, item}}},
			result{Items: []schema.InterruptItem{want1, want1}}},
		{"empty object", map[string]any{"_interrupt": map[string]any{}}, result{}},
		{"item with missing fields", map[string]any{"_interrupt": map[string]any{"items": []any{map[string]any{"toolCallId": "c"}}}},
			result{Items: []schema.InterruptItem{{ToolCallID: "c"}}}},
		{"snake_case keys", map[string]any{"_interrupt": map[string]any{"items": []any{
			map[string]any{"tool_call_id": "c", "tool_name": "t", "message": "m"}}}},
			result{Items: []schema.InterruptItem{{ToolCallID: "c", ToolName: "t", Message: "m"}}}},
		{"camelCase wins over snake_case", map[string]any{"_interrupt": map[string]any{"items": []any{
			map[string]any{"toolCallId": "camel", "tool_call_id": "snake"}}}},
			result{Items: []schema.InterruptItem{{ToolCallID: "camel"}}}},
		{"Go producer's []map[string]any", map[string]any{"_interrupt": map[string]any{"items": []map[string]any{item}}},
			result{Items: []schema.InterruptItem{want1}}},
		{"empty items are dropped", map[string]any{"_interrupt": map[string]any{"items": []any{map[string]any{}, item}}},
			result{Items: []schema.InterruptItem{want1}}},
		{"_interrupt is a string", map[string]any{"_interrupt": `{"message":"Q"}`}, result{Malformed: true}},
		{"_interrupt is a list", map[string]any{"_interrupt": []any{item}}, result{Malformed: true}},
		{"message is a number", map[string]any{"_interrupt": map[string]any{"message": 3.0, "items": []any{item}}},
			result{Items: []schema.InterruptItem{want1}, Malformed: true}},
		{"items is an object", map[string]any{"_interrupt": map[string]any{"message": "Q", "items": item}},
			result{Question: "Q", Malformed: true}},
		{"an item is a string", map[string]any{"_interrupt": map[string]any{"items": []any{"call_1", item, nil}}},
			result{Items: []schema.InterruptItem{want1}, Malformed: true}},
		{"a field of the wrong type", map[string]any{"_interrupt": map[string]any{"items": []any{
			map[string]any{"toolCallId": 42.0, "toolName": "t", "message": []any{"m"}}}}},
			result{Items: []schema.InterruptItem{{ToolName: "t"}}, Malformed: true}},
		{"null fields read as missing", map[string]any{"_interrupt": map[string]any{"message": nil, "items": []any{
			map[string]any{"toolCallId": nil, "tool_call_id": "c"}}}},
			result{Items: []schema.InterruptItem{{ToolCallID: "c"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got result
			got.Question, got.Items, got.Malformed = parseInterrupt(&a2a.Message{Metadata: tt.meta})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseInterrupt (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInterruptOutcome checks the Interrupt a Tracker builds, including the
// count of malformed _interrupt metadata and a later interrupt replacing
// an earlier one.
func TestInterruptOutcome(t *testing.T) {
	withMeta := func(state a2a.TaskState, text string, meta map[string]any) *a2a.TaskStatusUpdateEvent {
		ev := statusText(state, text)
		ev.Status.Message.Metadata = meta
		return ev
	}
	tests := []struct {
		name          string
		events        []a2a.Event
		want          *schema.Interrupt
		wantMalformed int
	}{
		{
			name:   "the seed's A2A stream",
			events: decodeEvents(t, seedRunning, seedInputRequiredFrame, seedInterrupt),
			want: &schema.Interrupt{Question: seedQuestion,
				Items: []schema.InterruptItem{{ToolCallID: "call_00_32BxucUtBW0bBQZE9mz32638", ToolName: "expense-review", Message: seedQuestion}}},
		},
		{
			name:   "auth-required without _interrupt",
			events: []a2a.Event{statusText(a2a.TaskStateAuthRequired, "sign in at https://example.test")},
			want:   &schema.Interrupt{Question: "sign in at https://example.test"},
		},
		{
			name:          "malformed _interrupt keeps the text and is counted",
			events:        []a2a.Event{withMeta(a2a.TaskStateInputRequired, "which one?", map[string]any{"_interrupt": "oops"})},
			want:          &schema.Interrupt{Question: "which one?"},
			wantMalformed: 1,
		},
		{
			name: "a later interrupt replaces the earlier one",
			events: []a2a.Event{
				withMeta(a2a.TaskStateInputRequired, "first?", map[string]any{"_interrupt": map[string]any{"message": "first?"}}),
				statusText(a2a.TaskStateWorking, "resumed"),
				statusText(a2a.TaskStateInputRequired, "second?"),
			},
			want: &schema.Interrupt{Question: "second?"},
		},
		{
			name: "_interrupt on a working update is not an interrupt",
			events: []a2a.Event{withMeta(a2a.TaskStateWorking, "w", map[string]any{"_interrupt": map[string]any{"message": "Q"}}),
				status(a2a.TaskStateCompleted, nil)},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			observeAll(tr, tt.events...)
			got, err := tr.Outcome()
			if err != nil {
				t.Fatalf("Outcome error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got.Interrupt); diff != "" {
				t.Errorf("Interrupt (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMalformed, tr.EventCounts().MalformedInterrupts); diff != "" {
				t.Errorf("MalformedInterrupts (-want +got):\n%s", diff)
			}
		})
	}
}
