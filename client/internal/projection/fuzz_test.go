package projection

import (
	"bytes"
	"testing"
)

// FuzzClassifyQuery classifies arbitrary /v1/query frames and plays
// arbitrary bodies as a query turn. Properties: no panic; every frame gets
// one of the three kinds; a projection frame has its projection object and
// an interrupt frame its items; the body's events end.
// Seeds: testdata/fuzz/FuzzClassifyQuery.
func FuzzClassifyQuery(f *testing.F) {
	f.Add([]byte(`{"content":"x","projection":{"kind":"remote_agent_invocation","phase":"running"}}`))
	f.Add([]byte(`{"message":"approve?","items":[{"tool_call_id":"c1"}]}`))
	f.Add([]byte(`{"content":"hello"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		q := ClassifyQuery(data)
		switch q.Kind {
		case QueryProjection:
			if q.Projection == nil {
				t.Fatalf("a projection frame without its projection: %q", data)
			}
		case QueryInterrupt, QueryBusiness:
		default:
			t.Fatalf("kind %v for %q", q.Kind, data)
		}
		body := append(append([]byte("data: "), bytes.ReplaceAll(data, []byte("\n"), nil)...), "\n\n"...)
		n := 0
		for _, err := range QueryEvents(bytes.NewReader(body), "conv") {
			n++
			if n > len(body)+2 {
				t.Fatalf("more than %d events from %d bytes", n, len(body))
			}
			if err != nil {
				break
			}
		}
	})
}
