package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/internal/bench"
)

// followResult is what one follow-one child measured.
type followResult struct {
	Impl       string  `json:"impl"`
	Streams    int     `json:"streams"`
	HeapBase   uint64  `json:"heapBase"`
	HeapHeld   uint64  `json:"heapHeld"`
	StackBase  uint64  `json:"stackBase"`
	StackHeld  uint64  `json:"stackHeld"`
	RSSBase    uint64  `json:"rssBase"`
	RSSHeld    uint64  `json:"rssHeld"`
	GoBase     int     `json:"goroutinesBase"`
	GoHeld     int     `json:"goroutinesHeld"`
	OpenSecs   float64 `json:"openSeconds"`
	Progress   int64   `json:"progress"`
	Completed  int64   `json:"completed"`
	FirstError string  `json:"firstError,omitempty"`
}

func (r followResult) per(held, base uint64) float64 {
	return (float64(held) - float64(base)) / float64(r.Streams)
}

// follow: streams concurrent subscriptions (Follow, or raw a2a-go
// SubscribeToTask) to one FrameServer, each held open after its snapshot
// and k working updates; the memory of the process while they are all
// held, per stream; then the server releases them and every one must end
// completed. One fresh process per measurement, raw and SDK alternately.
func follow(args []string) error {
	fl := flag.NewFlagSet("follow", flag.ExitOnError)
	streams := fl.Int("streams", 10_000, "concurrent streams")
	k := fl.Int("k", 10, "working updates per stream before it is held")
	reps := fl.Int("reps", 1, "repetitions (each: one process per reader)")
	transport := fl.String("transport", "jsonrpc", "jsonrpc or rest")
	scavenge := fl.Bool("scavenge", false, "return freed memory to the OS (debug.FreeOSMemory) before reading RSS: RSS then counts what is live, not the GC's headroom")
	_ = fl.Parse(args)
	url, srv, err := startServer("-k", strconv.Itoa(*k))
	if err != nil {
		return err
	}
	defer srv.stop()
	var rs []followResult
	for rep := range *reps {
		for _, impl := range bench.Order(rep) {
			var r followResult
			if err := runChild(&r, "follow-one", "-impl", impl, "-server", url, "-streams", strconv.Itoa(*streams),
				"-k", strconv.Itoa(*k), "-transport", *transport, "-scavenge="+strconv.FormatBool(*scavenge)); err != nil {
				return err
			}
			if r.FirstError != "" || r.Completed != int64(r.Streams) {
				return fmt.Errorf("%s: %d of %d streams completed; first error: %s", impl, r.Completed, r.Streams, r.FirstError)
			}
			rs = append(rs, r)
		}
	}
	fmt.Printf("# follow: %d concurrent streams over %s, each held after its snapshot and %d working updates; one process per row\n\n", *streams, *transport, *k)
	fmt.Println("| reader | heap in use / stream | goroutine stacks / stream | RSS / stream | goroutines / stream | heap+stacks total | RSS total | time to open all |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	var raw, sdk []followResult
	for _, r := range rs {
		name := map[string]string{"raw": "raw a2a-go", "sdk": "SDK (Follow)"}[r.Impl]
		fmt.Printf("| %s | %.1f KiB | %.1f KiB | %.1f KiB | %.2f | %s MiB | %s MiB | %.1f s |\n", name,
			r.per(r.HeapHeld, r.HeapBase)/1024, r.per(r.StackHeld, r.StackBase)/1024, r.per(r.RSSHeld, r.RSSBase)/1024,
			float64(r.GoHeld-r.GoBase)/float64(r.Streams),
			bench.MiB(r.HeapHeld+r.StackHeld-r.HeapBase-r.StackBase), bench.MiB(r.RSSHeld-min(r.RSSBase, r.RSSHeld)), r.OpenSecs)
		if r.Impl == "raw" {
			raw = append(raw, r)
		} else if r.Impl == "sdk" {
			sdk = append(sdk, r)
		}
	}
	for i := range min(len(raw), len(sdk)) {
		a, b := raw[i], sdk[i]
		fmt.Printf("\nSDK beyond raw a2a-go (rep %d): heap %+.1f KiB/stream, stacks %+.1f KiB/stream, RSS %+.1f KiB/stream, goroutines %+.2f/stream\n", i+1,
			(b.per(b.HeapHeld, b.HeapBase)-a.per(a.HeapHeld, a.HeapBase))/1024,
			(b.per(b.StackHeld, b.StackBase)-a.per(a.StackHeld, a.StackBase))/1024,
			(b.per(b.RSSHeld, b.RSSBase)-a.per(a.RSSHeld, a.RSSBase))/1024,
			float64(b.GoHeld-b.GoBase-(a.GoHeld-a.GoBase))/float64(b.Streams))
	}
	return nil
}

func followOne(args []string) error {
	fl := flag.NewFlagSet("follow-one", flag.ExitOnError)
	impl := fl.String("impl", "sdk", "raw or sdk")
	url := fl.String("server", "", "FrameServer URL")
	streams := fl.Int("streams", 10_000, "concurrent streams")
	k := fl.Int("k", 10, "working updates per stream before it is held (the server's -k)")
	transport := fl.String("transport", "jsonrpc", "jsonrpc or rest")
	scavenge := fl.Bool("scavenge", false, "debug.FreeOSMemory before reading RSS")
	connecting := fl.Int("connecting", 256, "streams opening at once")
	memprofile := fl.String("memprofile", "", "write a heap profile to `file` while the streams are held")
	_ = fl.Parse(args)
	ctx, rd, closeReader, err := oneReader(*url, *transport, *impl)
	if err != nil {
		return err
	}
	defer closeReader()

	r := followResult{Impl: *impl, Streams: *streams}
	var ms runtime.MemStats
	snapshot := func(heap, stack, rss *uint64, g *int) error {
		runtime.GC()
		runtime.GC()
		if *scavenge {
			debug.FreeOSMemory()
		}
		runtime.ReadMemStats(&ms)
		pm, err := bench.ReadProcMemory()
		if err != nil {
			return err
		}
		*heap, *stack, *rss, *g = ms.HeapInuse, ms.StackInuse, pm.RSS, runtime.NumGoroutine()
		return nil
	}
	if err := snapshot(&r.HeapBase, &r.StackBase, &r.RSSBase, &r.GoBase); err != nil {
		return err
	}

	var (
		reached, done sync.WaitGroup
		progress      atomic.Int64
		completed     atomic.Int64
		errOnce       sync.Once
		firstErr      error
	)
	sem := make(chan struct{}, *connecting)
	start := time.Now()
	for i := range *streams {
		reached.Add(1)
		done.Add(1)
		sem <- struct{}{}
		go func() {
			defer done.Done()
			got := false
			release := func() {
				if !got {
					got = true
					<-sem
					reached.Done()
				}
			}
			defer release()
			res, err := rd.Follow(ctx, a2a.TaskID("task-"+strconv.Itoa(i)), func(j int64) {
				progress.Add(1)
				if j == int64(*k) {
					release()
				}
			})
			if err == nil && res.State == a2a.TaskStateCompleted && res.Progress == *k {
				completed.Add(1)
			} else {
				if err == nil {
					err = fmt.Errorf("stream %d: %d updates, state %q", i, res.Progress, res.State)
				}
				errOnce.Do(func() { firstErr = err })
			}
		}()
	}
	reached.Wait()
	r.OpenSecs = time.Since(start).Seconds()
	if err := snapshot(&r.HeapHeld, &r.StackHeld, &r.RSSHeld, &r.GoHeld); err != nil {
		return err
	}
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err != nil {
			return err
		}
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	resp, err := http.Post(*url+"/release", "text/plain", nil)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	done.Wait()
	r.Progress, r.Completed = progress.Load(), completed.Load()
	if firstErr != nil {
		r.FirstError = firstErr.Error()
	} else if r.Completed != int64(*streams) {
		r.FirstError = "not every stream completed"
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}
