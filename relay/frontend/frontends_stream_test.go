package frontend

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay/internal/sse"
	"github.com/tfrs/a2a-progress/schema"
)

// opsOf is what a relay forwards for readings delivered in order rs: the op
// of each applied block, the seal, the result op for out.
func opsOf(rs []envelope.Reading, out *frontResult) []schema.Op {
	turn := merge.NewTurn(mapTask, mapTurn, merge.Caps{})
	var ops []schema.Op
	for _, r := range rs {
		if ch := turn.Apply(r); ch.Effect == merge.Applied {
			ops = append(ops, ch.Op)
		}
	}
	ops = append(ops, turn.Seal(), turn.ResultOp(*out))
	return ops
}

// streamServer serves the ops through frontStream as live ops — the path
// where an op that only appends an item skips the render — with AG-UI at
// POST /run and the AI SDK at POST /api/chat. dup sends every op twice.
func streamServer(t *testing.T, ops []schema.Op, dup bool) *httptest.Server {
	serve := func(mk func(r *http.Request) *frontStream) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			s := mk(r)
			w.Header().Set("Content-Type", "text/event-stream")
			_ = s.Begin(w.Header(), nil)
			ew := newEventWriter(w)
			for _, op := range ops {
				for range 1 + btoi(dup) {
					if err := s.Op(ew, sse.Event{Op: op}); errors.Is(err, errFrontDone) {
						_ = ew.Flush()
						return // as the relay ends the response
					} else if err != nil {
						t.Errorf("Op: %v", err)
						return
					}
				}
				_ = ew.Flush()
			}
			_ = s.End(ew, true)
			_ = ew.Flush()
		}
	}
	mux := http.NewServeMux()
	mux.Handle("POST /run", serve(func(r *http.Request) *frontStream {
		var in aguiInput
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &in)
		return newAGUIStream(in.ThreadID, in.RunID, in.Messages, false)
	}))
	mux.Handle("POST /api/chat", serve(func(*http.Request) *frontStream { return newAISDKStream(false) }))
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFrontStreamLiveOps: the relay-side adapter, fed a turn's ops live in
// every delivery order (twice each in the duplicated runs), gives both
// client libraries each block once, in view order.
func TestFrontStreamLiveOps(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	for oname, rs := range orders() {
		for _, dup := range []bool{false, true} {
			out := outcomes()["completed"]
			name := oname
			if dup {
				name += "/dup"
			}
			t.Run(name, func(t *testing.T) {
				ops := opsOf(rs, out)
				s := streamServer(t, ops, dup)
				want := wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)
				checkBothFronts(t, s.URL, want, out)
			})
		}
	}
}

// TestFrontStreamEndsAtIncomplete: an incomplete result ends the front end's
// run (RUN_ERROR / error) and its response, although the relay goes on with
// the turn (an incomplete result settles nothing): the client libraries'
// runs end instead of waiting on an open body.
func TestFrontStreamEndsAtIncomplete(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	rs := realisticReadings()
	half := len(rs) / 2
	turn := merge.NewTurn(mapTask, mapTurn, merge.Caps{})
	var ops []schema.Op
	for i, r := range rs {
		if i == half {
			ops = append(ops, turn.ResultOp(schema.Result{Verdict: schema.VerdictIncomplete, State: "TASK_STATE_WORKING", Error: "stream cut"}))
		}
		if ch := turn.Apply(r); ch.Effect == merge.Applied {
			ops = append(ops, ch.Op)
		}
	}
	out := &frontResult{Verdict: schema.VerdictIncomplete, Error: "stream cut"}
	want := wantShown(play(rs[:half], nil, func(*schema.View, *frontResult) {}), out)
	s := streamServer(t, ops, false)
	checkBothFronts(t, s.URL, want, out)
}

// checkBothFronts runs the AG-UI client (POST /run) and the AI SDK chat
// (POST /api/chat) against the stream server at base and checks that each
// shows want and ends with out.
func checkBothFronts(t *testing.T, base string, want []shown, out *frontResult) {
	t.Helper()
	var ag aguiResult
	runHarness(t, "agui.mjs", map[string]any{"url": base + "/run", "threadId": "thread-1",
		"messages": []any{map[string]any{"id": "u1", "role": "user", "content": "order 42?"}}}, &ag)
	checkAGUI(t, ag, &ag.Run, want, out)
	var ai aisdkResult
	runHarness(t, "aisdk.mjs", map[string]any{"api": base + "/api/chat", "id": "chat-1", "text": "order 42?", "mode": "chat"}, &ai)
	checkAISDK(t, ai, want, out, true)
}
