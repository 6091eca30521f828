package client_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// FuzzFastVsA2A decodes arbitrary frame data with the Decoder and, where it
// accepts, with a2a-go: the two must agree (Compare, and CompareRead for
// the client's Decoder.Read); and the same for the
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
		f.Add([]byte(frame(binding, `{"artifactUpdate":{"taskId":"t1","contextId":"c1","append":true,"lastChunk":false,`+
			`"artifact":{"artifactId":"a1","name":"n","description":"d","parts":[{"text":"x\u00e9","metadata":{"k":"v"}},{"text":""}]}}}`)), rpc)
	}
	// Error frames: FrameError must give a2a-go's error for them, details
	// and ErrorInfo metadata included.
	for _, e := range []struct {
		data string
		rpc  bool
	}{
		{`{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"gone","data":[` +
			`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"k":"v"}},` +
			`{"@type":"type.googleapis.com/google.protobuf.Struct","n":1},{"@type":"type.googleapis.com/x.Y","s":"t"}]}}`, true},
		{`{"jsonrpc":"2.0","id":"1","error":{"code":-31999,"message":""}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`{"error":{"code":404,"status":"NOT_FOUND","message":"gone","details":[` +
			`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"k":"v"}},` +
			`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNAUTHENTICATED","domain":"elsewhere"},` +
			`{"@type":"type.googleapis.com/google.protobuf.Struct","n":1}]}}`, false},
		{`{"error":{"code":500,"message":"x"},"statusUpdate":{}}`, false},
		{`{"error":"not an object"}`, false},
		{`{}`, false},
	} {
		f.Add([]byte(e.data), e.rpc)
	}
	f.Fuzz(func(t *testing.T, data []byte, rpc bool) {
		binding := a2a.TransportProtocolHTTPJSON
		if rpc {
			binding = a2a.TransportProtocolJSONRPC
		}
		if _, err := Compare(t.Context(), binding, data); err != nil {
			t.Fatal(err)
		}
		if _, err := CompareRead(t.Context(), binding, data); err != nil {
			t.Fatal(err)
		}
		if _, err := CompareV1(t.Context(), binding, data); err != nil {
			t.Fatal(err)
		}
		if _, err := CompareV03(t.Context(), binding, data); err != nil {
			t.Fatal(err)
		}
	})
}
