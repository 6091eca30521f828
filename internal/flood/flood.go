// Package flood is an A2A peer for memory tests: it plays a scripted run of
// events on SubscribeToTask — FillEveryCap, a turn that fills every cap of
// one turn at once — over JSON-RPC, HTTP+JSON (Handler) or any a2a-go server
// handler (Peer is an a2asrv.RequestHandler for the methods a follow calls).
// The tests of the a2a-tail command and of the relay measure the peak RSS of
// a process that follows it.
package flood

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Peer is an A2A peer whose SubscribeToTask plays Events and whose GetTask
// answers a small task t1 in state working. Its other methods are nil: a
// follow never calls them.
type Peer struct {
	a2asrv.RequestHandler // nil: the methods a follow never calls
	// Events plays one subscription's events.
	Events func(yield func(a2a.Event, error) bool)

	mu   sync.Mutex
	subs int
}

// SubscribeToTask plays p.Events until ctx ends.
func (p *Peer) SubscribeToTask(ctx context.Context, _ *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	p.mu.Lock()
	p.subs++
	p.mu.Unlock()
	return func(yield func(a2a.Event, error) bool) {
		p.Events(func(ev a2a.Event, err error) bool { return ctx.Err() == nil && yield(ev, err) })
	}
}

// GetTask answers task t1, working.
func (p *Peer) GetTask(context.Context, *a2a.GetTaskRequest) (*a2a.Task, error) {
	return &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil
}

// Subscriptions returns the number of SubscribeToTask calls so far.
func (p *Peer) Subscriptions() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.subs
}

// Handler serves p over transport "jsonrpc" or "rest" (A2A 1.0) at any
// path. The frames are written here, each distinct event encoded once (the
// 1 024 appends of one MiB are one event sent 1 022 times), so that the peer
// costs the loaded test machine little. A stream ends with a frame that is
// not JSON, as a peer that cuts its replay with garbage does.
func Handler(p *Peer, transport string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var prefix, suffix []byte
		subscribe := false
		if transport == "rest" {
			subscribe = strings.HasSuffix(r.URL.Path, ":subscribe")
			suffix = []byte("\n\n")
		} else {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			subscribe = req.Method == "SubscribeToTask"
			prefix = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":`, req.ID)
			suffix = []byte("}\n\n")
		}
		if !subscribe { // GetTask
			task, _ := p.GetTask(r.Context(), nil)
			b, _ := json.Marshal(task)
			w.Header().Set("Content-Type", "application/json")
			if transport != "rest" {
				b = append(append(prefix, b...), '}')
			}
			_, _ = w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		var (
			last     a2a.Event
			rendered []byte
		)
		for ev, err := range p.SubscribeToTask(r.Context(), nil) {
			if err != nil {
				break
			}
			if ev != last {
				b, err := json.Marshal(a2a.StreamResponse{Event: ev})
				if err != nil {
					panic(err)
				}
				last, rendered = ev, b
			}
			_, _ = w.Write([]byte("data: "))
			_, _ = w.Write(prefix)
			_, _ = w.Write(rendered)
			if _, err := w.Write(suffix); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"statusUpdate\":\n\n")
	})
}

// working is a working status update of t1 carrying envelope seq in its
// wire form (PROTOCOL.md: the JSON text under metadata "tfrs", written here
// so that internal/ needs no public package) beside its text fallback.
func working(seq int64, wire, text string) *a2a.TaskStatusUpdateEvent {
	part := a2a.NewTextPart(text)
	part.Metadata = map[string]any{"tfrs": fmt.Sprintf(`{"v":1,"seq":%d,%s}`, seq, wire)}
	return &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking,
		Message: &a2a.Message{ID: fmt.Sprintf("m%d", seq), Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{part}}}}
}

// Counts of FillEveryCap's turn, for the checks of its result.
const (
	ToolCalls  = 300  // tool calls, each of six 60 KiB chunks of output
	TextBlocks = 8000 // text blocks of 8 KiB
	Artifacts  = 1024 // artifacts of 64 parts of 1 KiB
)

// FillEveryCap plays a turn of task t1 that fills every cap of one turn at
// once: 300 tool calls of 360 KiB output each (six chunks of 60 KiB), 8 000
// text blocks of 8 KiB, 1 024 artifacts of 64 parts of 1 KiB (65 536 parts,
// 64 MiB), then one artifact built from 1 024 appends of 1 MiB (1 GiB), then
// completes. About 1.3 GiB in all; every event is built once and sent as
// often as the script says, so the peer costs little memory.
func FillEveryCap(yield func(a2a.Event, error) bool) {
	if !yield(&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted},
		History: []*a2a.Message{{ID: "u1", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("go")}}}}, nil) {
		return
	}
	seq := int64(0)
	// next sends the envelope whose fields after v and seq are wire.
	next := func(wire, text string) bool {
		seq++
		return yield(working(seq, wire, text), nil)
	}
	chunk := strings.Repeat("o", 60<<10-1)
	for i := range ToolCalls {
		call := fmt.Sprintf(`"kind":"tool_call","streamKey":"call-%d","status":"%%s","payload":{"tool":"sh","tool_call_id":"call-%[1]d"}`, i)
		out := fmt.Sprintf(`"kind":"tool_output_append","streamKey":"call-%d","status":"running","payload":{"tool":"sh","chunk":"%s\n","tool_call_id":"call-%[1]d"}`, i, chunk)
		if !next(fmt.Sprintf(call, "running"), "calling tool sh") {
			return
		}
		for range 6 {
			if !next(out, chunk+"\n") {
				return
			}
		}
		if !next(fmt.Sprintf(call, "done"), "tool sh done") {
			return
		}
	}
	text := strings.Repeat("t", 8<<10)
	for range TextBlocks {
		if !next(`"kind":"text","status":"running","payload":{"text":"`+text+`"}`, text) {
			return
		}
	}
	kib := a2a.NewTextPart(strings.Repeat("a", 1<<10))
	parts := make(a2a.ContentParts, 64)
	for i := range parts {
		parts[i] = kib
	}
	for i := range Artifacts {
		ev := &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1",
			Artifact: &a2a.Artifact{ID: a2a.ArtifactID(fmt.Sprintf("art-%d", i)), Name: "part", Parts: parts}}
		if !yield(ev, nil) {
			return
		}
	}
	mib := a2a.ContentParts{a2a.NewTextPart(strings.Repeat("b", 1<<20))}
	appendMiB := &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1", Append: true, Artifact: &a2a.Artifact{ID: "big", Parts: mib}}
	for i := range 1024 {
		ev := appendMiB // one event, sent 1 022 times
		if i == 0 || i == 1023 {
			ev = &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1", Append: i > 0, LastChunk: i == 1023,
				Artifact: &a2a.Artifact{ID: "big", Parts: mib}}
		}
		if !yield(ev, nil) {
			return
		}
	}
	yield(a2a.NewStatusUpdateEvent(a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}, a2a.TaskStateCompleted,
		&a2a.Message{ID: "final", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("done")}}), nil)
}
