package frontend

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
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
	var cases []frontCase
	for oname, rs := range orders() {
		for _, dup := range []bool{false, true} {
			out := outcomes()["completed"]
			name := oname
			if dup {
				name += "/dup"
			}
			s := streamServer(t, opsOf(rs, out), dup)
			want := wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)
			cases = append(cases, frontCase{name: name, base: s.URL, want: want, out: out})
		}
	}
	checkFronts(t, cases)
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

// frontCase is one stream server for checkFronts: what each client
// library must show (want) and end with (out).
type frontCase struct {
	name string
	base string
	want []shown
	out  *frontResult
}

// checkBothFronts runs the AG-UI client (POST /run) and the AI SDK chat
// (POST /api/chat) against the stream server at base and checks that each
// shows want and ends with out.
func checkBothFronts(t *testing.T, base string, want []shown, out *frontResult) {
	t.Helper()
	checkFronts(t, []frontCase{{base: base, want: want, out: out}})
}

// checkFronts is checkBothFronts for several stream servers: one node
// process per client library runs them all in turn, then each case is
// checked in subtests of its own, <name>/ag-ui and <name>/ai-sdk.
func checkFronts(t *testing.T, cases []frontCase) {
	t.Helper()
	agui := make([]harnessCase[aguiResult], len(cases))
	aisdk := make([]harnessCase[aisdkResult], len(cases))
	for i, c := range cases {
		agui[i] = harnessCase[aguiResult]{Name: path.Join(c.name, "ag-ui"),
			Config: map[string]any{"url": c.base + "/run", "threadId": "thread-1",
				"messages": []any{map[string]any{"id": "u1", "role": "user", "content": "order 42?"}}},
			Check: func(t *testing.T, ag *aguiResult) { checkAGUI(t, *ag, &ag.Run, c.want, c.out) }}
		aisdk[i] = harnessCase[aisdkResult]{Name: path.Join(c.name, "ai-sdk"),
			Config: map[string]any{"api": c.base + "/api/chat", "id": "chat-1", "text": "order 42?", "mode": "chat"},
			Check:  func(t *testing.T, ai *aisdkResult) { checkAISDK(t, *ai, c.want, c.out, true) }}
	}
	runCases(t, "agui.mjs", agui)
	runCases(t, "aisdk.mjs", aisdk)
}
