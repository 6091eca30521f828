package relay_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/relay"
)

// feed is an event source the benchmark pushes into an attached stream.
type feed struct {
	ch   chan a2a.Event
	task *a2a.Task
	seq  int64
}

func newFeed() *feed {
	return &feed{ch: make(chan a2a.Event, 1), task: &a2a.Task{ID: "bench-task", ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}}
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

// push sends one 200-byte tool output chunk.
func (f *feed) push(b *testing.B) {
	f.seq++
	ev, err := envelope.NewStatusUpdate(f.task, envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "c1",
		Seq: f.seq, Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "t", Chunk: string(bytes.Repeat([]byte("x"), 199)) + "\n"}}, "")
	if err != nil {
		b.Fatal(err)
	}
	f.ch <- ev
}

// rawSub is a subscriber on a raw connection with small buffers and no
// goroutine while idle, so that the memory measured is mostly the server's
// (the client side adds its two 1 KiB buffers — the wire's, and the
// decoded chunked body's — and the socket's Go structures).
type rawSub struct {
	c net.Conn
	r *bufio.Reader
}

func dialSub(b *testing.B, addr, path string) *rawSub {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: bench\r\n\r\n", path); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReaderSize(c, 1024) // an op line is < 600 bytes here
	chunked := false
	for { // status line and headers
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Transfer-Encoding") &&
			strings.EqualFold(strings.TrimSpace(v), "chunked") {
			chunked = true
		}
	}
	if chunked {
		// The body is HTTP/1.1 chunked: its lines are read from the
		// decoded body, not from the wire, where a chunk header may fall
		// inside an id: line and hide the op.
		r = bufio.NewReaderSize(httputil.NewChunkedReader(r), 1024)
	}
	return &rawSub{c: c, r: r}
}

// BenchmarkFanOut1000 fans one task out to 1000 SSE subscribers on
// loopback. It reports the heap and stack held per idle subscriber, the ops
// delivered per second (one op × 1000 subscribers = 1000 deliveries) when
// ops are published back to back, and the time from publishing an op to
// its arrival at the last subscriber (p50, p99) when each op is published
// after the previous one reached everyone.
func BenchmarkFanOut1000(b *testing.B) {
	const subs = 1000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := relay.New(ctx, nil, relay.WithAuthorizer(relay.AllowAll), relay.WithSubscriberCaps(subs, subs), relay.WithKeepAlive(time.Hour))
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()

	f := newFeed()
	attached := make(chan struct{})
	go func() {
		defer close(attached)
		for range h.Attach(client.Replay(ctx, f.events())) {
		}
	}()
	defer func() { close(f.ch); <-attached }()
	f.push(b) // the task exists once its first op is published
	for h.Stats().Tasks == 0 {
		runtime.Gosched()
	}

	addr := srv.Listener.Addr().String()
	path := "/tasks/bench-task/events?after=none"
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	conns := make([]*rawSub, subs)
	for i := range conns {
		conns[i] = dialSub(b, addr, path)
	}
	for h.Stats().Subscribers < subs {
		runtime.Gosched()
	}
	// A few collections, as a running server has between bursts: each
	// halves the stacks that grew while a subscription started (its
	// snapshot's JSON encoding) and now idle.
	for range 4 {
		runtime.GC()
	}
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	perSub := float64((m1.HeapInuse+m1.StackInuse)-(m0.HeapInuse+m0.StackInuse)) / subs
	stackPerSub := float64(m1.StackInuse-m0.StackInuse) / subs

	// Readers: each counts the ops it got by cursor; the last reader of an
	// op records when it arrived.
	total := b.N + 200 + 1
	got := make([]atomic.Int32, total+2)
	arrived := make([]atomic.Int64, total+2)
	done := make(chan int, 1)
	var wg sync.WaitGroup
	for _, s := range conns {
		wg.Go(func() {
			for {
				line, err := s.r.ReadSlice('\n')
				if err != nil {
					return
				}
				if !bytes.HasPrefix(line, []byte("id: ")) {
					continue
				}
				id := bytes.TrimSpace(line[4:])
				n, _ := strconv.Atoi(string(id[bytes.LastIndexByte(id, '.')+1:]))
				if n <= 0 || n >= len(got) {
					continue
				}
				if got[n].Add(1) == subs {
					arrived[n].Store(time.Now().UnixNano())
					select {
					case done <- n:
					default:
					}
				}
			}
		})
	}
	defer func() {
		for _, s := range conns {
			s.c.Close()
		}
		wg.Wait()
	}()
	waitAll := func(n int) {
		timeout := time.NewTimer(time.Minute)
		defer timeout.Stop()
		for got[n].Load() < subs {
			select {
			case <-done:
			case <-timeout.C:
				b.Fatalf("op %d reached %d of %d subscribers in a minute (%d subscribed)", n, got[n].Load(), subs, h.Stats().Subscribers)
			}
		}
	}
	waitAll(1) // the first op, sent as a snapshot's last event

	b.ResetTimer()
	start := time.Now()
	for range b.N {
		f.push(b)
	}
	waitAll(1 + b.N)
	elapsed := time.Since(start)
	b.StopTimer()

	lat := make([]time.Duration, 0, 200)
	for i := range 200 {
		n := 2 + b.N + i
		t0 := time.Now().UnixNano()
		f.push(b)
		waitAll(n)
		lat = append(lat, time.Duration(arrived[n].Load()-t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N*subs)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(perSub/1024, "KiB/idle-sub")
	b.ReportMetric(stackPerSub/1024, "stack-KiB/idle-sub")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkIdleNetHTTP is the floor under BenchmarkFanOut1000's memory
// figure: 1000 idle event-stream responses of a bare net/http handler
// that sends its headers and waits, measured the same way.
func BenchmarkIdleNetHTTP(b *testing.B) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		n.Add(1)
		<-r.Context().Done()
	}))
	defer srv.Close()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var cs []*rawSub
	for range 1000 {
		cs = append(cs, dialSub(b, srv.Listener.Addr().String(), "/"))
	}
	for n.Load() < 1000 {
		runtime.Gosched()
	}
	for range 4 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.HeapInuse-m0.HeapInuse)/1000/1024, "heap-KiB")
	b.ReportMetric(float64(m1.StackInuse-m0.StackInuse)/1000/1024, "stack-KiB")
	for _, c := range cs {
		c.c.Close()
	}
}
