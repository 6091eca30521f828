package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/internal/bench"
)

// hostileResult is what one hostile-one child measured.
type hostileResult struct {
	Impl   string  `json:"impl"`
	MiB    int     `json:"mib"`
	PeakMB float64 `json:"peakRSSMiB"` // VmHWM of the child
	Secs   float64 `json:"seconds"`
	Err    string  `json:"error"`
}

// hostile: a peer that answers every streaming call with one SSE event
// split over 1 MiB data: lines, -mib MiB in all (the text of a status
// update's part), and refuses GetTask. Each reader runs in a fresh child
// process against it, once per size; the table has each child's peak RSS
// and how its stream ended. raw a2a-go and the SDK on a2a-go's reader join
// the lines without a bound, so they run only up to -raw-max MiB.
func hostile(args []string) error {
	fl := flag.NewFlagSet("hostile", flag.ExitOnError)
	sizes := fl.String("mib", "100,1024", "event sizes in MiB, comma-separated")
	rawMax := fl.Int("raw-max", 100, "largest size given to raw and sdk (they hold the whole event)")
	_ = fl.Parse(args)
	url, stop, err := startHostile()
	if err != nil {
		return err
	}
	defer stop()
	fmt.Println("| reader | event | peak RSS | seconds | how the stream ended |")
	fmt.Println("|---|---|---|---|---|")
	for _, s := range strings.Split(*sizes, ",") {
		mib, err := strconv.Atoi(s)
		if err != nil {
			return err
		}
		for _, impl := range bench.Impls {
			if impl != "sdk" && mib > *rawMax {
				fmt.Printf("| %s | %d MiB | not run (holds the whole event) | | |\n", impl, mib)
				continue
			}
			var r hostileResult
			if err := runChild(&r, "hostile-one", "-impl", impl, "-server", url, "-mib", s); err != nil {
				return err
			}
			fmt.Printf("| %s | %d MiB | %.0f MiB | %.1f | %s |\n", r.Impl, r.MiB, r.PeakMB, r.Secs, r.Err)
		}
	}
	return nil
}

func hostileOne(args []string) error {
	fl := flag.NewFlagSet("hostile-one", flag.ExitOnError)
	impl := fl.String("impl", "sdk", "raw or sdk")
	url := fl.String("server", "", "hostile server URL")
	mib := fl.Int("mib", 100, "event size in MiB")
	_ = fl.Parse(args)
	ctx, cancel := background()
	defer cancel()
	t := bench.Target{URL: *url, Transport: a2a.TransportProtocolJSONRPC}
	rd, err := bench.NewReader(ctx, t, *impl, nil, client.WithRetry(0, 0, 0))
	if err != nil {
		return err
	}
	defer rd.Close()
	start := time.Now()
	_, serr := rd.Send(ctx, strconv.Itoa(*mib), nil)
	r := hostileResult{Impl: *impl, MiB: *mib, Secs: time.Since(start).Seconds()}
	if serr != nil {
		r.Err = serr.Error()
	} else {
		r.Err = "no error"
	}
	pm, err := bench.ReadProcMemory()
	if err != nil {
		return err
	}
	r.PeakMB = float64(pm.HWM) / (1 << 20)
	return json.NewEncoder(os.Stdout).Encode(r)
}

// startHostile serves the hostile peer in this process (its memory is not
// measured: the readers run in children).
func startHostile() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	line := "data: " + strings.Repeat("x", 1<<20) + "\n"
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Message struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"message"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.Method != "SendStreamingMessage" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"task not found"}}`, req.ID)
			return
		}
		mib := 1
		if len(req.Params.Message.Parts) > 0 {
			mib, _ = strconv.Atoi(req.Params.Message.Parts[0].Text)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"`+"\n", req.ID)
		for range mib {
			if _, err := io.WriteString(w, line); err != nil {
				return
			}
		}
		io.WriteString(w, "data: \"}]}}}}}\n\n")
	})}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Shutdown(context.Background()) }, nil
}
