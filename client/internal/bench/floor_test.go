package bench

import (
	"context"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The floor does the SDK's work on a FrameServer's streams: the same
// events, the same blocks applied, the same end — or its figures would be
// a floor of something else.
func TestFloorMatchesTheSDK(t *testing.T) {
	srv := httptest.NewServer(agenttest.NewFrameServer(0))
	defer srv.Close()
	ctx := context.Background()
	const n = 3000
	for _, tg := range Targets(srv.URL) {
		t.Run(tg.Name(), func(t *testing.T) {
			fl, err := FloorSend(ctx, nil, tg, agenttest.FrameRequest(n, 0), false)
			if err != nil {
				t.Fatal(err)
			}
			flv, err := FloorSend(ctx, nil, tg, agenttest.FrameRequest(n, 0), true)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := NewReader(ctx, tg, "sdk", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			sdk, err := rd.Send(ctx, agenttest.FrameRequest(n, 0), nil)
			if err != nil {
				t.Fatal(err)
			}
			type summary struct{ Progress, Applied int }
			if d := cmp.Diff(summary{sdk.Progress, sdk.Applied}, summary{fl.Progress, fl.Applied}); d != "" {
				t.Errorf("floor vs SDK (-sdk +floor):\n%s", d)
			}
			if d := cmp.Diff(summary{sdk.Progress, sdk.Applied}, summary{flv.Progress, flv.Applied}); d != "" {
				t.Errorf("validating floor vs SDK (-sdk +floor):\n%s", d)
			}
			if fl.Progress != n {
				t.Errorf("floor read %d working updates, want %d", fl.Progress, n)
			}
		})
	}
}

// BenchmarkFloor streams e2e.n working updates from a FrameServer over
// loopback, on JSON-RPC and REST, read by each reader in turn within one
// run: raw (plain a2a-go iteration), sdk (the client), floor and
// floor-valid (FloorSend).
// One iteration is one stream; ns/event is the metric to compare, with
// -benchmem's figures per stream (divide by e2e.n + 2 events):
//
//	go test ./client/internal/bench -run '^$' -bench Floor -e2e.n 20000 -benchtime 5x -count 6 -benchmem > floor.txt
//	benchstat -col /impl floor.txt
func BenchmarkFloor(b *testing.B) {
	srv := httptest.NewServer(agenttest.NewFrameServer(0))
	defer srv.Close()
	ctx := context.Background()
	text := agenttest.FrameRequest(*e2eN, 0)
	for _, tg := range Targets(srv.URL) {
		for _, impl := range []string{"raw", "sdk", "floor", "floor-valid"} {
			b.Run("transport="+tg.Name()+"/impl="+impl, func(b *testing.B) {
				rd, err := NewReader(ctx, tg, impl, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer rd.Close()
				send := func() (Result, error) { return rd.Send(ctx, text, nil) }
				var events int
				var took time.Duration
				for b.Loop() {
					r, err := send()
					if err != nil {
						b.Fatal(err)
					}
					events += r.Events
					took += r.Elapsed
				}
				b.ReportMetric(float64(took.Nanoseconds())/float64(events), "ns/event")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
