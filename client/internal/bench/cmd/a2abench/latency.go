package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/internal/bench"
)

// latency: paced streams (one frame per pace, flushed), raw and SDK
// alternately; per working update, the time from the frame's arrival at
// the client (the body read that brought it returned) to its delivery.
func latency(args []string) error {
	fl := flag.NewFlagSet("latency", flag.ExitOnError)
	n := fl.Int("n", 2000, "working updates per stream")
	pace := fl.Duration("pace", time.Millisecond, "interval between frames")
	reps := fl.Int("reps", 3, "repetitions (each: one raw and one SDK stream per transport)")
	transports := fl.String("transports", "jsonrpc,rest", "transports, comma-separated")
	_ = fl.Parse(args)

	ctx, _, targets, done, err := served(*transports)
	if err != nil {
		return err
	}
	defer done()
	text := agenttest.FrameRequest(*n, *pace)
	for _, t := range targets { // warm-up
		for _, impl := range bench.Impls {
			if _, err := bench.Latency(ctx, t, impl, agenttest.FrameRequest(100, *pace), 100); err != nil {
				return err
			}
		}
	}
	lat := map[string][]time.Duration{}
	for rep := range *reps {
		for _, t := range targets {
			for _, impl := range bench.Order(rep) {
				d, err := bench.Latency(ctx, t, impl, text, *n)
				if err != nil {
					return err
				}
				lat[t.Name()+"/"+impl] = append(lat[t.Name()+"/"+impl], d...)
			}
		}
	}
	fmt.Printf("# latency: %d reps of %d updates, one frame per %v; arrival at the client → delivery\n\n", *reps, *n, *pace)
	fmt.Println("| transport | reader | samples | p50 | p90 | p99 | p99.9 | max |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, t := range targets {
		for _, impl := range bench.Impls {
			d := lat[t.Name()+"/"+impl]
			p := bench.Percentiles(d, 0.5, 0.9, 0.99, 0.999, 1)
			name := map[string]string{"raw": "raw a2a-go", "sdk": "SDK"}[impl]
			fmt.Printf("| %s | %s | %d | %s | %s | %s | %s | %s |\n", t.Name(), name, len(d), us(p[0]), us(p[1]), us(p[2]), us(p[3]), us(p[4]))
		}
	}
	return nil
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d.Nanoseconds())/1e3) }
