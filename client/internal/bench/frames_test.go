package bench

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

func TestSend(t *testing.T) {
	srv := httptest.NewServer(agenttest.NewFrameServer(40))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(30*time.Second))
	defer cancel()
	const n = 100 // two and a half tiles
	for _, tg := range Targets(srv.URL) {
		t.Run(tg.Name(), func(t *testing.T) {
			ac, err := NewRaw(ctx, tg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ac.Destroy()
			var rawSeqs []int64
			r, err := RawSend(ctx, ac, agenttest.FrameRequest(n, 0), func(i int64) { rawSeqs = append(rawSeqs, i) })
			if err != nil {
				t.Fatal(err)
			}
			want := Result{Events: n + 2, Progress: n, State: a2a.TaskStateCompleted}
			if diff := cmp.Diff(want, Result{Events: r.Events, Progress: r.Progress, State: r.State}); diff != "" {
				t.Errorf("raw (-want +got):\n%s", diff)
			}

			c, err := NewSDK(ctx, tg, nil, client.WithCaps(OpenCaps(n)))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var sdkSeqs []int64
			r, err = SDKSend(ctx, c, agenttest.FrameRequest(n, 0), func(i int64) { sdkSeqs = append(sdkSeqs, i) })
			if err != nil {
				t.Fatal(err)
			}
			want.Applied = n
			if diff := cmp.Diff(want, Result{Events: r.Events, Progress: r.Progress, Applied: r.Applied, State: r.State}); diff != "" {
				t.Errorf("sdk (-want +got):\n%s", diff)
			}
			// The SDK reads the seqs from the envelopes; raw counts updates.
			if diff := cmp.Diff(rawSeqs, sdkSeqs); diff != "" || len(sdkSeqs) != n || sdkSeqs[n-1] != n {
				t.Errorf("seqs differ (-raw +sdk):\n%s", diff)
			}
		})
	}
}

func TestFollow(t *testing.T) {
	fs := agenttest.NewFrameServer(40)
	fs.FollowUpdates = 5
	srv := httptest.NewServer(fs)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(30*time.Second))
	defer cancel()
	var reached, done sync.WaitGroup
	for _, tg := range Targets(srv.URL) {
		for _, impl := range []string{"raw", "sdk"} {
			rd, err := NewReader(ctx, tg, impl, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			reached.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				// A stream that ends before its 5th update must fail the
				// test, not leave reached.Wait hanging.
				reach := sync.OnceFunc(reached.Done)
				defer reach()
				id := a2a.TaskID(tg.Name() + "-" + impl)
				r, err := rd.Follow(ctx, id, func(i int64) {
					if i == 5 {
						reach()
					}
				})
				if err != nil || r.Progress != 5 || r.State != a2a.TaskStateCompleted {
					t.Errorf("%s: %+v, %v", id, r, err)
				}
			}()
		}
	}
	reached.Wait()
	fs.Release()
	done.Wait()
}

func TestLatency(t *testing.T) {
	srv := httptest.NewServer(agenttest.NewFrameServer(40))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(30*time.Second))
	defer cancel()
	for _, tg := range Targets(srv.URL) {
		for _, impl := range []string{"raw", "sdk"} {
			d, err := Latency(ctx, tg, impl, agenttest.FrameRequest(20, 200*time.Microsecond), 20)
			if err != nil {
				t.Fatalf("%s %s: %v", tg.Name(), impl, err)
			}
			if p := Percentiles(d, 0, 1); p[0] < 0 || p[1] > 5*time.Second {
				t.Errorf("%s %s: latencies from %v to %v", tg.Name(), impl, p[0], p[1])
			}
		}
	}
}
