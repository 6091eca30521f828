// Package jsonkind names the JSON type of a value decoded by encoding/json
// into an any, for error details that tell a peer what it sent instead of
// what was wanted ("want a string, got a number").
package jsonkind

import "encoding/json"

// Of returns the JSON type of v with its article: "null", "a string",
// "a boolean", "a number", "an array", "an object", or "a value of another
// type" for what encoding/json never produces.
func Of(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, float32, int, int64, int32, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value of another type"
}
