package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

var (
	e2eN    = flag.Int("e2e.n", 2000, "working updates per stream in BenchmarkEndToEnd")
	e2eCaps = flag.String("e2e.caps", "default", "merge caps in BenchmarkEndToEnd: default, or open (every block applied)")
	latN    = flag.Int("lat.n", 200, "working updates per stream in BenchmarkLatency")
	latPace = flag.Duration("lat.pace", 500*time.Microsecond, "interval between frames in BenchmarkLatency")
)

// BenchmarkEndToEnd streams e2e.n working updates from a FrameServer over
// loopback, on JSON-RPC and REST, read alternately by plain a2a-go (raw)
// and by the client pipeline (sdk): each iteration is one stream of each,
// in turn first, so that both see the same load. It reports the rates and
// the ratio sdk/raw; -count gives benchstat its samples:
//
//	go test ./client/internal/bench -run '^$' -bench EndToEnd -e2e.n 100000 -benchtime 3x -count 6
func BenchmarkEndToEnd(b *testing.B) {
	srv := httptest.NewServer(agenttest.NewFrameServer(0))
	defer srv.Close()
	ctx := context.Background()
	text := agenttest.FrameRequest(*e2eN, 0)
	var opts []client.Option
	if *e2eCaps == "open" {
		opts = append(opts, client.WithCaps(OpenCaps(*e2eN)))
	}
	for _, t := range Targets(srv.URL) {
		b.Run("transport="+t.Name(), func(b *testing.B) {
			readers := map[string]*Reader{}
			for _, impl := range Impls {
				rd, err := NewReader(ctx, t, impl, nil, opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer rd.Close()
				readers[impl] = rd
			}
			sum := map[string]*Result{"raw": {}, "sdk": {}}
			for i := 0; b.Loop(); i++ {
				for _, impl := range Order(i) {
					r, err := readers[impl].Send(ctx, text, nil)
					if err != nil {
						b.Fatal(err)
					}
					sum[impl].Events += r.Events
					sum[impl].Elapsed += r.Elapsed
				}
			}
			raw, sdk := sum["raw"], sum["sdk"]
			b.ReportMetric(raw.PerSecond(), "raw-events/s")
			b.ReportMetric(sdk.PerSecond(), "sdk-events/s")
			b.ReportMetric(sdk.PerSecond()/raw.PerSecond(), "sdk/raw")
			b.ReportMetric(0, "ns/op") // a stream's length is a flag: the rates compare
		})
	}
}

// BenchmarkLatency paces lat.n frames (one per lat.pace, flushed) and
// reports the delay from a frame's arrival at the client (the read that
// brought it returned) to its delivery: the a2a-go event with its text
// touched (raw), the Update (sdk).
//
//	go test ./client/internal/bench -run '^$' -bench Latency -lat.n 2000 -benchtime 1x -count 3
func BenchmarkLatency(b *testing.B) {
	srv := httptest.NewServer(agenttest.NewFrameServer(0))
	defer srv.Close()
	ctx := context.Background()
	text := agenttest.FrameRequest(*latN, *latPace)
	for _, t := range Targets(srv.URL) {
		for _, impl := range Impls {
			b.Run(fmt.Sprintf("transport=%s/impl=%s", t.Name(), impl), func(b *testing.B) {
				var lat []time.Duration
				for b.Loop() {
					d, err := Latency(ctx, t, impl, text, *latN)
					if err != nil {
						b.Fatal(err)
					}
					lat = append(lat, d...)
				}
				p := Percentiles(lat, 0.5, 0.99)
				b.ReportMetric(float64(p[0].Nanoseconds())/1e3, "p50-µs")
				b.ReportMetric(float64(p[1].Nanoseconds())/1e3, "p99-µs")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkOpMarshal is the serialisation of one merge op (json.Marshal
// of schema.Op), as a front end that forwards ops pays it per event: the
// ops of agenttest.Trajectory(1000), in turn.
func BenchmarkOpMarshal(b *testing.B) {
	ops := trajectoryOps(b, 1000)
	var size int
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out, err := json.Marshal(ops[i%len(ops)])
		if err != nil {
			b.Fatal(err)
		}
		size += len(out)
	}
	b.ReportMetric(float64(size)/float64(b.N), "bytes/op")
}

// trajectoryOps parses the envelopes of agenttest.Trajectory(n) from their
// status updates and merges them; it returns the ops, the seal's last.
func trajectoryOps(tb testing.TB, n int) []schema.Op {
	turn := merge.NewTurn("task-1", "", merge.DefaultCaps())
	info := a2a.TaskInfo{TaskID: "task-1", ContextID: "ctx-1"}
	var ops []schema.Op
	for _, st := range agenttest.Trajectory(n).Steps {
		ev, err := envelope.NewStatusUpdate(info, *st.Envelope, st.Text)
		if err != nil {
			tb.Fatal(err)
		}
		ch := turn.Apply(envelope.FromMessage(ev.Status.Message))
		if ch.Effect != merge.Applied {
			tb.Fatalf("%+v", ch)
		}
		ops = append(ops, ch.Op)
	}
	return append(ops, turn.Seal())
}
