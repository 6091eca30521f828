package capture

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The normaliser keeps equal ids equal and makes re-recordings identical.
func TestNormalise(t *testing.T) {
	in := `{"taskId":"3f2b9a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b","m":"9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a",` +
		`"again":"3f2b9a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b","ts":"2026-07-29T09:07:15.542073509Z","ts2":"2026-07-29T09:07:15+02:00"}`
	want := `{"taskId":"00000000-0000-4000-8000-000000000001","m":"00000000-0000-4000-8000-000000000002",` +
		`"again":"00000000-0000-4000-8000-000000000001","ts":"2026-11-30T00:00:00Z","ts2":"2026-11-30T00:00:00Z"}`
	if diff := cmp.Diff(want, string(Normalise([]byte(in)))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
