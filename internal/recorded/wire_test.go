package recorded

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v0/pbjson"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// sampleWire is the envelope of sampleEvents' working update, in its wire
// form (PROTOCOL.md §2.1: a JSON string under metadata "tfrs").
const sampleWire = `{"v":1,"kind":"tool_call","streamKey":"call-1","seq":7,"status":"running","payload":{"tool":"search","tool_call_id":"call-1"}}`

func sampleEvents(t *testing.T) []a2a.Event {
	t.Helper()
	info := a2a.TaskInfo{TaskID: "task-1", ContextID: "ctx-1"}
	part := a2a.NewTextPart("calling search")
	part.Metadata = map[string]any{"tfrs": sampleWire}
	upd := a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, info, part))
	ts := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	upd.Status.Timestamp = &ts
	upd.Status.Message.ID = "m-1"
	art := a2a.NewArtifactEvent(info, a2a.NewTextPart("the answer"))
	art.Artifact.ID = "a-1"
	art.LastChunk = true
	done := a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted, &a2a.Message{ID: "m-2", Role: a2a.MessageRoleAgent,
		TaskID: "task-1", ContextID: "ctx-1", Parts: a2a.ContentParts{a2a.NewTextPart("done")}})
	done.Status.Timestamp = &ts
	task := &a2a.Task{ID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: upd.Status.Message},
		History: []*a2a.Message{{ID: "u-1", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("hi")}, TaskID: "task-1", ContextID: "ctx-1"}}}
	return []a2a.Event{task, upd, art, done}
}

func encode(t *testing.T, f Format, rpc bool, ev a2a.Event) []byte {
	t.Helper()
	var body []byte
	var err error
	switch f {
	case FormatV1:
		body, err = json.Marshal(a2a.StreamResponse{Event: ev})
	case FormatV03JSON:
		var old any
		old, err = a2av0.FromV1Event(ev)
		if err == nil {
			body, err = json.Marshal(old)
		}
	case FormatV03ProtoJS:
		body, err = pbjson.ToProtoStreamEvent(ev)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rpc {
		body, err = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "req-1", "result": json.RawMessage(body)})
		if err != nil {
			t.Fatal(err)
		}
	}
	return body
}

func TestDecodeEveryFormat(t *testing.T) {
	events := sampleEvents(t)
	for _, f := range []Format{FormatV1, FormatV03JSON, FormatV03ProtoJS} {
		for _, rpc := range []bool{false, true} {
			if f == FormatV03ProtoJS && rpc {
				continue // v0.3 REST frames are never JSON-RPC wrapped
			}
			name := string(f)
			if rpc {
				name += "/jsonrpc"
			}
			t.Run(name, func(t *testing.T) {
				var d Decoder
				for i, ev := range events {
					got, gotFormat, err := d.Decode(encode(t, f, rpc, ev))
					if err != nil {
						t.Fatalf("event %d: %v", i, err)
					}
					if gotFormat != f {
						t.Errorf("event %d: format = %q, want %q", i, gotFormat, f)
					}
					if diff := cmp.Diff(ev, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("event %d (-want +got):\n%s", i, diff)
					}
					if su, ok := got.(*a2a.TaskStatusUpdateEvent); ok && su.Status.State == a2a.TaskStateWorking {
						if got := su.Status.Message.Parts[0].Metadata["tfrs"]; got != sampleWire {
							t.Errorf("event %d: the envelope did not survive: %v", i, got)
						}
					}
				}
			})
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in string
		is       error
		want     string
	}{
		{name: "rpc error", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`, is: ErrRPC, want: "wire: JSON-RPC error -32001: task not found"},
		{name: "not an object", in: `[1,2]`, want: "wire: frame is not a JSON object"},
		{name: "rpc without result", in: `{"jsonrpc":"2.0","id":1}`, want: "wire: JSON-RPC frame without result or error"},
		{name: "unknown v1 event", in: `{"foo":{}}`, want: "wire: v1.0 event: unknown event type: [foo]"},
		{name: "unknown v0.3 kind", in: `{"kind":"bogus"}`, want: "wire: v0.3 event: unknown event kind: bogus"},
		{name: "truncated json", in: `{"statusUpdate":{`, want: "wire: v1.0 event: unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			_, _, err := d.Decode([]byte(tc.in))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tc.want {
				t.Errorf("err = %q, want %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
			}
		})
	}
}

// TestDecodeOddFrames: legal frames that byte-level sniffing got wrong.
func TestDecodeOddFrames(t *testing.T) {
	events := sampleEvents(t)
	info := a2a.TaskInfo{TaskID: "task-1", ContextID: "ctx-1"}
	// A v1.0 update whose data part holds a "content" array: a key like
	// any other inside data, not the v0.3 REST message field.
	withData := a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, &a2a.Message{ID: "m-3", Role: a2a.MessageRoleAgent,
		TaskID: "task-1", ContextID: "ctx-1", Parts: a2a.ContentParts{
			a2a.NewTextPart("rows"), a2a.NewDataPart(map[string]any{"content": []any{1.0, 2.0}, "kind": "table"})}})
	indent := func(b []byte) []byte {
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	longID := func(b []byte) []byte {
		// encoding/json writes map keys sorted: "id" before "jsonrpc".
		out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": strings.Repeat("req-", 30), "result": json.RawMessage(b)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	numericID := func(b []byte) []byte {
		return []byte(`{"id":18446744073709551615,"jsonrpc":"2.0","result":` + string(b) + `}`)
	}
	tests := []struct {
		name   string
		frames [][]byte
		want   []a2a.Event
		format Format
	}{
		{name: "v1.0 data part with a content array, then an artifact", format: FormatV1,
			frames: [][]byte{encode(t, FormatV1, false, withData), encode(t, FormatV1, false, events[2])},
			want:   []a2a.Event{withData, events[2]}},
		{name: "JSON-RPC with a long id before jsonrpc", format: FormatV1,
			frames: [][]byte{longID(encode(t, FormatV1, false, events[1]))}, want: []a2a.Event{events[1]}},
		{name: "JSON-RPC with a numeric id", format: FormatV03JSON,
			frames: [][]byte{numericID(encode(t, FormatV03JSON, false, events[1]))}, want: []a2a.Event{events[1]}},
		{name: "v0.3 REST pretty-printed", format: FormatV03ProtoJS,
			frames: [][]byte{indent(encode(t, FormatV03ProtoJS, false, events[0])), indent(encode(t, FormatV03ProtoJS, false, events[1])),
				indent(encode(t, FormatV03ProtoJS, false, events[2]))},
			want: events[:3]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			for i, frame := range tc.frames {
				got, f, err := d.Decode(frame)
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if f != tc.format {
					t.Errorf("frame %d: format %q, want %q", i, f, tc.format)
				}
				if diff := cmp.Diff(tc.want[i], got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("frame %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// A recording with an event over the bound ends with the framer's one
// error (client.ErrEventTooLarge is the same value), after the events
// before it.
func TestEventsOverTheBound(t *testing.T) {
	good := `data: {"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}` + "\n\n"
	body := good + "data: " + strings.Repeat("x", ssewire.DefaultMaxEventBytes) + "\n\n" + good
	var n int
	var last error
	for _, err := range Events(strings.NewReader(body), FormatAuto) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if n != 1 || !errors.Is(last, ssewire.ErrEventTooLarge) {
		t.Fatalf("%d events, then %v; want 1, then ErrEventTooLarge", n, last)
	}
}
