package frontend_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/relay/frontend"
)

// abortedScript is a turn whose tool call the callee aborts, saying why in
// the aborted error block of the call's key, and which then completes.
func abortedScript(name, reason string) agenttest.Script {
	env := func(seq int64, kind envelope.Kind, status envelope.Status, p envelope.Payload) agenttest.Step {
		return agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: kind, StreamKey: "call-1", Seq: seq, Status: status, Payload: p}}
	}
	return agenttest.Script{
		Name: name,
		Steps: []agenttest.Step{
			env(1, envelope.KindToolCall, envelope.StatusRunning, envelope.ToolCall{Tool: "lookup", ToolCallID: "call-1"}),
			env(2, envelope.KindToolOutputAppend, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "lookup", ToolCallID: "call-1", Chunk: "partial\n"}),
			env(3, envelope.KindError, envelope.StatusAborted, envelope.ErrorPayload{Message: reason}),
		},
		Final:     a2a.TaskStateCompleted,
		FinalText: "done without the lookup",
	}
}

// chunksResult is what aisdk-chunks.mjs prints.
type chunksResult struct {
	Status  int              `json:"status"`
	Chunks  []map[string]any `json:"chunks"`
	Invalid []map[string]any `json:"invalid"`
	Done    bool             `json:"done"`
}

func chunkTypes(cs []map[string]any) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c["type"].(string))
	}
	return out
}

// An aborted tool call reaches useChat as a failed call — tool-output-error
// with the callee's reason — not as output-available (a success); every
// chunk passes the ai library's own chunk schema.
func TestAISDKAbortedToolCall(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	const reason = "lookup: warehouse API timed out after 30 s"
	rig := newFrontRig(t, nil)
	sc := abortedScript("aisdk-aborted", reason)
	rig.agent.Register(sc)

	var raw chunksResult
	frontend.RunHarness(t, "aisdk-chunks.mjs", map[string]any{"url": rig.url + "/api/chat", "method": "POST",
		"body": map[string]any{"id": "chat-aborted-raw", "messages": []any{map[string]any{"id": "u1", "role": "user",
			"parts": []any{map[string]any{"type": "text", "text": sc.Name}}}}}}, &raw)
	if len(raw.Invalid) > 0 || !raw.Done || raw.Status != 200 {
		t.Errorf("chunks the ai schema refuses, or no [DONE] (status %d, done %v): %v", raw.Status, raw.Done, raw.Invalid)
	}
	var toolEnd map[string]any
	for _, c := range raw.Chunks {
		if c["type"] == "tool-output-error" || (c["type"] == "tool-output-available" && c["preliminary"] == nil) {
			toolEnd = c
		}
	}
	if d := cmp.Diff(map[string]any{"type": "tool-output-error", "errorText": reason, "providerExecuted": true, "dynamic": true},
		map[string]any{"type": toolEnd["type"], "errorText": toolEnd["errorText"], "providerExecuted": toolEnd["providerExecuted"], "dynamic": toolEnd["dynamic"]}); d != "" {
		t.Errorf("the aborted call's last output chunk (-want +got):\n%s\nchunks: %v", d, chunkTypes(raw.Chunks))
	}

	// Through useChat's Chat: the part is a failed call with the reason.
	var res struct {
		Messages []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"messages"`
		Errors   []string `json:"errors"`
		Warnings []string `json:"warnings"`
	}
	frontend.RunHarness(t, "aisdk.mjs", map[string]any{"api": rig.url + "/api/chat", "id": "chat-aborted", "text": sc.Name, "mode": "chat"}, &res)
	var tool map[string]any
	for _, m := range res.Messages {
		for _, p := range m.Parts {
			if p["type"] == "dynamic-tool" {
				tool = p
			}
		}
	}
	got := map[string]any{"state": tool["state"], "errorText": tool["errorText"], "toolName": tool["toolName"],
		"errors": len(res.Errors), "warnings": len(res.Warnings)}
	want := map[string]any{"state": "output-error", "errorText": reason, "toolName": "lookup", "errors": 0, "warnings": 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the tool part useChat holds (-want +got):\n%s\nerrors %v warnings %v", d, res.Errors, res.Warnings)
	}
}

// A failed or canceled turn fires useChat's onError once: resuming the
// settled chat restates the message and ends it with finish
// (finishReason error), not with a second error part.
func TestAISDKSettledFailureResumes(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	var sends []frontend.HarnessCase[frontend.AISDKResult]
	var resumes []frontend.HarnessCase[chunksResult]
	for _, final := range []a2a.TaskState{a2a.TaskStateFailed, a2a.TaskStateCanceled} {
		rig := newFrontRig(t, nil)
		sc := frontScript("aisdk-settled-"+string(final), final, "warehouse down", "")
		rig.agent.Register(sc)
		sends = append(sends, frontend.HarnessCase[frontend.AISDKResult]{Name: string(final) + "/send",
			Config: map[string]any{"api": rig.url + "/api/chat", "id": "chat-settled", "text": sc.Name, "mode": "chat", "resume": true},
			Check: func(t *testing.T, res *frontend.AISDKResult) {
				if res.Resumed == nil {
					t.Fatal("no resume")
				}
				var reasons []string
				for _, f := range res.Finishes {
					r := "<nil>"
					if f.FinishReason != nil {
						r = *f.FinishReason
					}
					reasons = append(reasons, r)
				}
				type summary struct {
					Errors   int
					Messages int
					Warnings []string
				}
				got := summary{Errors: len(res.Errors), Messages: res.Resumed.After}
				if len(res.Warnings) > 0 {
					got.Warnings = res.Warnings
				}
				if d := cmp.Diff(summary{Errors: 1, Messages: 2}, got); d != "" {
					t.Errorf("send, then resume the settled chat (-want +got):\n%s\nerrors %v finishes %v", d, res.Errors, reasons)
				}
			}})
		resumes = append(resumes, frontend.HarnessCase[chunksResult]{Name: string(final) + "/resumed",
			Config: map[string]any{"url": rig.url + "/api/chat/chat-settled/stream"},
			Check: func(t *testing.T, raw *chunksResult) {
				types := chunkTypes(raw.Chunks)
				if len(raw.Invalid) > 0 || !raw.Done || len(types) < 3 {
					t.Fatalf("resumed stream: invalid %v, done %v, chunks %v", raw.Invalid, raw.Done, types)
				}
				last := raw.Chunks[len(raw.Chunks)-1]
				if d := cmp.Diff(map[string]any{"type": "finish", "finishReason": "error"}, last); d != "" || types[0] != "start" || types[1] != "reset-step" {
					t.Errorf("resumed stream of a settled %s turn (-want +got last chunk):\n%s\nchunks %v", final, d, types)
				}
				for _, ty := range types {
					if ty == "error" {
						t.Errorf("the resumed stream carries an error part again: %v", types)
					}
				}
			}})
	}
	// The resumes read the chats the sends settled.
	frontend.RunCases(t, "aisdk.mjs", sends)
	frontend.RunCases(t, "aisdk-chunks.mjs", resumes)
}
