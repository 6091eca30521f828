package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/redis/go-redis/v9"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/redistest"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/redisstore"
	"github.com/tfrs/a2a-progress/schema"
)

// feed is an event source a benchmark pushes into an attached stream: one
// 200-byte tool output chunk per op, as relay's own benchmarks.
type feed struct {
	ch   chan a2a.Event
	task *a2a.Task
	seq  int64
}

func newFeed(task string) *feed {
	return &feed{ch: make(chan a2a.Event, 1), task: &a2a.Task{ID: a2a.TaskID(task), ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}}
}

func (f *feed) events() iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !yield(f.task, nil) {
			return
		}
		for ev := range f.ch {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (f *feed) push(b *testing.B) {
	f.seq++
	ev, err := envelope.NewStatusUpdate(f.task, envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "c1",
		Seq: f.seq, Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "t", Chunk: strings.Repeat("x", 199) + "\n"}}, "")
	if err != nil {
		b.Fatal(err)
	}
	f.ch <- ev
}

// BenchmarkAppend is the raw rate of the store: one op (~400 bytes of op
// JSON) appended per iteration by one publisher, each waiting for Redis.
func BenchmarkAppend(b *testing.B) {
	r := redistest.Start(b)
	st, err := redisstore.New(fmt.Sprintf("redis://127.0.0.1:%d/0", r.Port))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	op := []byte(`{"type":"block","task":"bench","turn":"t1","block":{"key":{"seq":1,"streamKey":"c1"},"kind":"tool_output_append","status":"running","source":"envelope","payload":{"tool":"t","chunk":"` + strings.Repeat("x", 199) + `\n"}}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := st.Append(ctx, "bench", op, i > 0, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkOpToBrowser measures the time from publishing an op (Attach) to
// its arrival at an SSE reader, each op published after the previous one
// arrived: "memory" is one Handler, today's default; "redis" is the
// deployment of the replicas test — a worker Handler that publishes into
// Redis and a replica Handler that serves the reader from its mirror. It
// reports p50 and p99 and the op rate of that ping-pong.
func BenchmarkOpToBrowser(b *testing.B) {
	for _, mode := range []string{"memory", "redis"} {
		b.Run(mode, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			serve := []relay.Option{relay.WithAuthorizer(relay.AllowAll)}
			var worker, replica *relay.Handler
			if mode == "memory" {
				worker = relay.New(ctx, nil, serve...)
				replica = worker
			} else {
				r := redistest.Start(b)
				// Two processes in a deployment: two clients of their own.
				worker = relay.New(ctx, nil, relay.WithStore(benchStore(b, r)))
				replica = relay.New(ctx, nil, append(serve, relay.WithStore(benchStore(b, r)))...)
				defer replica.Close()
			}
			defer worker.Close()
			srv := httptest.NewServer(replica)
			defer srv.Close()

			task := "bench-" + mode
			f := newFeed(task)
			attached := make(chan struct{})
			go func() {
				defer close(attached)
				for range worker.Attach(client.Replay(ctx, f.events())) {
				}
			}()
			defer func() { close(f.ch); <-attached }()
			f.push(b) // the task exists once its first op is published

			resp, err := waitStream(ctx, srv.URL+"/tasks/"+task+"/events")
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			rd := ssewire.NewStrictReader(bufio.NewReader(resp.Body), ssewire.DefaultMaxEventBytes)
			next := func() int64 { // the seq of the next block op
				for {
					ev, err := rd.NextEvent()
					if err != nil {
						b.Fatal(err)
					}
					if !ev.HasData {
						continue
					}
					var op schema.Op
					if err := json.Unmarshal(ev.Data, &op); err != nil {
						b.Fatal(err)
					}
					if op.Type == schema.OpBlock {
						return op.Block.Key.Seq
					}
				}
			}
			for next() < f.seq { // the snapshot
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				f.push(b)
				for next() < f.seq {
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

func benchStore(b *testing.B, r *redistest.Server) *redisstore.Store {
	st, err := redisstore.New(fmt.Sprintf("redis://127.0.0.1:%d/0", r.Port))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	return st
}

// waitStream opens the event stream, retrying while the task is not there
// yet (the first op is on its way through the store).
func waitStream(ctx context.Context, u string) (*http.Response, error) {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusOK {
			return resp, nil
		}
		resp.Body.Close()
		// 404: not published yet; 503: its publisher holds the lease and
		// its first op is on the way.
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusServiceUnavailable {
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkRedisMemoryPerTask publishes whole turns — 200 ops of ~400
// bytes each, a long tool call's output — for many tasks and reports the
// Redis memory (INFO used_memory) each task's log takes, and the op JSON
// it holds, so the overhead of Redis's stream and hash is visible.
func BenchmarkRedisMemoryPerTask(b *testing.B) {
	const tasks, opsPerTask = 200, 200
	r := redistest.Start(b)
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", r.Port)
	st, err := redisstore.New(url)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.Port)})
	defer rdb.Close()
	ctx := context.Background()
	used := func() int64 {
		info, err := rdb.Info(ctx, "memory").Result()
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		b.Fatal("no used_memory")
		return 0
	}
	op := []byte(`{"type":"block","task":"bench","turn":"t1","block":{"key":{"seq":1,"streamKey":"c1"},"kind":"tool_output_append","status":"running","source":"envelope","payload":{"tool":"t","chunk":"` + strings.Repeat("x", 199) + `\n"}}}`)
	for n := 0; b.Loop(); n++ {
		if err := rdb.FlushAll(ctx).Err(); err != nil {
			b.Fatal(err)
		}
		before := used()
		for i := range tasks {
			task := fmt.Sprintf("task-%d-%d", n, i)
			for j := range opsPerTask {
				if _, err := st.Append(ctx, task, op, j > 0, j == opsPerTask-1); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(used()-before)/tasks, "redis-B/task")
		b.ReportMetric(float64(len(op)*opsPerTask), "opjson-B/task")
	}
}
