package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Every string of a peer that reaches stdout or stderr is cut at a
// documented size, with its byte count, in every output mode: a 9 MiB
// failure reason, a 4 MiB question, a 1 MiB artifact name and a 1 MiB
// task id in a reply. Each case runs a2a-tail as a child process against a
// JSON-RPC peer and bounds what it wrote.
func TestPeerTextIsCut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the peer sends tens of MiB")
	}
	big := func(n int) string { return strings.Repeat("é", n/2) } // 2 bytes a rune: the cut lands on a boundary
	// The events of a case are encoded once, for its three output modes
	// (a 9 MiB frame takes seconds to encode under -race).
	cases := []struct {
		name   string
		events func() []string
		code   int
	}{
		{"a failure reason of 9 MiB", sync.OnceValue(func() []string {
			return []string{taskJSON("t1", "TASK_STATE_WORKING", ""), statusJSON("t1", "TASK_STATE_FAILED", "f", big(9<<20))}
		}), exitFailed},
		{"a question of 4 MiB", sync.OnceValue(func() []string {
			return []string{taskJSON("t1", "TASK_STATE_WORKING", ""), statusJSON("t1", "TASK_STATE_INPUT_REQUIRED", "q", big(4<<20))}
		}), exitInterrupted},
		{"an artifact name of 1 MiB", sync.OnceValue(func() []string {
			return []string{taskJSON("t1", "TASK_STATE_WORKING", ""),
				fmt.Sprintf(`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","name":%s,"parts":[{"text":"x"}]}}}`,
					jsonString(big(1<<20))),
				statusJSON("t1", "TASK_STATE_COMPLETED", "f", "done")}
		}), exitOK},
	}
	for _, tc := range cases {
		for _, mode := range []string{"text", "ndjson", "json"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				h := newHostile(t)
				h.methods["SubscribeToTask"] = func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
					send := sse(w, req.ID)
					for _, ev := range tc.events() {
						send(ev)
					}
				}
				published(t)
				r := runA2ATail(t, nil, "--transport", "jsonrpc", "-o", mode, h.srv.URL, "t1")
				if r.code != tc.code {
					t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, clipForLog(r.stderr))
				}
				// The cut text is at most 8 KiB (the result op's bound),
				// escaped at most sixfold in JSON.
				const bound = 64 << 10
				if n := len(r.stdout) + len(r.stderr); n > bound {
					t.Errorf("a2a-tail wrote %d bytes, want at most %d:\nstdout: %s", n, bound, clipForLog(r.stdout))
				}
				if !strings.Contains(r.stdout, " bytes in all, ") {
					t.Errorf("the output does not say what was cut:\nstdout: %s", clipForLog(r.stdout))
				}
			})
		}
	}
}
