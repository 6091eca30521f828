package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/envelope"
)

// recording renders events as an SSE body in one wire format.
func recording(t *testing.T, v03 bool, events ...a2a.Event) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		var result any = a2a.StreamResponse{Event: ev}
		if v03 {
			old, err := a2av0.FromV1Event(ev)
			if err != nil {
				t.Fatal(err)
			}
			result = old
		}
		frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "result": result})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("event: message\ndata: " + string(frame) + "\n\n")
	}
	return b.String()
}

func turnEvents(t *testing.T, final a2a.TaskState) []a2a.Event {
	t.Helper()
	info := a2a.TaskInfo{TaskID: "task-1", ContextID: "ctx-1"}
	ts := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	var evs []a2a.Event
	evs = append(evs, &a2a.Task{ID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}})
	for i, e := range []envelope.Envelope{
		{V: 1, Kind: envelope.KindToolCall, StreamKey: "c1", Seq: 1, Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "fetch"}},
		{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "c1", Seq: 3, Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "fetch", Chunk: "200 OK\n"}},
		{V: 1, Kind: envelope.KindToolCall, StreamKey: "c1", Seq: 2, Status: envelope.StatusDone, Payload: envelope.ToolCall{Tool: "fetch"}},
	} {
		u, err := envelope.NewStatusUpdate(info, e, "")
		if err != nil {
			t.Fatal(err)
		}
		u.Status.Timestamp = &ts
		u.Status.Message.ID = "m" + string(rune('0'+i))
		evs = append(evs, u)
	}
	plain := a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart("plain progress")))
	plain.Status.Message.ID = "m-plain"
	plain.Status.Timestamp = &ts
	evs = append(evs, plain)
	if final != "" {
		end := a2a.NewStatusUpdateEvent(info, final, a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart("all good")))
		end.Status.Timestamp = &ts
		evs = append(evs, end)
	}
	return evs
}

func TestReplay(t *testing.T) {
	complete := recording(t, false, turnEvents(t, a2a.TaskStateCompleted)...)
	wantLines := "  1 tool_call fetch [c1] running\n" +
		"  3 fetch | 200 OK\n" +
		"  2 tool_call fetch [c1] done (late)\n" +
		"  ~ plain progress\n" +
		"✓ completed: all good\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "capture.sse")
	if err := os.WriteFile(file, []byte(complete), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   string
		inStderr string
	}{
		{name: "v1.0 JSON-RPC from stdin", args: []string{"replay", "-"}, stdin: complete, code: 0, stdout: wantLines},
		{name: "from a file", args: []string{"replay", file}, code: 0, stdout: wantLines},
		{name: "v0.3 JSON-RPC", args: []string{"replay", "-"}, stdin: recording(t, true, turnEvents(t, a2a.TaskStateCompleted)...), code: 0, stdout: wantLines},
		{name: "forced wire format", args: []string{"replay", "--wire", "v0.3-jsonrpc", "-"}, stdin: recording(t, true, turnEvents(t, a2a.TaskStateCompleted)...), code: 0, stdout: wantLines},
		{name: "failed", args: []string{"replay", "-"}, stdin: recording(t, false, turnEvents(t, a2a.TaskStateFailed)...), code: 3,
			stdout: strings.Replace(wantLines, "✓ completed: all good", "✗ failed: all good", 1)},
		{name: "recording ends before the verdict", args: []string{"replay", "-"}, stdin: recording(t, false, turnEvents(t, "")...), code: 1,
			stdout: strings.Replace(wantLines, "✓ completed: all good\n",
				`✗ incomplete: client: turn incomplete (task "task-1", last state TASK_STATE_WORKING, 0 attempts): stream closed before a terminal or interrupted state`+"\n", 1)},
		{name: "truncated last frame is not applied", args: []string{"replay", "-"}, stdin: complete[:len(complete)-40], code: 1,
			inStderr: "", stdout: strings.Replace(wantLines, "✓ completed: all good\n",
				`✗ incomplete: client: turn incomplete (task "task-1", last state TASK_STATE_WORKING, 0 attempts): frame 6: SSE stream ended inside an event (truncated last frame) (`, 1)},
		{name: "broken frame", args: []string{"replay", "-"}, stdin: "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"task not found\"}}\n\n", code: 1,
			stdout: "✗ incomplete: client: turn incomplete (last state " + a2a.TaskStateUnspecified.String() + ", 0 attempts): frame 1: wire: JSON-RPC error -32001: task not found\n"},
		{name: "missing file", args: []string{"replay", filepath.Join(dir, "nope.sse")}, code: 1, inStderr: "no such file or directory"},
		{name: "bad wire flag", args: []string{"replay", "--wire", "v9", "-"}, code: 2, inStderr: `--wire "v9"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLI(t.Context(), testApp(tc.stdin), tc.args...)
			if res.Code != tc.code {
				t.Errorf("exit code = %d, want %d; stderr: %s", res.Code, tc.code, res.Stderr)
			}
			got := res.Stdout
			if strings.HasSuffix(tc.stdout, "(") { // a prefix: the byte count varies with the cut
				if i := strings.LastIndex(got, "("); i >= 0 && strings.HasPrefix(got, tc.stdout[:len(tc.stdout)-1]) {
					got = got[:i+1]
				}
			}
			if diff := cmp.Diff(tc.stdout, got); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if !strings.Contains(res.Stderr, tc.inStderr) {
				t.Errorf("stderr = %q, want it to contain %q", res.Stderr, tc.inStderr)
			}
		})
	}
}

// recordedAt is the status timestamp of every event in the recorded
// captures.
const recordedAt = "2026-11-30T00:00:00.000000000Z"

// TestReplayCaptures replays the recorded captures (testdata/captures) and
// compares the rendering with golden files: text for every capture, ndjson
// and json for the realistic turn and the recorded runtime's mis-routed
// frames (PROTOCOL.md §5). The text of one trajectory must not depend on
// the wire format it was recorded in.
func TestReplayCaptures(t *testing.T) {
	t.Parallel()
	captures, err := filepath.Glob(filepath.Join("..", "..", "testdata", "captures", "v*", "*.sse"))
	if err != nil || len(captures) == 0 {
		t.Fatalf("no captures found (%v)", err)
	}
	captures = append(captures, filepath.Join("..", "..", "testdata", "captures", "seed004", "a2a.sse"))
	byTrajectory := map[string]string{}
	for _, path := range captures {
		dir := filepath.Base(filepath.Dir(path))
		name := strings.TrimSuffix(filepath.Base(path), ".sse")
		formats := []string{"text"}
		if name == "realistic" && dir == "v1.0-jsonrpc" || dir == "seed004" {
			formats = append(formats, "ndjson", "json")
		}
		for _, o := range formats {
			t.Run(dir+"/"+name+"/"+o, func(t *testing.T) {
				res := runCLI(t.Context(), testApp(""), "replay", "-o", o, path)
				ext := map[string]string{"text": "txt", "ndjson": "ndjson", "json": "json"}[o]
				// A block's at is its event's status timestamp — the
				// recordings' is fixed — and for an event without one (an
				// artifact update) the time it was read, which is not part
				// of the golden.
				stdout := atRE.ReplaceAllStringFunc(res.Stdout, func(at string) string {
					if strings.Contains(at, `"`+recordedAt+`"`) {
						return at
					}
					return `"at":"<arrival>"`
				})
				golden(t, "replay-"+dir+"-"+name+"."+ext, fmt.Sprintf("exit %d\n%s", res.Code, stdout))
				if o != "text" || dir == "seed004" {
					return
				}
				got := normalise(res.Stdout) // the recordings number their ids apart
				if first, ok := byTrajectory[name]; !ok {
					byTrajectory[name] = got
				} else if diff := cmp.Diff(first, got); diff != "" {
					t.Errorf("%s renders differently from the first wire format (-first +%s):\n%s", name, dir, diff)
				}
			})
		}
	}
}

// TestLiveViewStopsOnWriteError: when the terminal goes away (a write
// fails), the command ends quietly and the live view's ticker goroutine
// ends with it.
func TestLiveViewStopsOnWriteError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	a := newApp(strings.NewReader(recording(t, false, turnEvents(t, a2a.TaskStateCompleted)...)), &brokenPipe{}, &lockedBuffer{})
	a.isTTY = func(io.Writer) bool { return true }
	res := runCLI(t.Context(), a, "replay", "-")
	if res.Code != exitOK || res.Stderr != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", res.Code, res.Stderr)
	}
}

// --max-blocks bounds a replayed turn as it bounds a live one: the merge
// drops what is over the cap, the result counts it and stderr names the
// flag.
func TestReplayMaxBlocks(t *testing.T) {
	res := runCLI(t.Context(), testApp(recording(t, false, turnEvents(t, a2a.TaskStateCompleted)...)),
		"replay", "--max-blocks", "2", "-o", "ndjson", "-")
	if res.Code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	var last struct {
		Counters struct {
			Applied      int64 `json:"applied"`
			DroppedByCap int64 `json:"droppedByCap"`
		} `json:"counters"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{2, 2}, []int64{last.Counters.Applied, last.Counters.DroppedByCap}); diff != "" {
		t.Errorf("applied, droppedByCap (-want +got):\n%s", diff)
	}
	if want := "cap reached: 2 blocks per turn"; !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", res.Stderr, want)
	}
}
