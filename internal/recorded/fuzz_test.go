package recorded

import (
	"bytes"
	"testing"
)

// FuzzEvents decodes arbitrary recorded SSE bodies in every format.
// Properties: no panic; the sequence ends, with at most one event per
// input byte; an error ends it. Seeds: testdata/fuzz/FuzzEvents.
func FuzzEvents(f *testing.F) {
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\n\n"))
	f.Add([]byte("data: {\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"working\"},\"final\":false}\n\n"))
	f.Add([]byte("data: {\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}\n\n"))
	formats := []Format{FormatAuto, FormatV1, FormatV03JSON, FormatV03ProtoJS}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, format := range formats {
			n := 0
			for _, err := range Events(bytes.NewReader(body), format) {
				n++
				if n > len(body)+1 {
					t.Fatalf("%s: more than %d events from %d bytes", format, n, len(body))
				}
				if err != nil {
					break
				}
			}
		}
	})
}
