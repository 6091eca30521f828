package frontend

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// longCall is a tool call whose output grows to about 19 KB in 120 chunks
// of multi-byte text, then closes.
func longCall() (rs []envelope.Reading, whole string) {
	return longCallOf(120, strings.Repeat("日本é", 20)+"\n") // 161 bytes, runes of 3 and 2 bytes
}

// longCallOf is a tool call whose output grows by n chunks — chunk, and
// every seventh "x"+chunk, which moves a cut off a rune start now and then
// — then closes.
func longCallOf(n int, chunk string) (rs []envelope.Reading, whole string) {
	env := func(seq int64, kind envelope.Kind, status envelope.Status, p envelope.Payload) envelope.Reading {
		return envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: kind, StreamKey: "call-1", Seq: seq, Status: status, Payload: p}}
	}
	rs = append(rs, env(1, envelope.KindToolCall, envelope.StatusRunning, envelope.ToolCall{Tool: "build", ToolCallID: "call-1"}))
	var b strings.Builder
	for i := range n {
		chunk := chunk
		if i%7 == 0 {
			chunk = "x" + chunk
		}
		b.WriteString(chunk)
		rs = append(rs, env(int64(2+i), envelope.KindToolOutputAppend, envelope.StatusRunning,
			envelope.ToolOutputAppend{Tool: "build", ToolCallID: "call-1", Chunk: chunk}))
	}
	rs = append(rs, env(int64(n+2), envelope.KindToolCall, envelope.StatusDone, envelope.ToolCall{Tool: "build", ToolCallID: "call-1"}))
	return rs, b.String()
}

// A running call's preliminary outputs carry its last 4 KiB, cut at a
// rune, and how many bytes come before them; the final output is whole.
// So each chunk costs the wire O(1), not the output so far.
func TestAISDKPreliminaryOutputsAreTails(t *testing.T) {
	t.Parallel()
	rs, whole := longCall()
	out := &frontResult{Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: "built"}
	rec := httptest.NewRecorder()
	encodeTurn(t, newAISDKStream(false), rec, opsOf(rs, out))
	buf := rec.Body

	type output struct {
		Status  string `json:"status"`
		Output  string `json:"output"`
		Omitted int    `json:"omittedBytes"`
	}
	var prelims []output
	var final *output
	var problems []string
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ev struct {
			Type        string `json:"type"`
			Preliminary bool   `json:"preliminary"`
			Output      output `json:"output"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %s: %v", data, err)
		}
		if ev.Type != "tool-output-available" {
			continue
		}
		o := ev.Output
		if !ev.Preliminary {
			final = &o
			continue
		}
		prelims = append(prelims, o)
		switch {
		case len(o.Output) > aisdkTailBytes:
			problems = append(problems, "a preliminary output of "+strconv.Itoa(len(o.Output))+" bytes")
		case !utf8.ValidString(o.Output):
			problems = append(problems, "a tail cut inside a rune")
		case o.Omitted+len(o.Output) > len(whole) || whole[o.Omitted:o.Omitted+len(o.Output)] != o.Output:
			problems = append(problems, "a tail that is not the output at its offset "+strconv.Itoa(o.Omitted))
		case len(o.Output) < aisdkTailBytes-utf8.UTFMax && o.Omitted > 0:
			problems = append(problems, "a tail shorter than the bound with bytes omitted")
		}
	}
	if d := cmp.Diff([]string(nil), problems); d != "" {
		t.Errorf("preliminary outputs (-want +got):\n%s", d)
	}
	if len(prelims) < 100 {
		t.Errorf("%d preliminary outputs, want one per chunk (120)", len(prelims))
	}
	if final == nil || final.Output != whole || final.Omitted != 0 || final.Status != string(schema.ToolDone) {
		t.Errorf("the final output: %+v, want the whole %d bytes, status done", final, len(whole))
	}
	// The whole stream: about 120 tails, not 120 outputs so far (~2 MB).
	if buf.Len() > 120*(aisdkTailBytes+512)+len(whole)+16<<10 {
		t.Errorf("the stream is %d bytes", buf.Len())
	}
}

// The real ai client shows the whole output at the end of such a call.
func TestAISDKLongOutputShownWhole(t *testing.T) {
	t.Parallel()
	frontendsNode(t)
	rs, _ := longCall()
	out := outcomes()["completed"]
	s := streamServer(t, opsOf(rs, out), false)
	want := wantShown(play(rs, out, func(*schema.View, *frontResult) {}), out)
	checkBothFronts(t, s.URL, want, out)
}
