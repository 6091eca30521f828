//go:build unix

package main

import (
	"bytes"
	"context"
	"flag"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

var ndjsonN = flag.Int("ndjson.n", 5000, "working updates per stream in BenchmarkNDJSONBesideSDK")

// BenchmarkNDJSONBesideSDK is what `a2a-tail send -o ndjson` costs per line
// beside the SDK loop alone, on the same stream: ndjson.n working updates
// from a FrameServer over loopback (JSON-RPC), read by a client made for
// the stream, every op taken with Update.Op — by the SDK loop, which does
// nothing with it, and by the CLI (run in this process, its stdout a pipe
// drained by a reader), which writes each as a line. Each iteration runs
// both, alternating which goes first; the figures are the best of the
// iterations, per op line: wall time, and the process's CPU time (getrusage,
// which a loaded host disturbs less), the in-process server's share
// included on both sides; and the ratios of the bests:
//
//	go test ./cmd/a2a-tail -run '^$' -bench NDJSONBesideSDK -benchtime 5x -count 3
func BenchmarkNDJSONBesideSDK(b *testing.B) {
	srv := httptest.NewServer(agenttest.NewFrameServer(0))
	defer srv.Close()
	endpoint, text := srv.URL+"/jsonrpc", agenttest.FrameRequest(*ndjsonN, 0)
	ctx := context.Background()
	sdk := func() (int, time.Duration) {
		start := time.Now()
		c, err := client.New(ctx, endpoint, client.WithTransport(a2a.TransportProtocolJSONRPC))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		s, err := c.SendText(ctx, text)
		if err != nil {
			b.Fatal(err)
		}
		ops := 0
		for u, err := range s.Updates() {
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := u.Op(); ok {
				ops++
			}
		}
		return ops, time.Since(start)
	}
	cli := func() (int, time.Duration) {
		pr, pw, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		lines := make(chan int)
		go func() {
			n, buf := 0, make([]byte, 64<<10)
			for {
				k, err := pr.Read(buf)
				n += bytes.Count(buf[:k], []byte{'\n'})
				if err != nil {
					lines <- n
					return
				}
			}
		}()
		start := time.Now()
		var stderr strings.Builder
		code := newApp(strings.NewReader(""), pw, &stderr).run(ctx, []string{"send", "--transport", "jsonrpc", "-o", "ndjson", endpoint, text})
		pw.Close()
		n := <-lines
		took := time.Since(start)
		pr.Close()
		if code != exitOK {
			b.Fatalf("a2a-tail exited %d: %s", code, stderr.String())
		}
		return n, took
	}
	best, bestCPU := map[string]time.Duration{}, map[string]time.Duration{}
	for i := 0; b.Loop(); i++ {
		order := []string{"sdk", "ndjson"}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, impl := range order {
			run := sdk
			if impl == "ndjson" {
				run = cli
			}
			cpu := cpuTime(b)
			n, took := run()
			if n < *ndjsonN {
				b.Fatalf("%s: %d op lines, want at least %d", impl, n, *ndjsonN)
			}
			if per := took / time.Duration(n); best[impl] == 0 || per < best[impl] {
				best[impl] = per
			}
			if per := (cpuTime(b) - cpu) / time.Duration(n); bestCPU[impl] == 0 || per < bestCPU[impl] {
				bestCPU[impl] = per
			}
		}
	}
	b.ReportMetric(float64(best["sdk"].Nanoseconds())/1e3, "sdk-µs/line")
	b.ReportMetric(float64(best["ndjson"].Nanoseconds())/1e3, "ndjson-µs/line")
	b.ReportMetric(float64(best["ndjson"])/float64(best["sdk"]), "ndjson/sdk")
	b.ReportMetric(float64(bestCPU["sdk"].Nanoseconds())/1e3, "sdk-cpu-µs/line")
	b.ReportMetric(float64(bestCPU["ndjson"].Nanoseconds())/1e3, "ndjson-cpu-µs/line")
	b.ReportMetric(float64(bestCPU["ndjson"])/float64(bestCPU["sdk"]), "ndjson/sdk-cpu")
	b.ReportMetric(0, "ns/op") // the stream's length is a flag: the per-line times compare
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
