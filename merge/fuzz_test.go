package merge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// FuzzReceiver feeds NDJSON ops from a peer — whatever bytes — through the
// op decoder into a Receiver under small caps. Properties: no panic; an op
// that decodes encodes again and decodes to the same op; the view holds at
// most MaxBlocks blocks and MaxStreamKeys tool calls, and encodes as JSON.
// Seeds: testdata/fuzz/FuzzReceiver.
func FuzzReceiver(f *testing.F) {
	f.Add([]byte(`{"type":"block","task":"t1","streamKey":"call-1","seq":1,"id":"","kind":"tool_call","status":"running","payload":{"tool":"search"},"source":"envelope"}
{"type":"block","task":"t1","streamKey":"call-1","seq":2,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"search","chunk":"hit\n"},"source":"envelope"}
{"type":"seal","task":"t1"}`))
	caps := merge.Caps{MaxBlocks: 8, MaxStreamKeys: 2, MaxOutputBytes: 64, MaxTextBytes: 32}
	f.Add([]byte{1, 0, 1, 0, 0, 0, 1, 1, 2, 0, 0, 1, 0, 3, 9, 1, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := merge.NewReceiver("t1", caps)
		lines := bytes.Split(data, []byte("\n"))
		if len(data) > 0 && data[0]%2 == 1 {
			// Structured: valid-looking ops from 6 bytes each, so that the
			// fuzzer reaches the merge and not only the JSON decoder.
			lines = opLines(data[1:])
		}
		for _, line := range lines {
			var op schema.Op
			if err := json.Unmarshal(line, &op); err != nil {
				continue
			}
			b, err := json.Marshal(op)
			if err != nil {
				t.Fatalf("a decoded op does not encode: %v (%q)", err, line)
			}
			var again schema.Op
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatalf("an encoded op does not decode: %v (%s)", err, b)
			}
			if b2, _ := json.Marshal(again); !bytes.Equal(b, b2) {
				t.Fatalf("op round trip:\n%s\n%s", b, b2)
			}
			r.Apply(op)
		}
		v := r.View()
		if len(v.Blocks) > caps.MaxBlocks || len(v.ToolCalls) > caps.MaxStreamKeys {
			t.Fatalf("view over the caps: %d blocks, %d tool calls", len(v.Blocks), len(v.ToolCalls))
		}
		if _, err := json.Marshal(v); err != nil {
			t.Fatalf("view does not encode: %v", err)
		}
	})
}

// opLines turns every 6 bytes into one op line: type, kind, status, stream
// key, seq, source and a payload drawn from the bytes.
func opLines(b []byte) [][]byte {
	kinds := []string{"tool_call", "tool_output_append", "text", "thinking", "error"}
	statuses := []string{"running", "done", "aborted"}
	sources := []string{"envelope", "fallback", "projection"}
	var out [][]byte
	for ; len(b) >= 6; b = b[6:] {
		if b[0]%16 == 15 {
			out = append(out, []byte(`{"type":"seal","task":"t1"}`))
			continue
		}
		kind := kinds[int(b[0])%len(kinds)]
		var payload string
		switch kind {
		case "tool_call":
			payload = fmt.Sprintf(`{"tool":"t%d"}`, b[5]%3)
		case "tool_output_append":
			payload = fmt.Sprintf(`{"tool":"t%d","chunk":%q}`, b[5]%3, strings.Repeat("o", int(b[5])))
		case "error":
			payload = fmt.Sprintf(`{"message":%q}`, strings.Repeat("e", int(b[5])))
		default:
			payload = fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", int(b[5])))
		}
		source := sources[int(b[4])%len(sources)]
		id := ""
		if source != "envelope" {
			id = fmt.Sprintf("id%d", b[3]%8)
		}
		out = append(out, fmt.Appendf(nil, `{"type":"block","task":"t1","streamKey":"k%d","seq":%d,"id":%q,"kind":%q,"status":%q,"payload":%s,"source":%q,"ordinal":%d}`,
			b[2]%4, b[3]%16, id, kind, statuses[int(b[1])%len(statuses)], payload, source, b[4]%5))
	}
	return out
}
