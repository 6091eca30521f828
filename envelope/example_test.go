package envelope_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
)

// A working status update as it arrives on the wire (A2A 1.0 JSON), read by
// the caller.
func ExampleFromMessage() {
	frame := `{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING",
	  "message":{"messageId":"m-7","role":"ROLE_AGENT","parts":[{"text":"calling ask_colleague",
	    "metadata":{"tfrs":"{\"v\":1,\"kind\":\"tool_call\",\"streamKey\":\"call-7\",\"seq\":42,\"status\":\"running\",\"payload\":{\"tool\":\"ask_colleague\",\"tool_call_id\":\"call-7\"}}"}}]}}}`
	var ev a2a.TaskStatusUpdateEvent
	if err := json.Unmarshal([]byte(frame), &ev); err != nil {
		panic(err)
	}

	r := envelope.FromMessage(ev.Status.Message)
	fmt.Println("fallback:", r.Fallback)
	fmt.Println(r.Envelope.Kind, r.Envelope.StreamKey, r.Envelope.Seq, r.Envelope.Status)
	if call, ok := r.Envelope.Payload.(envelope.ToolCall); ok {
		fmt.Println("tool:", call.Tool)
	}
	// Output:
	// fallback: false
	// tool_call call-7 42 running
	// tool: ask_colleague
}

// A pre-upgrade callee sends plain text; an envelope of a newer version
// cannot be read. Both become a text pseudo envelope identified by the
// messageId.
func ExampleFromMessage_fallback() {
	plain := &a2a.Message{ID: "m-1", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("still working…")}}
	r := envelope.FromMessage(plain)
	fmt.Println(r.Fallback, r.Reason, r.ID, r.Envelope.Payload.(envelope.Text).Text)

	newer := a2a.NewTextPart("searching the web")
	newer.Metadata = map[string]any{envelope.MetadataKey: `{"v":2,"kind":"web_search"}`}
	r = envelope.FromMessage(&a2a.Message{ID: "m-2", Parts: a2a.ContentParts{newer}})
	fmt.Println(r.Fallback, r.Reason, r.ID, r.Envelope.Payload.(envelope.Text).Text)
	fmt.Println(errors.Is(r.Err, envelope.ReasonUnsupportedVersion), r.Err)
	// Output:
	// true no_envelope msg:m-1 still working…
	// true unsupported_version msg:m-2 searching the web
	// true envelope: v: version 2 is newer than 1 (unsupported_version)
}

// A Go callee builds the working status update for a tool call.
func ExampleNewStatusUpdate() {
	task := a2a.TaskInfo{TaskID: "task-1", ContextID: "ctx-1"}
	e := envelope.Envelope{V: envelope.Version, Kind: envelope.KindToolCall, StreamKey: "call-7", Seq: 42,
		Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "ask_colleague", ToolCallID: "call-7"}}
	ev, err := envelope.NewStatusUpdate(task, e, "") // "" = envelope.DefaultText(e)
	if err != nil {
		panic(err)
	}
	part := ev.Status.Message.Parts[0]
	fmt.Println(ev.Status.State)
	fmt.Println(part.Text())
	fmt.Println(part.Metadata[envelope.MetadataKey])

	// An invalid envelope is refused.
	e.Payload = envelope.ToolCall{}
	_, err = envelope.NewStatusUpdate(task, e, "")
	fmt.Println(err)
	// Output:
	// TASK_STATE_WORKING
	// calling tool ask_colleague
	// {"v":1,"kind":"tool_call","streamKey":"call-7","seq":42,"status":"running","payload":{"tool":"ask_colleague","tool_call_id":"call-7"}}
	// envelope: payload.tool: required for kind tool_call (bad_field)
}

// NewPart gives just the part, for a callee that builds its own message.
func ExampleNewPart() {
	e := envelope.Envelope{V: 1, Kind: envelope.KindThinking, Seq: 1, Status: envelope.StatusRunning,
		Payload: envelope.Thinking{Text: "comparing the two plans"}}
	p, err := envelope.NewPart(e, "thinking…")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Text())
	fmt.Println(p.Metadata["tfrs"])
	// Output:
	// thinking…
	// {"v":1,"kind":"thinking","seq":1,"status":"running","payload":{"text":"comparing the two plans"}}
}

// Long tool output goes out as tool_output_append blocks with consecutive
// seqs, cut at line boundaries (here at 16 bytes instead of the 8 KiB
// default, to keep the example short).
func ExampleSplitOutput() {
	out := "line one\nline two\nline three\na line that is far too long\n"
	for i, chunk := range envelope.SplitOutput(out, 16) {
		e := envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: "call-7", Seq: int64(100 + i),
			Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "sh", Chunk: chunk, ToolCallID: "call-7"}}
		if _, err := envelope.NewPart(e, ""); err != nil {
			panic(err)
		}
		fmt.Printf("seq %d %q\n", e.Seq, chunk)
	}
	// Output:
	// seq 100 "line one\n"
	// seq 101 "line two\n"
	// seq 102 "line three\n"
	// seq 103 "a line that is f"
	// seq 104 "ar too long\n"
}

// Parse reads the tfrs string directly; every error says which field and why.
func ExampleParse() {
	_, err := envelope.Parse(`{"v":1,"kind":"text","seq":"3","status":"running","payload":{"text":"hi"}}`)
	var e *envelope.Error
	if errors.As(err, &e) {
		fmt.Println(e.Reason, e.Field)
	}
	fmt.Println(errors.Is(err, envelope.ReasonBadField))
	fmt.Println(err)
	// Output:
	// bad_field seq
	// true
	// envelope: seq: must be a JSON number, got string (bad_field)
}
