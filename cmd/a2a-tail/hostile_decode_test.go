package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/flood"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// The decode cost of a legal event must not amplify: an event under the
// 10 MiB bound may cost a small multiple of 10 MiB at peak whatever it
// holds. The hostile peer here sends, on each transport, five status
// updates of 9.3 MiB, each one message of 750 000 tiny text parts — legal
// A2A, every event under every documented bound — then completes the
// task. a2a-tail runs as a child process (runA2ATail: its VmHWM) without
// -race, like TestHostilePeers.

// tinyParts is the number of parts of each hostile message and
// tinyEvents the number of such events.
const (
	tinyParts  = 750_000
	tinyEvents = 5
	// decodeRSSBound: 256 MiB peak, every transport and output mode.
	// Measured 206–236 MiB (JSON-RPC, REST); 313–340 MiB with GOMEMLIMIT=off
	// (a2a-tail's soft memory limit, memlimit.go, is part of the bound),
	// 334–512 before the decoder sized its scratch once and compactly.
	decodeRSSBound = 256
)

// partsStatus is the statusUpdate of one message of n parts {"text":"x"}.
func partsStatus(n int) string {
	parts := strings.Repeat(`{"text":"x"},`, n)
	return `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[` +
		parts[:len(parts)-1] + `]}}}}`
}

// restHostile is a REST (HTTP+JSON) A2A 1.0 peer whose subscription sends
// frames; its card names only its REST interface.
func restHostile(t *testing.T, frames func(send func(string))) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "agent-card.json") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"name":"hostile","description":"x","version":"1","capabilities":{"streaming":true},`+
				`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],`+
				`"supportedInterfaces":[{"url":%q,"protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`, srv.URL)
			return
		}
		if !strings.HasSuffix(r.URL.Path, ":subscribe") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		frames(func(f string) {
			fmt.Fprintf(w, "data: %s\n\n", f)
			w.(http.Flusher).Flush()
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// tinyPartFrames sends the hostile turn: a snapshot, the events, the end.
func tinyPartFrames(send func(string)) {
	send(taskJSON("t1", "TASK_STATE_WORKING", ""))
	big := partsStatus(tinyParts)
	for range tinyEvents {
		send(big)
	}
	send(statusJSON("t1", "TASK_STATE_COMPLETED", "f", "done"))
}

func TestHostileDecode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("hostile peers serve 47 MiB of tiny parts per run")
	}
	if testdep.Race {
		t.Skip("a memory bound of hundreds of MiB: run without -race (.ci/run does)")
	}
	if os.Getenv(floodEnv) == "" {
		// Its child peaks at ~210 MiB alone but went to 382 MiB once when
		// it ran beside the whole suite on a loaded 2-core machine (the
		// GC starved): a peak-RSS bound is measured on a quiet machine.
		t.Skipf("a peak-RSS bound, measured alone: set %s=1 (.ci/run does)", floodEnv)
	}
	if n := len(partsStatus(tinyParts)); n > 10<<20 || n < 9<<20 {
		t.Fatalf("a hostile event of %d bytes; want a legal one just under 10 MiB", n)
	}
	type peer struct {
		name  string
		start func(t *testing.T) []string // the command line
		// code and output: what a2a-tail ends with (default: completed).
		code   int
		output string
	}
	peers := []peer{
		{name: "jsonrpc", start: func(t *testing.T) []string {
			h := newHostile(t)
			h.methods["SubscribeToTask"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				send := sse(w, req.ID)
				tinyPartFrames(send)
			}
			published(t)
			return []string{"--transport", "jsonrpc", h.srv.URL, "t1"}
		}},
		{name: "rest", start: func(t *testing.T) []string {
			srv := restHostile(t, tinyPartFrames)
			return []string{"--transport", "rest", srv.URL, "t1"}
		}},
		// On gRPC a part of two bytes on the wire decodes to two objects
		// (protobuf's, then a2a-go's): the event is counted on the wire
		// and refused before either is built (internal/transport's
		// countingCodec, 256 Ki elements), so the turn is incomplete.
		// Measured before the bound: 279 MiB.
		{name: "grpc", code: exitRuntime, output: "protobuf elements", start: func(t *testing.T) []string {
			info := a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}
			parts := make(a2a.ContentParts, tinyParts)
			for i := range parts {
				parts[i] = a2a.NewTextPart("x")
			}
			// Stopped by serveFlood's cleanup, the server leaves its
			// handler to finish the event it is encoding: wait for it
			// (this cleanup, registered first, runs last).
			var running sync.WaitGroup
			t.Cleanup(running.Wait)
			return serveFlood(t, &flood.Peer{Events: func(yield func(a2a.Event, error) bool) {
				running.Add(1)
				defer running.Done()
				if !yield(&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil) {
					return
				}
				for i := range tinyEvents {
					if !yield(a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, &a2a.Message{ID: fmt.Sprint("m", i), Role: a2a.MessageRoleAgent, Parts: parts}), nil) {
						return
					}
				}
				yield(a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted, &a2a.Message{ID: "f", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("done")}}), nil)
			}}, "grpc")
		}},
	}
	for _, p := range peers {
		for _, out := range []string{"text", "ndjson", "json"} {
			t.Run(p.name+"/"+out, func(t *testing.T) {
				t.Parallel()
				args := append(p.start(t), "-o", out)
				r := runA2ATail(t, nil, args...)
				t.Logf("peak RSS %.0f MiB, %v, exit %d", r.rssMiB, r.took.Round(time.Millisecond), r.code)
				if r.code != p.code {
					t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, p.code, clipForLog(r.stdout), clipForLog(r.stderr))
				}
				if !strings.Contains(r.stdout+r.stderr, p.output) {
					t.Errorf("the output lacks %q:\nstdout: %s\nstderr: %s", p.output, clipForLog(r.stdout), clipForLog(r.stderr))
				}
				if r.rssMiB > decodeRSSBound {
					t.Errorf("peak RSS %.0f MiB, want at most %d MiB", r.rssMiB, decodeRSSBound)
				}
			})
		}
	}
}
