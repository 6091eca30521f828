package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/internal/bench"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/capture"
	"github.com/tfrs/a2a-progress/internal/fastframe"
	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// benchFrames records the working-update frames a FrameServer sends for a
// stream of n updates on t: the frames of the end-to-end benchmark.
func benchFrames(b *testing.B, t bench.Target, n int) [][]byte {
	b.Helper()
	srv := httptest.NewServer(agenttest.NewFrameServer(0))
	defer srv.Close()
	t.URL = srv.URL
	rec := &capture.Recorder{}
	c, err := bench.NewSDK(context.Background(), t, &http.Client{Transport: rec})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := bench.SDKSend(context.Background(), c, agenttest.FrameRequest(n, 0), nil); err != nil {
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
// benchmark (callee.Trajectory's envelopes, 500–900 bytes) one per op, each
// decoder in its own sub-benchmark (for B/op and allocs/op; for times side
// by side, BenchmarkFrameDecodeSideBySide). The decoders:
//
//   - fast: the one-pass Decoder;
//   - fast+envelope: the Decoder, then the envelope read from its message
//     (envelope.FromMessage, as the client does next);
//   - a2a-go: a2a-go's own passes (the JSON-RPC response, then the
//     StreamResponse with its parts and metadata; on REST the
//     StreamResponse);
//   - floor-valid: one validation pass of encoding/json (json.Valid), no
//     decoding at all; floor-jsontext (GOEXPERIMENT=jsonv2 only, see
//     fastframe_floor_jsonv2_test.go): jsontext's validation pass.
//
// Run:
//
//	go test ./client -run '^$' -bench 'FrameDecode$' -benchmem -count 6
func BenchmarkFrameDecode(b *testing.B) {
	for _, t := range bench.Targets("") {
		frames := benchFrames(b, t, 1000)
		size := 0
		for _, f := range frames {
			size += len(f)
		}
		impls := frameImpls(t.Transport == a2a.TransportProtocolJSONRPC)
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

// frameImpl is one way to decode a frame.
type frameImpl struct {
	name string
	fn   func(b *testing.B, f []byte)
}

// frameImpls are the decoders BenchmarkFrameDecode compares, for JSON-RPC
// frames (rpc) or REST ones.
func frameImpls(rpc bool) []frameImpl {
	// One Decoder per stream, as the client keeps it.
	d := fastframe.Decoder{RPC: rpc}
	impls := []frameImpl{
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
		{"read", func(b *testing.B, f []byte) {
			ev, ok := d.Read(f)
			if !ok {
				b.Fatalf("declined %s", f)
			}
			p, ok := ev.(*fastframe.Progress)
			if !ok {
				b.Fatalf("not read as progress: %s", f)
			}
			if _, ok := envelope.FromTfrs(p.Tfrs); !ok {
				b.Fatalf("no valid envelope: %s", f)
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
	return append(impls, floorImpls()...)
}

// BenchmarkFrameDecodeSideBySide runs the decoders of BenchmarkFrameDecode
// in turn on the same batch of 100 frames, batch after batch, and reports
// each one's ns/frame: on a loaded host, the ratios hold where separate
// sub-benchmarks drift apart.
//
//	go test ./client -run '^$' -bench FrameDecodeSideBySide -benchtime 300x -count 6
func BenchmarkFrameDecodeSideBySide(b *testing.B) {
	for _, t := range bench.Targets("") {
		frames := benchFrames(b, t, 1000)
		impls := frameImpls(t.Transport == a2a.TransportProtocolJSONRPC)
		b.Run("wire="+t.Name(), func(b *testing.B) {
			spent := make([]time.Duration, len(impls))
			n := 0
			for i := 0; b.Loop(); i++ {
				batch := frames[(i*100)%len(frames):][:100]
				for k := range impls {
					k = (k + i) % len(impls) // rotate who goes first
					start := time.Now()
					for _, f := range batch {
						impls[k].fn(b, f)
					}
					spent[k] += time.Since(start)
				}
				n += len(batch)
			}
			for k, impl := range impls {
				b.ReportMetric(float64(spent[k].Nanoseconds())/float64(n), impl.name+"-ns/frame")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkArtifactDecode reads artifact updates as the client does
// (Decoder.Read) and as a2a-go does (fastframe.DecodeV1, its types and
// unmarshallers): one of 64 text parts of 1 KiB, and an append of one text
// part of 1 MiB (the shapes of internal/flood's turn).
//
//	go test ./client -run '^$' -bench 'ArtifactDecode' -benchmem -count 6
func BenchmarkArtifactDecode(b *testing.B) {
	kib := a2a.NewTextPart(string(bytes.Repeat([]byte("a"), 1<<10)))
	parts := make(a2a.ContentParts, 64)
	for i := range parts {
		parts[i] = kib
	}
	events := map[string]*a2a.TaskArtifactUpdateEvent{
		"64x1KiB": {TaskID: "t1", ContextID: "c1", Artifact: &a2a.Artifact{ID: "a1", Name: "part", Parts: parts}},
		"1MiB": {TaskID: "t1", ContextID: "c1", Append: true, Artifact: &a2a.Artifact{ID: "big",
			Parts: a2a.ContentParts{a2a.NewTextPart(string(bytes.Repeat([]byte("b"), 1<<20)))}}},
	}
	for _, name := range []string{"64x1KiB", "1MiB"} {
		sr, err := json.Marshal(a2a.StreamResponse{Event: events[name]})
		if err != nil {
			b.Fatal(err)
		}
		f := []byte(`{"jsonrpc":"2.0","id":"1","result":` + string(sr) + `}`)
		d := fastframe.Decoder{RPC: true}
		for _, impl := range []struct {
			name string
			fn   func() bool
		}{
			{"read", func() bool { _, ok := d.Read(f); return ok }},
			{"a2a-go", func() bool { _, ok := fastframe.DecodeV1(true, f); return ok }},
		} {
			b.Run("frame="+name+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(f)))
				b.ReportAllocs()
				for b.Loop() {
					if !impl.fn() {
						b.Fatalf("declined %.200s", f)
					}
				}
			})
		}
	}
}
