package fastframe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/bench"
	"github.com/tfrs/a2a-progress/internal/capture"
	"github.com/tfrs/a2a-progress/internal/fastframe"
	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// benchFrames records the working-update frames a FrameServer sends for a
// stream of n updates on t: the frames of the end-to-end benchmark.
func benchFrames(b *testing.B, t bench.Target, n int) [][]byte {
	b.Helper()
	srv := httptest.NewServer(bench.NewFrameServer(0))
	defer srv.Close()
	t.URL = srv.URL
	rec := &capture.Recorder{}
	c, err := bench.NewSDK(context.Background(), t, &http.Client{Transport: rec}, client.WithFastPath(false))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := bench.SDKSend(context.Background(), c, bench.SendText(n, 0), nil); err != nil {
		b.Fatal(err)
	}
	var out [][]byte
	rd := ssewire.NewReader(bytes.NewReader(rec.Streams()[0].Body()), 0)
	for {
		data, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, bytes.Clone(data))
	}
	// The working updates: not the first (the Task) nor the last (completed).
	return out[1 : len(out)-1]
}

// clientResponse is a2a-go's JSON-RPC response (internal/jsonrpc).
type clientResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      string          `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// BenchmarkFrameDecode decodes the working-update frames of the end-to-end
// benchmark (callee.Trajectory's envelopes, 500–900 bytes) one per op, side
// by side:
//
//   - fast: the one-pass Decoder;
//
//   - fast+envelope: the Decoder, then the envelope read from its message
//     (envelope.FromMessage, as the client does next);
//
//   - a2a-go: a2a-go's own passes (the JSON-RPC response, then the
//     StreamResponse with its parts and metadata; on REST the
//     StreamResponse);
//
//   - floor-valid: one validation pass of encoding/json (json.Valid), no
//     decoding at all; floor-jsontext (GOEXPERIMENT=jsonv2 only, see
//     floor_jsonv2_test.go): jsontext's validation pass.
//
//     go test ./internal/fastframe -run '^$' -bench FrameDecode -benchmem -count 6
func BenchmarkFrameDecode(b *testing.B) {
	for _, t := range bench.Targets("") {
		frames := benchFrames(b, t, 1000)
		size := 0
		for _, f := range frames {
			size += len(f)
		}
		rpc := t.Transport == a2a.TransportProtocolJSONRPC
		// One Decoder per stream, as the client keeps it.
		d := fastframe.Decoder{RPC: rpc}
		impls := []struct {
			name string
			fn   func(b *testing.B, f []byte)
		}{
			{"fast", func(b *testing.B, f []byte) {
				if _, ok := d.Decode(f); !ok {
					b.Fatalf("declined %s", f)
				}
			}},
			{"fast+envelope", func(b *testing.B, f []byte) {
				ev, ok := d.Decode(f)
				if !ok {
					b.Fatalf("declined %s", f)
				}
				if r := envelope.FromMessage(ev.Status.Message); r.Fallback {
					b.Fatal(r.Err)
				}
			}},
			{"a2a-go", func(b *testing.B, f []byte) {
				body := f
				if rpc {
					var resp clientResponse
					if err := json.Unmarshal(f, &resp); err != nil {
						b.Fatal(err)
					}
					body = resp.Result
				}
				var sr a2a.StreamResponse
				if err := json.Unmarshal(body, &sr); err != nil {
					b.Fatal(err)
				}
			}},
			{"floor-valid", func(b *testing.B, f []byte) {
				if !json.Valid(f) {
					b.Fatal("invalid")
				}
			}},
		}
		impls = append(impls, floorImpls()...)
		for _, impl := range impls {
			b.Run("wire="+t.Name()+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(size / len(frames)))
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					impl.fn(b, frames[i%len(frames)])
				}
			})
		}
	}
}
