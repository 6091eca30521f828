package envelope

import (
	"encoding/json"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// benchEnvelope is a typical envelope: a slice of tool output, with the
// escapes real output has.
const benchEnvelope = `{"v":1,"kind":"tool_output_append","streamKey":"call_01HZX8K2M9QW7","seq":1042,"status":"running",` +
	`"payload":{"tool":"run_shell","chunk":"=== RUN TestParse\n--- PASS: TestParse (0.01s)\n","tool_call_id":"call_01HZX8K2M9QW7"}}`

// bareEnvelope is the plain struct a naive reader would unmarshal into:
// typed, map-free, no validation.
type bareEnvelope struct {
	V         int    `json:"v"`
	Kind      string `json:"kind"`
	StreamKey string `json:"streamKey"`
	Seq       int64  `json:"seq"`
	Status    string `json:"status"`
	Payload   struct {
		Text       string `json:"text"`
		Tool       string `json:"tool"`
		ToolCallID string `json:"tool_call_id"`
		Chunk      string `json:"chunk"`
		Message    string `json:"message"`
	} `json:"payload"`
}

// BenchmarkRead compares reading benchEnvelope three ways in one run:
//
//	go test ./envelope -run '^$' -bench BenchmarkRead -benchmem -count 6
func BenchmarkRead(b *testing.B) {
	b.Run("Parse", func(b *testing.B) {
		b.SetBytes(int64(len(benchEnvelope)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(benchEnvelope); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("FromMessage", func(b *testing.B) {
		msg := &a2a.Message{ID: "m-1", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{tfrsPart("=== RUN TestParse", benchEnvelope)}}
		b.SetBytes(int64(len(benchEnvelope)))
		b.ReportAllocs()
		for b.Loop() {
			if r := FromMessage(msg); r.Fallback {
				b.Fatal(r.Err)
			}
		}
	})
	b.Run("BareUnmarshal", func(b *testing.B) {
		// The bytes are made once, outside the loop: the baseline does not
		// pay for the string-to-bytes copy that Parse avoids.
		raw := []byte(benchEnvelope)
		b.SetBytes(int64(len(benchEnvelope)))
		b.ReportAllocs()
		for b.Loop() {
			var w bareEnvelope
			if err := json.Unmarshal(raw, &w); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkMarshal(b *testing.B) {
	e, err := Parse(benchEnvelope)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(e); err != nil {
			b.Fatal(err)
		}
	}
}
