package jsonkind

import (
	"encoding/json"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		json, want string
	}{
		{`null`, "null"},
		{`"x"`, "a string"},
		{`true`, "a boolean"},
		{`1.5`, "a number"},
		{`[1]`, "an array"},
		{`{"a":1}`, "an object"},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.json), &v); err != nil {
			t.Fatal(err)
		}
		if got := Of(v); got != tc.want {
			t.Errorf("Of(%s) = %q, want %q", tc.json, got, tc.want)
		}
	}
	if got := Of(struct{}{}); got != "a value of another type" {
		t.Errorf("Of(struct{}{}) = %q", got)
	}
}
