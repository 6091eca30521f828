package fastframe_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/fastframe"
)

// FuzzFastVsA2A decodes arbitrary frame data with the Decoder and, where it
// accepts, with a2a-go: the two must agree (Compare); and the same for the
// general 1.0 path (CompareV1) and the 0.3 one (CompareV03). Seeds: the status
// update shapes of TestDecodeCases here, the corpus in
// testdata/fuzz/FuzzFastVsA2A.
func FuzzFastVsA2A(f *testing.F) {
	for _, rpc := range []bool{true, false} {
		binding := a2a.TransportProtocolHTTPJSON
		if rpc {
			binding = a2a.TransportProtocolJSONRPC
		}
		f.Add([]byte(frame(binding, su)), rpc)
		f.Add([]byte(frame(binding, suMin)), rpc)
	}
	f.Fuzz(func(t *testing.T, data []byte, rpc bool) {
		binding := a2a.TransportProtocolHTTPJSON
		if rpc {
			binding = a2a.TransportProtocolJSONRPC
		}
		if _, err := fastframe.Compare(t.Context(), binding, data); err != nil {
			t.Fatal(err)
		}
		if _, err := fastframe.CompareV1(t.Context(), binding, data); err != nil {
			t.Fatal(err)
		}
		if _, err := fastframe.CompareV03(t.Context(), binding, data); err != nil {
			t.Fatal(err)
		}
	})
}
