package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/internal/bench"
)

// memResult is what one mem-one child measured.
type memResult struct {
	Impl        string  `json:"impl"`
	Events      int     `json:"events"`
	Applied     int     `json:"applied"`
	Rate        float64 `json:"eventsPerSecond"`
	HeapBase    uint64  `json:"heapBase"`  // HeapInuse before the stream, after a GC
	HeapPeak    uint64  `json:"heapPeak"`  // highest HeapInuse sampled during the stream
	HeapAfter   uint64  `json:"heapAfter"` // HeapInuse after the stream, after a GC
	RSSBase     uint64  `json:"rssBase"`   // VmRSS before the stream
	HWM         uint64  `json:"hwm"`       // VmHWM at the end: peak RSS of the process
	AllocPerEv  float64 `json:"allocPerEvent"`
	NumGC       uint32  `json:"numGC"`
	Samples     int     `json:"samples"`
	SampleEvery int     `json:"sampleEvery"`
}

// mem: one stream of n working updates (default caps), in a fresh process
// per measurement, raw and SDK alternately; the heap is sampled while the
// stream runs, the peak RSS read at its end.
func mem(args []string) error {
	fl := flag.NewFlagSet("mem", flag.ExitOnError)
	n := fl.Int("n", 1_000_000, "working updates in the stream")
	reps := fl.Int("reps", 1, "repetitions (each: one raw and one SDK process)")
	transport := fl.String("transport", "jsonrpc", "jsonrpc or rest")
	_ = fl.Parse(args)
	url, srv, err := startServer()
	if err != nil {
		return err
	}
	defer srv.stop()
	var rs []memResult
	for rep := range *reps {
		for _, impl := range bench.Order(rep) {
			var r memResult
			if err := runChild(&r, "mem-one", "-impl", impl, "-server", url, "-n", strconv.Itoa(*n), "-transport", *transport); err != nil {
				return err
			}
			rs = append(rs, r)
		}
	}
	fmt.Printf("# mem: one stream of %d working updates over %s, default merge caps; one process per row, GOGC=%s\n\n", *n, *transport, gcPercent())
	fmt.Println("| reader | events/s | heap before | peak heap in use (sampled) | heap after (GC) | peak RSS (VmHWM) | RSS before | allocated/event | GCs |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		name := map[string]string{"raw": "raw a2a-go", "sdk": "SDK"}[r.Impl]
		fmt.Printf("| %s | %.0f | %s MiB | %s MiB | %s MiB | %s MiB | %s MiB | %.0f B | %d |\n", name, r.Rate,
			bench.MiB(r.HeapBase), bench.MiB(r.HeapPeak), bench.MiB(r.HeapAfter), bench.MiB(r.HWM), bench.MiB(r.RSSBase), r.AllocPerEv, r.NumGC)
	}
	return nil
}

func memOne(args []string) error {
	fl := flag.NewFlagSet("mem-one", flag.ExitOnError)
	impl := fl.String("impl", "sdk", "raw or sdk")
	url := fl.String("server", "", "FrameServer URL")
	n := fl.Int("n", 1_000_000, "working updates")
	transport := fl.String("transport", "jsonrpc", "jsonrpc or rest")
	every := fl.Int("every", 20_000, "sample the heap every this many updates")
	_ = fl.Parse(args)
	ctx, rd, closeReader, err := oneReader(*url, *transport, *impl)
	if err != nil {
		return err
	}
	defer closeReader()
	text := agenttest.FrameRequest(*n, 0)
	var hp bench.HeapPeak
	samples := 0
	on := func(i int64) {
		if i%int64(*every) == 0 {
			hp.Sample()
			samples++
		}
	}
	r := memResult{Impl: *impl, SampleEvery: *every}
	var base, ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	pm, err := bench.ReadProcMemory()
	if err != nil {
		return err
	}
	r.HeapBase, r.RSSBase = base.HeapInuse, pm.RSS
	hp.Peak = base.HeapInuse
	res, err := rd.Send(ctx, text, on)
	if err != nil {
		return err
	}
	runtime.ReadMemStats(&ms)
	pm, err = bench.ReadProcMemory()
	if err != nil {
		return err
	}
	r.Events, r.Applied, r.Rate = res.Events, res.Applied, res.PerSecond()
	r.HeapPeak, r.HWM, r.Samples = hp.Peak, pm.HWM, samples
	r.AllocPerEv = float64(ms.TotalAlloc-base.TotalAlloc) / float64(res.Events)
	r.NumGC = ms.NumGC - base.NumGC
	runtime.GC()
	runtime.ReadMemStats(&ms)
	r.HeapAfter = ms.HeapInuse
	return json.NewEncoder(os.Stdout).Encode(r)
}

// gcPercent is the GC target the rows' processes run with, as the runtime
// has it (GOGC, inherited by the children; "off" when disabled), read from
// runtime/metrics rather than from the environment.
func gcPercent() string {
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return "unknown"
	}
	return strconv.FormatUint(sample[0].Value.Uint64(), 10)
}
