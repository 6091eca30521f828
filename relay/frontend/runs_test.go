package frontend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Ended runs are kept for Keep and give way — oldest first — when Max runs
// are kept and a new one starts; running runs never do: past Max of them a
// new run is refused. A key's running run is refused a second start, and
// Replace aborts it.
func TestRunsBounded(t *testing.T) {
	rs := NewRuns(context.Background(), NewChatStream, RunLimits{Max: 4, Keep: time.Minute})
	now := time.Unix(1_700_000_000, 0)
	rs.now = func() time.Time { return now }
	runs := map[string]*Run[*ChatStream]{}
	for i := range 4 {
		key := fmt.Sprint("chat-", i)
		r, err := rs.Start(key)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		runs[key] = r
	}
	if _, err := rs.Start("one more"); !errors.Is(err, ErrTooManyRuns) {
		t.Fatalf("a run past Max running runs: %v, want ErrTooManyRuns", err)
	}
	if _, err := rs.Start("chat-0"); !errors.Is(err, ErrRunExists) {
		t.Fatalf("a second start of a running key: %v, want ErrRunExists", err)
	}
	runs["chat-3"].End()
	now = now.Add(time.Second)
	runs["chat-1"].End()
	if runs["chat-1"].Context().Err() == nil || runs["chat-1"].Aborted() {
		t.Error("an ended run's context is not cancelled (or says aborted)")
	}
	if _, err := rs.Start("one more"); err != nil {
		t.Fatalf("a new run was refused although ended runs could give way: %v", err)
	}
	if got := []bool{rs.Get("chat-3") != nil, rs.Get("chat-1") != nil}; !cmp.Equal([]bool{false, true}, got) {
		t.Errorf("kept chat-3, chat-1 = %v, want the older ended run gone first", got)
	}
	now = now.Add(time.Minute + time.Second)
	if rs.Get("chat-1") != nil {
		t.Error("an ended run is kept past Keep")
	}
	old := runs["chat-0"]
	if _, err := rs.Replace("chat-0"); err != nil {
		t.Fatal(err)
	}
	if !old.Aborted() || !errors.Is(context.Cause(old.Context()), ErrRunAborted) {
		t.Errorf("the replaced run: cause %v, want ErrRunAborted", context.Cause(old.Context()))
	}
	if !rs.Abort("chat-2") || !runs["chat-2"].Aborted() {
		t.Error("Abort did not abort a running run")
	}
	if rs.Abort("chat-1") || rs.Abort("nothing") {
		t.Error("Abort of a run that does not run reported one")
	}
}

// sseEvent is one event a reader got: its id (cursor) and its data.
type sseEvent struct {
	ID   string
	Data string
}

func readSSE(t *testing.T, body string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, block := range strings.Split(body, "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				ev.ID = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				ev.Data = v
			}
		}
		if ev.Data != "" {
			out = append(out, ev)
		}
	}
	return out
}

func serveLog(t *testing.T, l *AGUILog, cursor string) (int, []sseEvent) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/events", nil)
	if cursor != "" {
		req.Header.Set("Last-Event-ID", cursor)
	}
	rec := httptest.NewRecorder()
	l.Serve(rec, req)
	return rec.Code, readSSE(t, rec.Body.String())
}

// aguiLogRun writes a run with a sub-agent inside a sub-agent into a log:
// the events of an orchestrator (AGUIRun) as written.
func aguiLogRun(t *testing.T) (*AGUILog, []string) {
	t.Helper()
	l := NewAGUILog()
	evs := []map[string]any{
		RunStarted("th", "run"),
		TextMessageStart("m1"), TextMessageContent("m1", "asking"), TextMessageEnd("m1"),
		ToolCallStart("c1", "ask_colleague", "m1"), ToolCallArgs("c1", "{}"), ToolCallEnd("c1"),
		{"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "a", "parentToolCallId": "c1"},
		{"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "ask_colleague", "subagentRunId": "s1"},
		{"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": "{}", "subagentRunId": "s1"},
		{"type": "TOOL_CALL_END", "toolCallId": "c2", "subagentRunId": "s1"},
		{"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "b", "parentToolCallId": "c2", "parentSubagentRunId": "s1"},
		{"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant", "subagentRunId": "s2"},
		{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "inner", "subagentRunId": "s2"},
		{"type": "TEXT_MESSAGE_END", "messageId": "m2", "subagentRunId": "s2"},
		{"type": "SUBAGENT_FINISHED", "subagentRunId": "s2", "outcome": map[string]any{"type": "success"}},
		{"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "outcome": map[string]any{"type": "success"}},
		ToolCallResult("r1", "c1", "done"),
		RunFinished("th", "run", OutcomeSuccess()),
	}
	var data []string
	for _, ev := range evs {
		if err := l.Write(ev); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ev)
		data = append(data, string(b))
	}
	l.Close()
	return l, data
}

// A reader cut after any event resumes with its cursor: RUN_STARTED, the
// a2a.resume notice, what was open at the cursor (without ids), then
// exactly the events after it — together with what it had, the whole run
// once.
func TestAGUILogResume(t *testing.T) {
	l, data := aguiLogRun(t)
	code, whole := serveLog(t, l, "")
	var got []string
	for _, ev := range whole {
		got = append(got, ev.Data)
	}
	if diff := cmp.Diff(data, got); diff != "" || code != http.StatusOK {
		t.Fatalf("the whole run (status %d; -want +got):\n%s", code, diff)
	}
	// What is open after event n (1-based), by the events' indexes.
	open := map[int][]int{
		1: {0}, 2: {0, 1}, 3: {0, 1}, 4: {0}, 5: {0, 4}, 6: {0, 4}, 7: {0},
		8: {0, 7}, 9: {0, 7, 8}, 10: {0, 7, 8}, 11: {0, 7},
		12: {0, 7, 11}, 13: {0, 7, 11, 12}, 14: {0, 7, 11, 12}, 15: {0, 7, 11}, 16: {0, 7}, 17: {0}, 18: {0},
	}
	for n := 1; n < len(whole); n++ {
		code, resumed := serveLog(t, l, whole[n-1].ID)
		if code != http.StatusOK || len(resumed) < 2 {
			t.Fatalf("cursor %d: status %d, %d events", n, code, len(resumed))
		}
		var prelude, rest []string
		for i, ev := range resumed {
			if ev.ID == "" {
				if len(rest) > 0 {
					t.Errorf("cursor %d: an event without id after the prelude: %s", n, ev.Data)
				}
				if i != 1 {
					prelude = append(prelude, ev.Data)
				}
				continue
			}
			rest = append(rest, ev.Data)
		}
		var want []string
		for _, i := range open[n] {
			want = append(want, data[i])
		}
		if diff := cmp.Diff(want, prelude); diff != "" {
			t.Errorf("cursor %d: restated (-want +got):\n%s", n, diff)
		}
		if diff := cmp.Diff(data[n:], rest); diff != "" {
			t.Errorf("cursor %d: the events after it (-want +got):\n%s", n, diff)
		}
		wantInfo := fmt.Sprintf(`{"name":"a2a.resume","type":"CUSTOM","value":{"after":%q,"restated":%d}}`, whole[n-1].ID, len(open[n])-1)
		if resumed[1].Data != wantInfo {
			t.Errorf("cursor %d: notice %s, want %s", n, resumed[1].Data, wantInfo)
		}
	}
	if code, evs := serveLog(t, l, whole[len(whole)-1].ID); code != http.StatusNoContent || len(evs) > 0 {
		t.Errorf("a reader that has the whole ended run: status %d, %d events; want 204", code, len(evs))
	}
	other, _ := aguiLogRun(t)
	for _, cur := range []string{"garbage", whole[3].ID + "0", strings.Replace(whole[3].ID, ".1.", ".2.", 1), other.prefix + "99"} {
		if code, _ := serveLog(t, l, cur); code != http.StatusGone {
			t.Errorf("cursor %q: status %d, want 410", cur, code)
		}
	}
}

// The log keeps at most MaxAGUILogBytes: the oldest events give way, what
// they left open is still restated, and a cursor before them (or no
// cursor) is 410.
func TestAGUILogBounded(t *testing.T) {
	l := NewAGUILog()
	_ = l.Write(RunStarted("th", "run"))
	_ = l.Write(map[string]any{"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "a", "parentToolCallId": "c1"})
	big := strings.Repeat("x", 64<<10)
	n := 0
	for l.first == 0 {
		n++
		_ = l.Write(map[string]any{"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "x", "patch": []any{big}, "subagentRunId": "s1"})
	}
	l.Close()
	if l.bytes > MaxAGUILogBytes {
		t.Errorf("the log holds %d bytes, over %d", l.bytes, MaxAGUILogBytes)
	}
	if code, _ := serveLog(t, l, ""); code != http.StatusGone {
		t.Errorf("no cursor into a trimmed log: status %d, want 410", code)
	}
	if code, _ := serveLog(t, l, l.prefix+"1"); code != http.StatusGone {
		t.Errorf("a cursor before the kept events: status %d, want 410", code)
	}
	last := l.first + uint64(len(l.events)) - 1
	code, evs := serveLog(t, l, l.prefix+fmt.Sprint(last))
	if code != http.StatusOK || len(evs) != 4 || !strings.Contains(evs[2].Data, `"subagentRunId":"s1"`) || evs[3].ID == "" {
		t.Errorf("a cursor in the kept events: status %d, %d events (want RUN_STARTED, notice, SUBAGENT_STARTED, the last event)", code, len(evs))
	}
}

// A reader that follows the log live gets each event as it is written,
// and ends with the run.
func TestAGUILogLive(t *testing.T) {
	l := NewAGUILog()
	srv := httptest.NewServer(http.HandlerFunc(l.Serve))
	defer srv.Close()
	_ = l.Write(RunStarted("th", "run"))
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan string)
	go func() {
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				done <- b.String()
				return
			}
		}
	}()
	_ = l.Write(TextMessageStart("m1"))
	_ = l.Write(RunFinished("th", "run", OutcomeSuccess()))
	l.Close()
	evs := readSSE(t, <-done)
	var types []string
	for _, ev := range evs {
		var m map[string]any
		_ = json.Unmarshal([]byte(ev.Data), &m)
		types = append(types, m["type"].(string))
	}
	if diff := cmp.Diff([]string{"RUN_STARTED", "TEXT_MESSAGE_START", "RUN_FINISHED"}, types); diff != "" {
		t.Errorf("live events (-want +got):\n%s", diff)
	}
}
