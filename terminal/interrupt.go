package terminal

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/schema"
)

// InterruptMetadataKey is the key of status.message.metadata under which
// a runtime puts the questions of an interrupt (PROTOCOL.md §5.2):
//
//	"_interrupt": {"message": "…",
//	               "items": [{"toolCallId": "call_1", "toolName": "expense-review", "message": "…"}]}
const InterruptMetadataKey = "_interrupt"

// parseInterrupt reads m.metadata._interrupt. The value arrives from JSON,
// so objects are map[string]any, arrays []any and strings string; a Go
// producer in the same process may hand []map[string]any for items. Missing
// fields read as ""; a value of the wrong type is ignored (the field, the
// item or the whole key), never a panic. malformed reports that the key was
// present but something in it had the wrong type.
func parseInterrupt(m *a2a.Message) (question string, items []schema.InterruptItem, malformed bool) {
	if m == nil || m.Metadata == nil {
		return "", nil, false
	}
	raw, ok := m.Metadata[InterruptMetadataKey]
	if !ok || raw == nil {
		return "", nil, false
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return "", nil, true
	}
	question, bad := stringField(obj, "message")
	malformed = malformed || bad
	var list []map[string]any
	switch v := obj["items"].(type) {
	case nil:
	case []any:
		for _, e := range v {
			if o, ok := e.(map[string]any); ok {
				list = append(list, o)
			} else {
				malformed = true
			}
		}
	case []map[string]any:
		list = v
	default:
		malformed = true
	}
	for _, o := range list {
		var it schema.InterruptItem
		var b1, b2, b3 bool
		it.ToolCallID, b1 = stringField(o, "toolCallId", "tool_call_id")
		it.ToolName, b2 = stringField(o, "toolName", "tool_name")
		it.Message, b3 = stringField(o, "message")
		malformed = malformed || b1 || b2 || b3
		if it == (schema.InterruptItem{}) {
			// Nothing to answer and nothing to show.
			continue
		}
		items = append(items, it)
	}
	return question, items, malformed
}

// stringField returns the first of keys present in o as a string. Old
// a2a-go releases rewrote metadata keys to snake_case on v0.3 REST, hence
// the alternative spellings. bad reports a present value that is not a
// string.
func stringField(o map[string]any, keys ...string) (s string, bad bool) {
	for _, k := range keys {
		v, ok := o[k]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return "", true
		}
		return s, false
	}
	return "", false
}
