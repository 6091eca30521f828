package frontend

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/schema"
)

// TestAppendJSONMatchesEncodingJSON pins appendJSON to encoding/json's bytes
// for every value type the front-end encoders build.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := map[string]any{
		"event": aguiEvent{"type": "TEXT_MESSAGE_CONTENT", "messageId": "a2a-1", "delta": "a \"quoted\" <b>&</b> \\ \n\r\t\b\f \x01 \x1f é \u2028\u2029 \xff end"},
		"nested": aisdkEvent{"type": "tool-output-available", "preliminary": true, "n": 3, "m": int64(-4),
			"output": aisdkEvent{"status": "running", "chunks": []string{"a", "b"}, "none": []string(nil)},
			"patch":  []any{aguiEvent{"op": "add"}, nil, "x"}},
		"raw":     aguiEvent{"messages": []any{json.RawMessage(`{"id":"u1","role":"user"}`)}},
		"struct":  aisdkEvent{"data": &schema.Result{Verdict: "completed", Reply: "ok"}},
		"nil map": aguiEvent{"m": map[string]any(nil)},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendJSON(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("appendJSON differs from encoding/json (-want +got):\n%s", diff)
			}
		})
	}
}
