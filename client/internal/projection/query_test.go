package projection

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// The three /v1/query frames of the recorded runtime analysis, verbatim.
const (
	seedQueryRunning   = `{"content":"RUNNING","projection":{"kind":"remote_agent_invocation","batchId":"333a9f5f-...","toolCallId":"call_00_JIhiVhnvjabn7DCjgY2D1744","sequence":1,"target":"expense-review","phase":"RUNNING","latencyMs":0}}`
	seedQueryInput     = `{"content":"INPUT_REQUIRED","projection":{"kind":"remote_agent_invocation","batchId":"333a9f5f-...","toolCallId":"call_00_JIhiVhnvjabn7DCjgY2D1744","sequence":2,"target":"expense-review","phase":"INPUT_REQUIRED","resultCategory":"INPUT_REQUIRED","latencyMs":11900}}`
	seedQueryInterrupt = `{"message":"费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。","items":[{"toolCallId":"call_00_JIhiVhnvjabn7DCjgY2D1744","toolName":"expense-review","message":"费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。"}]}`
)

func TestClassifyQuery(t *testing.T) {
	tests := []struct {
		name        string
		data        string
		want        QueryKind
		wantContent string
	}{
		{name: "seed frame 1: projection", data: seedQueryRunning, want: QueryProjection, wantContent: "RUNNING"},
		{name: "seed frame 2: projection", data: seedQueryInput, want: QueryProjection, wantContent: "INPUT_REQUIRED"},
		{name: "seed frame 3: interrupt", data: seedQueryInterrupt, want: QueryInterrupt},
		{name: "a content chunk", data: `{"content":"The expense is approved."}`, want: QueryBusiness, wantContent: "The expense is approved."},
		{name: "a projection of another kind is business", data: `{"content":"x","projection":{"kind":"other"}}`, want: QueryBusiness, wantContent: "x"},
		{name: "a projection that is not an object is business", data: `{"content":"x","projection":"RUNNING"}`, want: QueryBusiness, wantContent: "x"},
		{name: "a malformed remote invocation is still a projection", data: `{"content":"RUNNING","projection":{"kind":"remote_agent_invocation"}}`, want: QueryProjection, wantContent: "RUNNING"},
		{name: "items that are not an array: business", data: `{"message":"hi","items":{}}`, want: QueryBusiness},
		{name: "a message without items: business", data: `{"message":"hi"}`, want: QueryBusiness},
		{name: "not JSON: business", data: `plain words`, want: QueryBusiness},
		{name: "a JSON array: business", data: `[1,2]`, want: QueryBusiness},
		{name: "null: business", data: `null`, want: QueryBusiness},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ClassifyQuery([]byte(tt.data))
			if diff := cmp.Diff([2]any{tt.want, tt.wantContent}, [2]any{f.Kind, f.Content}); diff != "" {
				t.Errorf("kind, content (-want +got):\n%s", diff)
			}
		})
	}
}

// eventSummary is what a test compares of a translated event.
type eventSummary struct {
	Type     string
	Task     string
	State    a2a.TaskState `json:",omitempty"`
	Artifact string        `json:",omitempty"`
	Append   bool          `json:",omitempty"`
	Text     string        `json:",omitempty"`
	Meta     string        `json:",omitempty"`
	Err      string        `json:",omitempty"`
}

func summarize(ev a2a.Event, err error) eventSummary {
	if err != nil {
		return eventSummary{Type: "error", Err: err.Error()}
	}
	meta := func(m map[string]any) string {
		if m == nil {
			return ""
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	switch e := ev.(type) {
	case *a2a.TaskArtifactUpdateEvent:
		s := eventSummary{Type: "artifact", Task: string(e.TaskID), Artifact: string(e.Artifact.ID), Append: e.Append}
		p := e.Artifact.Parts[0]
		s.Text, s.Meta = p.Text(), meta(p.Metadata)
		if d, ok := p.Content.(a2a.Data); ok {
			b, _ := json.Marshal(d.Value)
			s.Text = "data:" + string(b)
		}
		return s
	case *a2a.TaskStatusUpdateEvent:
		s := eventSummary{Type: "status", Task: string(e.TaskID), State: e.Status.State}
		if m := e.Status.Message; m != nil {
			s.Text, s.Meta = m.Parts[0].Text(), meta(m.Metadata)
		}
		return s
	}
	return eventSummary{Type: "other"}
}

func TestQueryEvents(t *testing.T) {
	sse := func(frames ...string) string {
		var b strings.Builder
		for _, f := range frames {
			b.WriteString("data: " + f + "\n\n")
		}
		return b.String()
	}
	proj := func(data string) string {
		var obj map[string]any
		if err := json.Unmarshal([]byte(data), &obj); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]any{MetadataKey: obj["projection"]})
		return string(b)
	}
	interrupt := func() string {
		var obj map[string]any
		if err := json.Unmarshal([]byte(seedQueryInterrupt), &obj); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]any{"_interrupt": obj})
		return string(b)
	}()
	question := "费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。"
	tests := []struct {
		name string
		body string
		want []eventSummary
	}{
		{
			name: "the seed's three frames",
			body: sse(seedQueryRunning, seedQueryInput, seedQueryInterrupt),
			want: []eventSummary{
				{Type: "artifact", Task: "conv", Artifact: "projection-1", Text: "RUNNING", Meta: proj(seedQueryRunning)},
				{Type: "artifact", Task: "conv", Artifact: "projection-2", Text: "INPUT_REQUIRED", Meta: proj(seedQueryInput)},
				{Type: "status", Task: "conv", State: a2a.TaskStateInputRequired, Text: question, Meta: interrupt},
				// The body's end: the consumer stops at the interrupt.
				{Type: "status", Task: "conv", State: a2a.TaskStateCompleted},
			},
		},
		{
			name: "business chunks build the reply artifact; comments and event names are framing",
			body: ": keep-alive\n\n" + sse(`{"content":"Hello, "}`, seedQueryRunning, `{"content":"world."}`, `{"usage":{"tokens":3}}`, `plain`) +
				"event: done\ndata: {\"content\":\"!\"}\n\n",
			want: []eventSummary{
				{Type: "artifact", Task: "conv", Artifact: "reply", Text: "Hello, "},
				{Type: "artifact", Task: "conv", Artifact: "projection-1", Text: "RUNNING", Meta: proj(seedQueryRunning)},
				{Type: "artifact", Task: "conv", Artifact: "reply", Append: true, Text: "world."},
				{Type: "artifact", Task: "conv", Artifact: "reply", Append: true, Text: `data:{"usage":{"tokens":3}}`},
				{Type: "artifact", Task: "conv", Artifact: "reply", Append: true, Text: "plain"},
				{Type: "artifact", Task: "conv", Artifact: "reply", Append: true, Text: "!"},
				{Type: "status", Task: "conv", State: a2a.TaskStateCompleted, Text: "Hello, world.plain!"},
			},
		},
		{
			name: "a truncated last frame ends with an error, not a completion",
			body: sse(seedQueryRunning) + `data: {"content":"cut`,
			want: []eventSummary{
				{Type: "artifact", Task: "conv", Artifact: "projection-1", Text: "RUNNING", Meta: proj(seedQueryRunning)},
				{Type: "error", Err: "projection: /v1/query frame 2: " + ssewire.ErrTruncated.Error() + " (21 bytes after event 1)"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []eventSummary
			for ev, err := range QueryEvents(strings.NewReader(tt.body), "conv") {
				got = append(got, summarize(ev, err))
				if err != nil && !errors.Is(err, ssewire.ErrTruncated) {
					t.Errorf("err = %v, want ErrTruncated", err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// r3labs turns a read failing with context.Canceled into a clean EOF; a
// canceled body must not complete the turn.
func TestQueryEventsCanceledIsNotAnEnd(t *testing.T) {
	body := io.MultiReader(strings.NewReader("data: {\"content\":\"partial\"}\n\n"), failingReader{context.Canceled})
	var got []eventSummary
	for ev, err := range QueryEvents(body, "conv") {
		got = append(got, summarize(ev, err))
	}
	want := []eventSummary{
		{Type: "artifact", Task: "conv", Artifact: "reply", Text: "partial"},
		{Type: "error", Err: "projection: /v1/query frame 2: SSE stream error: context canceled"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
