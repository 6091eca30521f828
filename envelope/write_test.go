package envelope

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// roundTripCases covers every kind and status, unicode and escapes.
func roundTripCases() []Envelope {
	tricky := "quote \" backslash \\ slash / <html> & \u2028 \x00\x1f tab\t nl\n é 日本 😀 \uFFFD"
	var out []Envelope
	for _, st := range []Status{StatusRunning, StatusDone, StatusAborted} {
		out = append(out,
			Envelope{V: 1, Kind: KindThinking, Seq: 1, Status: st, Payload: Thinking{Text: "let me think " + tricky}},
			Envelope{V: 1, Kind: KindToolCall, StreamKey: "call-7", Seq: 42, Status: st, Payload: ToolCall{Tool: "ask_colleague", ToolCallID: "call-7"}},
			Envelope{V: 1, Kind: KindToolCall, Seq: -3, Status: st, Payload: ToolCall{Tool: "t"}},
			Envelope{V: 1, Kind: KindToolOutputAppend, StreamKey: "流", Seq: 1 << 62, Status: st, Payload: ToolOutputAppend{Tool: "sh", Chunk: tricky, ToolCallID: "c"}},
			Envelope{V: 1, Kind: KindText, Seq: -1 << 63, Status: st, Payload: Text{Text: tricky}},
			Envelope{V: 1, Kind: KindText, Seq: 1<<63 - 1, Status: st, Payload: Text{}},
			Envelope{V: 1, Kind: KindError, StreamKey: tricky, Seq: 0, Status: st, Payload: ErrorPayload{Message: "boom: " + tricky}},
		)
	}
	out = append(out, chunkOf(HardChunkLimit), chunkOf(0))
	return out
}

func TestRoundTrip(t *testing.T) {
	task := a2a.TaskInfo{TaskID: "task-1", ContextID: "ctx-1"}
	for _, e := range roundTripCases() {
		t.Run(string(e.Kind)+"/"+string(e.Status), func(t *testing.T) {
			s, err := Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(s)
			if err != nil {
				t.Fatalf("Parse(Marshal): %v\n%s", err, s)
			}
			if diff := cmp.Diff(e, got); diff != "" {
				t.Errorf("Parse(Marshal(e)) (-want +got):\n%s", diff)
			}

			p, err := NewPart(e, "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(DefaultText(e), p.Text()); diff != "" {
				t.Errorf("part text (-want +got):\n%s", diff)
			}
			got, form, soft, err := fromPart(p)
			if err != nil || form != FormString || soft != (len(s) > 0 && e.Kind == KindToolOutputAppend && len(e.Payload.(ToolOutputAppend).Chunk) > SoftChunkLimit) {
				t.Errorf("fromPart: form %q, soft %v, err %v", form, soft, err)
			}
			if diff := cmp.Diff(e, got); diff != "" {
				t.Errorf("fromPart(NewPart(e)) (-want +got):\n%s", diff)
			}

			ev, err := NewStatusUpdate(task, e, "fallback")
			if err != nil {
				t.Fatal(err)
			}
			if ev.Status.State != a2a.TaskStateWorking || ev.TaskID != task.TaskID || ev.ContextID != task.ContextID ||
				ev.Status.Message == nil || ev.Status.Message.Role != a2a.MessageRoleAgent || ev.Status.Message.ID == "" {
				t.Errorf("NewStatusUpdate: %+v", ev)
			}
			r := FromMessage(ev.Status.Message)
			if r.Fallback || r.Part != 0 {
				t.Fatalf("FromMessage: %+v", r)
			}
			if diff := cmp.Diff(e, r.Envelope); diff != "" {
				t.Errorf("FromMessage(NewStatusUpdate(e)) (-want +got):\n%s", diff)
			}

			// Through a2a-go's own wire encoding: the metadata survives.
			wire, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			var back a2a.TaskStatusUpdateEvent
			if err := json.Unmarshal(wire, &back); err != nil {
				t.Fatal(err)
			}
			r = FromMessage(back.Status.Message)
			if r.Fallback || r.Form != FormString {
				t.Fatalf("FromMessage after the wire: %+v", r)
			}
			if diff := cmp.Diff(e, r.Envelope); diff != "" {
				t.Errorf("after the a2a wire (-want +got):\n%s", diff)
			}
			if got := MessageText(back.Status.Message); got != "fallback" {
				t.Errorf("text after the wire = %q", got)
			}
		})
	}
}

// TestRoundTripObjectForm: a producer that puts the envelope object itself
// under tfrs (what a protobuf Struct peer may do) is read the same after the
// a2a wire.
func TestRoundTripObjectForm(t *testing.T) {
	for _, e := range roundTripCases() {
		s, err := Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			t.Fatal(err)
		}
		msg := a2a.NewMessage(a2a.MessageRoleAgent, tfrsPart("t", obj))
		wire, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		var back a2a.Message
		if err := json.Unmarshal(wire, &back); err != nil {
			t.Fatal(err)
		}
		r := FromMessage(&back)
		if e.Seq > 1<<53 || e.Seq < -1<<53 {
			continue // a float64 cannot hold it: the object form is lossy there
		}
		if r.Fallback || r.Form != FormObject {
			t.Fatalf("%s: %+v", s, r)
		}
		if diff := cmp.Diff(e, r.Envelope); diff != "" {
			t.Errorf("object form (-want +got):\n%s", diff)
		}
	}
}

func TestWritersRefuse(t *testing.T) {
	ok := Envelope{V: 1, Kind: KindToolCall, Seq: 1, Status: StatusRunning, Payload: ToolCall{Tool: "t"}}
	with := func(f func(*Envelope)) Envelope { e := ok; f(&e); return e }
	for _, tc := range []struct {
		name   string
		e      Envelope
		reason Reason
		field  string
	}{
		{"zero value", Envelope{}, ReasonBadField, "v"},
		{"v=0", with(func(e *Envelope) { e.V = 0 }), ReasonBadField, "v"},
		{"v=2", with(func(e *Envelope) { e.V = 2 }), ReasonUnsupportedVersion, "v"},
		{"unknown kind", with(func(e *Envelope) { e.Kind = "hologram" }), ReasonUnknownKind, "kind"},
		{"unknown status", with(func(e *Envelope) { e.Status = "paused" }), ReasonBadField, "status"},
		{"no payload", with(func(e *Envelope) { e.Payload = nil }), ReasonBadField, "payload"},
		{"payload of another kind", with(func(e *Envelope) { e.Payload = Text{Text: "x"} }), ReasonBadField, "payload"},
		{"pointer payload", with(func(e *Envelope) { e.Payload = &ToolCall{Tool: "t"} }), ReasonBadField, "payload"},
		{"nil pointer payload", with(func(e *Envelope) { e.Payload = (*ToolCall)(nil) }), ReasonBadField, "payload"},
		{"tool_call without tool", with(func(e *Envelope) { e.Payload = ToolCall{ToolCallID: "c"} }), ReasonBadField, "payload.tool"},
		{"tool_output_append without tool", Envelope{V: 1, Kind: KindToolOutputAppend, Seq: 1, Status: StatusRunning,
			Payload: ToolOutputAppend{Chunk: "x"}}, ReasonBadField, "payload.tool"},
		{"chunk over the hard limit", chunkOf(HardChunkLimit + 1), ReasonChunkTooLarge, "payload.chunk"},
		{"parent is its own call", with(func(e *Envelope) { e.StreamKey, e.Parent = "c1", "c1" }), ReasonBadField, "parent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkError(t, tc.e.Validate(), tc.reason, tc.field)
			s, err := Marshal(tc.e)
			checkError(t, err, tc.reason, tc.field)
			if s != "" {
				t.Errorf("Marshal returned %q with an error", s)
			}
			p, err := NewPart(tc.e, "x")
			checkError(t, err, tc.reason, tc.field)
			if p != nil {
				t.Errorf("NewPart returned a part with an error")
			}
			ev, err := NewStatusUpdate(a2a.TaskInfo{TaskID: "t"}, tc.e, "x")
			checkError(t, err, tc.reason, tc.field)
			if ev != nil {
				t.Errorf("NewStatusUpdate returned an event with an error")
			}
			if _, err := json.Marshal(tc.e); ReasonOf(err) != tc.reason {
				t.Errorf("json.Marshal: %v, want %s", err, tc.reason)
			}
		})
	}
}

func TestMarshalParent(t *testing.T) {
	got, err := Marshal(Envelope{V: 1, Kind: KindText, Seq: 3, Status: StatusRunning, Parent: "call-7", Payload: Text{Text: "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"kind":"text","seq":3,"status":"running","payload":{"text":"hi"},"parent":"call-7"}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMarshalWireForm(t *testing.T) {
	got, err := Marshal(Envelope{V: 1, Kind: KindToolCall, Seq: 42, Status: StatusRunning, Payload: ToolCall{Tool: "ask_colleague"}})
	if err != nil {
		t.Fatal(err)
	}
	// streamKey and tool_call_id are omitted when empty.
	want := `{"v":1,"kind":"tool_call","seq":42,"status":"running","payload":{"tool":"ask_colleague"}}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNewPartText(t *testing.T) {
	e := Envelope{V: 1, Kind: KindText, Seq: 1, Status: StatusRunning, Payload: Text{Text: "payload text"}}
	p, err := NewPart(e, "explicit")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("explicit", p.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := p.Metadata[MetadataKey].(string); !ok || len(p.Metadata) != 1 {
		t.Errorf("metadata = %#v, want only a tfrs string", p.Metadata)
	}
}

func TestDefaultText(t *testing.T) {
	for _, tc := range []struct {
		e    Envelope
		want string
	}{
		{Envelope{Kind: KindThinking, Payload: Thinking{Text: "t"}}, "thinking: t"},
		{Envelope{Kind: KindToolCall, Status: StatusRunning, Payload: ToolCall{Tool: "x"}}, "calling tool x"},
		{Envelope{Kind: KindToolCall, Status: StatusDone, Payload: ToolCall{Tool: "x"}}, "tool x done"},
		{Envelope{Kind: KindToolCall, Status: StatusAborted, Payload: ToolCall{Tool: "x"}}, "tool x aborted"},
		{Envelope{Kind: KindToolOutputAppend, Payload: ToolOutputAppend{Tool: "x", Chunk: "out\n"}}, "out\n"},
		{Envelope{Kind: KindText, Payload: Text{Text: "hi"}}, "hi"},
		{Envelope{Kind: KindError, Payload: ErrorPayload{Message: "m"}}, "error: m"},
		{Envelope{Kind: "x", Seq: 7}, "x #7"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DefaultText(tc.e)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitOutput(t *testing.T) {
	long := strings.Repeat("a", 10)
	for _, tc := range []struct {
		name  string
		in    string
		limit int
		want  []string
	}{
		{"empty", "", 8, nil},
		{"short", "abc", 8, []string{"abc"}},
		{"exactly the limit", "abcdefgh", 8, []string{"abcdefgh"}},
		{"lines packed up to the limit", "ab\ncd\nef\ngh\n", 6, []string{"ab\ncd\n", "ef\ngh\n"}},
		{"cut after the last newline that fits", "abc\ndefg\nhi", 8, []string{"abc\n", "defg\nhi"}},
		{"newline exactly at the limit", "abcdefg\nhij", 8, []string{"abcdefg\n", "hij"}},
		{"a long line is cut at the limit", long, 4, []string{"aaaa", "aaaa", "aa"}},
		{"a long line after a short one", "ab\n" + long, 6, []string{"ab\n", "aaaaaa", "aaaa"}},
		{"never inside a rune", "aé日😀", 4, []string{"aé", "日", "😀"}},
		{"a rune right at the cut", "abc😀d", 4, []string{"abc", "😀", "d"}},
		{"newline beats a rune cut", "é\n日本", 5, []string{"é\n", "日", "本"}},
		{"limit below UTFMax is raised", "😀😀", 1, []string{"😀", "😀"}},
		{"only newlines", "\n\n\n\n\n", 4, []string{"\n\n\n\n", "\n"}},
		{"invalid UTF-8 still makes progress", "\x80\x80\x80\x80\x80\x80", 4, []string{"\x80\x80\x80\x80", "\x80\x80"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitOutput(tc.in, tc.limit)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			checkSplit(t, tc.in, tc.limit, got)
		})
	}
}

func TestSplitOutputDefaults(t *testing.T) {
	in := strings.Repeat("0123456789abcde\n", 3000) // 48000 bytes
	for _, tc := range []struct {
		limit, max int
	}{{0, SoftChunkLimit}, {-1, SoftChunkLimit}, {1 << 20, HardChunkLimit}} {
		got := SplitOutput(in, tc.limit)
		checkSplit(t, in, tc.max, got)
		for i, c := range got[:len(got)-1] {
			if len(c) != tc.max || !strings.HasSuffix(c, "\n") {
				t.Errorf("limit %d: chunk %d has %d bytes, want %d ending in a newline", tc.limit, i, len(c), tc.max)
			}
		}
	}
	big := strings.Repeat("x", 2*HardChunkLimit+1)
	got := SplitOutput(big, 1<<20)
	checkSplit(t, big, HardChunkLimit, got)
	if len(got) != 3 {
		t.Errorf("got %d chunks, want 3", len(got))
	}
	for _, c := range got {
		e := Envelope{V: 1, Kind: KindToolOutputAppend, Seq: 1, Status: StatusRunning, Payload: ToolOutputAppend{Tool: "t", Chunk: c}}
		if _, err := NewPart(e, ""); err != nil {
			t.Errorf("a chunk from SplitOutput cannot be sent: %v", err)
		}
	}
}

// checkSplit asserts the SplitOutput contract.
func checkSplit(t testing.TB, in string, limit int, got []string) {
	t.Helper()
	if limit <= 0 {
		limit = SoftChunkLimit
	}
	limit = min(max(limit, utf8.UTFMax), HardChunkLimit)
	if joined := strings.Join(got, ""); joined != in {
		t.Fatalf("concatenation differs from the input: %q != %q", joined, in)
	}
	valid := utf8.ValidString(in)
	for i, c := range got {
		if c == "" {
			t.Errorf("chunk %d is empty", i)
		}
		if len(c) > limit {
			t.Errorf("chunk %d has %d bytes, over %d", i, len(c), limit)
		}
		if valid && !utf8.ValidString(c) {
			t.Errorf("chunk %d is cut inside a UTF-8 sequence: %q", i, c)
		}
		// A chunk that is not the last ends at a newline unless its line
		// was too long to fit.
		if i < len(got)-1 && !strings.HasSuffix(c, "\n") && strings.Contains(c, "\n") {
			t.Errorf("chunk %d %q was not cut after its last newline", i, c)
		}
	}
}

func FuzzSplitOutput(f *testing.F) {
	f.Add("line one\nline two\n", 8)
	f.Add("aé日😀\n😀😀😀", 5)
	f.Add(strings.Repeat("x", 100), 7)
	f.Add("\xff\xfe\x80abc\n", 4)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit > 1<<12 {
			limit %= 1 << 12 // keep the cases small; the rule does not depend on the size
		}
		checkSplit(t, s, limit, SplitOutput(s, limit))
	})
}
