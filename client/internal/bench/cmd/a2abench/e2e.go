package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/internal/bench"
)

// gcTime is the CPU time the runtime estimates it spent on garbage
// collection so far (marking, assists, pauses, scavenging excluded).
func gcTime() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * 1e9)
}

// cpuTime is the CPU time (user + system) of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the CPU time (user + system) of process pid so far, from
// /proc/pid/stat (clock ticks, 10 ms on Linux); 0 where there is none.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): state is
	// field 3, utime 14, stime 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * (time.Second / clockTicks)
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// e2e: one stream of n working updates per run, raw a2a-go and the SDK
// alternately (the order flips every repetition), reps times per
// transport. It prints each run, then per transport the median and range
// of events/s, of the CPU per event of this process (the server is
// another), and of the per-repetition ratio sdk/raw.
func e2e(args []string) error {
	fl := flag.NewFlagSet("e2e", flag.ExitOnError)
	n := fl.Int("n", 100_000, "working updates per stream")
	reps := fl.Int("reps", 5, "repetitions (each: one raw and one SDK stream per transport)")
	capsName := fl.String("caps", "default", "merge caps: default, or open (every block applied)")
	transports := fl.String("transports", "jsonrpc,rest", "transports, comma-separated")
	only := fl.String("only", "", "run only this reader (raw, sdk, floor or floor-valid), for a profile of one side")
	ballast := fl.Int("ballast", 0, "MiB of pointer-free live heap to hold, as an application would (it raises the GC's heap goal, not its marking work)")
	cpuprofile := fl.String("cpuprofile", "", "write a CPU profile of the measured runs to `file`")
	_ = fl.Parse(args)
	// The floor (bench.FloorSend) runs beside the readers of bench.Impls,
	// without and with a validating scan of each frame.
	all := append(slices.Clone(bench.Impls), "floor", "floor-valid")
	if *only != "" && !slices.Contains(all, *only) {
		return fmt.Errorf("-only %q: raw, sdk, floor or floor-valid", *only)
	}

	keep := make([]byte, *ballast<<20)
	for i := 0; i < len(keep); i += 4096 {
		keep[i] = 1 // resident, as real data would be
	}
	defer runtime.KeepAlive(keep)

	ctx, srv, targets, done, err := served(*transports)
	if err != nil {
		return err
	}
	defer done()
	var opts []client.Option
	if *capsName == "open" {
		opts = append(opts, client.WithCaps(bench.OpenCaps(*n)))
	}

	readers := make([]map[string]*bench.Reader, len(targets))
	for i, t := range targets {
		readers[i] = map[string]*bench.Reader{}
		for _, impl := range all {
			rd, err := bench.NewReader(ctx, t, impl, nil, opts...)
			if err != nil {
				return err
			}
			defer rd.Close()
			readers[i][impl] = rd
		}
	}
	type run struct {
		rate, cpu, gc, allocs float64 // events/s, µs CPU per event, µs GC CPU per event, allocations per event
		srv, busy             float64 // the server's µs CPU per event; the client's CPU over the wall time
	}
	// one reads a stream of n updates with the reader impl of target i.
	one := func(i int, impl, text string, n int) (run, error) {
		rd := readers[i][impl]
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		c0, g0, s0 := cpuTime(), gcTime(), procCPU(srv.cmd.Process.Pid)
		r, err := rd.Send(ctx, text, nil)
		cpu, gc, sc := cpuTime()-c0, gcTime()-g0, procCPU(srv.cmd.Process.Pid)-s0
		runtime.ReadMemStats(&m1)
		if err != nil {
			return run{}, err
		}
		if r.Progress != n {
			return run{}, fmt.Errorf("%s: %d updates of %d", impl, r.Progress, n)
		}
		ev := float64(r.Events)
		return run{r.PerSecond(), float64(cpu.Nanoseconds()) / 1e3 / ev, float64(gc.Nanoseconds()) / 1e3 / ev,
			float64(m1.Mallocs-m0.Mallocs) / ev, float64(sc.Nanoseconds()) / 1e3 / ev, cpu.Seconds() / r.Elapsed.Seconds()}, nil
	}
	// Warm up: connections, lazily built state, the heap's size.
	warmN := min(*n, 5000)
	warm := agenttest.FrameRequest(warmN, 0)
	for i := range targets {
		for _, impl := range all {
			if _, err := one(i, impl, warm, warmN); err != nil {
				return err
			}
		}
	}

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("# e2e: %d working updates per stream, caps %s, %d reps, ballast %d MiB, GOMAXPROCS %d\n", *n, *capsName, *reps, *ballast, runtime.GOMAXPROCS(0))
	text := agenttest.FrameRequest(*n, 0)
	rate := map[string][]float64{}
	cpu := map[string][]float64{}
	gcs := map[string][]float64{}
	allocs := map[string][]float64{}
	srvCPU := map[string][]float64{}
	busy := map[string][]float64{}
	ratio := map[string][]float64{}
	cpuRatio := map[string][]float64{}
	for rep := range *reps {
		for i, t := range targets {
			k := rep % len(all)
			impls := slices.Concat(all[k:], all[:k])
			if *only != "" {
				impls = []string{*only}
			}
			got := map[string]run{}
			for _, impl := range impls {
				r, err := one(i, impl, text, *n)
				if err != nil {
					return err
				}
				got[impl] = r
				key := t.Name() + "/" + impl
				rate[key] = append(rate[key], r.rate)
				cpu[key] = append(cpu[key], r.cpu)
				gcs[key] = append(gcs[key], r.gc)
				allocs[key] = append(allocs[key], r.allocs)
				srvCPU[key] = append(srvCPU[key], r.srv)
				busy[key] = append(busy[key], r.busy)
				fmt.Printf("rep %d  %-7s %-4s  %8.0f events/s  %6.2f µs CPU/event (GC %5.2f)  %5.1f allocs/event  server %5.2f µs CPU/event  client busy %3.0f%%\n",
					rep+1, t.Name(), impl, r.rate, r.cpu, r.gc, r.allocs, r.srv, 100*r.busy)
			}
			if *only == "" {
				ratio[t.Name()] = append(ratio[t.Name()], got["sdk"].rate/got["raw"].rate)
				cpuRatio[t.Name()] = append(cpuRatio[t.Name()], got["sdk"].cpu/got["raw"].cpu)
			}
		}
	}
	fmt.Println()
	fmt.Println("| transport | reader | events/s | µs CPU/event (GC) | allocs/event | server µs CPU/event | client busy | ratio to raw (per rep) |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, t := range targets {
		k := t.Name()
		for _, impl := range all {
			if len(rate[k+"/"+impl]) == 0 {
				continue
			}
			r := "–"
			switch impl {
			case "sdk":
				r = "**" + spreadOf(ratio[k]).format("%.2f") + "**"
			}
			if len(ratio[k]) == 0 {
				r = "–"
			}
			fmt.Printf("| %s | %s | %s | %s | %s | %.2f | %.0f%% | %s |\n", k, impl,
				spreadOf(rate[k+"/"+impl]).format("%.0f"),
				spreadOf(cpu[k+"/"+impl]).format("%.2f")+fmt.Sprintf(" (%.2f)", spreadOf(gcs[k+"/"+impl]).med),
				spreadOf(allocs[k+"/"+impl]).format("%.1f"),
				spreadOf(srvCPU[k+"/"+impl]).med, 100*spreadOf(busy[k+"/"+impl]).med, r)
		}
	}
	_ = cpuRatio
	fmt.Println("\n(median, then min and max relative to it)")
	fmt.Println("\n| transport | SDK CPU / floor CPU | SDK CPU / validating floor CPU | raw a2a-go CPU / SDK CPU |")
	fmt.Println("|---|---|---|---|")
	for _, t := range targets {
		k := t.Name()
		sdk, floor, valid, raw := cpu[k+"/sdk"], cpu[k+"/floor"], cpu[k+"/floor-valid"], cpu[k+"/raw"]
		if len(sdk) == 0 || len(floor) == 0 || len(valid) == 0 || len(raw) == 0 {
			continue
		}
		fmt.Printf("| %s | %.2f× | %.2f× | %.2f× |\n", k, spreadOf(sdk).med/spreadOf(floor).med,
			spreadOf(sdk).med/spreadOf(valid).med, spreadOf(raw).med/spreadOf(sdk).med)
	}
	return nil
}
