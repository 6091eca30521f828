package main

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

// Responding to a nested question: the colleague's turn ends input-required;
// the user's response — AG-UI's resume, useChat's next message — is the same
// task's next turn, nested under the call that asked, which gets the reply.

// story is the colleague's two turns: a question, then, for the answer
// "yes, ship it", the work and the reply.
func story() (ask, reply agenttest.Script) {
	ask = agenttest.Script{Name: "ship it?", Steps: agenttest.Realistic().Steps[:3],
		Final: a2a.TaskStateInputRequired, FinalText: "Ship the partial order?"}
	reply = agenttest.Realistic()
	reply.Name, reply.FinalText = "yes, ship it", "Shipped: 3 of 4 items."
	return ask, reply
}

// sentLog records the task id of each message the orchestrator sends to
// the agent ("" for a message that opens a new task), and of each task it
// cancels.
type sentLog struct {
	a2aclient.PassthroughInterceptor
	mu      sync.Mutex
	tasks   []string
	cancels []string
}

func (s *sentLog) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	if r, ok := req.Payload.(*a2a.SendMessageRequest); ok && r.Message != nil {
		s.mu.Lock()
		s.tasks = append(s.tasks, string(r.Message.TaskID))
		s.mu.Unlock()
	}
	if r, ok := req.Payload.(*a2a.CancelTaskRequest); ok {
		s.mu.Lock()
		s.cancels = append(s.cancels, string(r.ID))
		s.mu.Unlock()
	}
	return ctx, nil, nil
}

// tasks returns the agent's tasks that the orchestrator's messages made or
// answered (the only messages the agent gets): id → state, and how many
// messages opened a task.
func tasks(t *testing.T, f *fixture) (map[string]a2a.TaskState, int) {
	t.Helper()
	f.sent.mu.Lock()
	sent := slices.Clone(f.sent.tasks)
	f.sent.mu.Unlock()
	ctx := context.Background()
	c, err := client.New(ctx, f.agent.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := map[string]a2a.TaskState{}
	opened := 0
	for _, id := range sent {
		if id == "" {
			opened++
			continue
		}
		task, err := c.A2A().GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(id)})
		if err != nil {
			t.Fatal(err)
		}
		out[id] = task.Status.State
	}
	return out, opened
}

type aguiRun struct {
	Events  []map[string]any `json:"events"`
	Error   *string          `json:"error"`
	Pending []map[string]any `json:"pending"`
}

type aguiRuns struct {
	Runs     []aguiRun        `json:"runs"`
	Messages []map[string]any `json:"messages"`
}

// types are the event types of a run, in order.
func types(evs []map[string]any) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev["type"].(string))
	}
	return out
}

func TestAGUIRespondNestedQuestion(t *testing.T) {
	t.Parallel()
	ask, reply := story()
	f := start(t, ask, reply)
	var out aguiRuns
	runNode(t, map[string]any{"mode": "agui-runs", "url": f.url + "/ag-ui", "id": "thread-1", "text": "ship it?",
		"runs": []map[string]any{
			{"runId": "run-1"},
			{"runId": "run-2", "resume": "pending", "payload": "yes, ship it"},
			// The same answer again: the question was answered.
			{"runId": "run-3", "resume": map[string]int{"from": 0}, "payload": "yes, ship it"},
		}}, &out)
	if len(out.Runs) != 3 {
		t.Fatalf("runs = %d", len(out.Runs))
	}
	first, second := out.Runs[0], out.Runs[1]
	for i, r := range out.Runs[:2] {
		if r.Error != nil {
			t.Fatalf("run %d: the AG-UI client refused it: %s", i+1, *r.Error)
		}
	}
	if len(first.Pending) != 1 {
		t.Fatalf("run 1 left interrupts %v, want 1", first.Pending)
	}
	subs1, asks := subagents(t, &aguiOut{Events: first.Events})
	if len(asks) != 1 || len(subs1) != 1 {
		t.Fatalf("run 1: ask calls %q, sub-agents %v", asks, subs1)
	}
	var asked string
	for id := range subs1 {
		asked = id
	}
	// Run 2: no new call; a sub-agent of the call that asked, linked to
	// the one that asked; the call's result is the reply.
	subs2, newCalls := subagents(t, &aguiOut{Events: second.Events})
	if len(newCalls) != 0 {
		t.Errorf("run 2 opened calls %q, want none (the answer continues the call that asked)", newCalls)
	}
	var got []subagent
	var continues any
	for _, ev := range second.Events {
		if ev["type"] == "SUBAGENT_STARTED" {
			meta, _ := ev["metadata"].(map[string]any)
			a2aMeta, _ := meta["a2a"].(map[string]any)
			continues = a2aMeta["continues"]
		}
	}
	for _, s := range subs2 {
		got = append(got, *s)
	}
	tools, _ := expected(reply)
	want := []subagent{{Parent: asks[0], Tools: tools, Outcome: "success", ParentReply: "Shipped: 3 of 4 items."}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run 2's sub-agent (-want +got):\n%s", diff)
	}
	if continues != asked {
		t.Errorf("run 2's sub-agent continues %v, want the one that asked (%s)", continues, asked)
	}
	if len(second.Pending) != 0 {
		t.Errorf("run 2 left interrupts %v", second.Pending)
	}
	last := second.Events[len(second.Events)-1]
	if o, _ := last["outcome"].(map[string]any); last["type"] != "RUN_FINISHED" || o["type"] != "success" {
		t.Errorf("run 2 ended with %v", last)
	}
	// The client's messages: the reply is the tool message of the call
	// that asked in run 1.
	var results []string
	for _, m := range out.Messages {
		if m["role"] == "tool" && m["toolCallId"] == asks[0] {
			results = append(results, m["content"].(string))
		}
	}
	if diff := cmp.Diff([]string{"Shipped: 3 of 4 items."}, results); diff != "" {
		t.Errorf("the call's results in the client's messages (-want +got):\n%s", diff)
	}
	// Run 3 answers again: an error event, and nothing sent.
	third := out.Runs[2]
	if diff := cmp.Diff([]string{"RUN_STARTED", "RUN_ERROR"}, types(third.Events)); diff != "" {
		t.Errorf("run 3's events (-want +got):\n%s", diff)
	} else if code := third.Events[1]["code"]; code != "interrupt_answered" {
		t.Errorf("run 3's error code = %v, want interrupt_answered", code)
	}
	// One task for the story, completed.
	all, opened := tasks(t, f)
	if len(all) != 1 || opened != 1 {
		t.Fatalf("the orchestrator opened %d tasks and answered %v, want one task for the story", opened, all)
	}
	for id, state := range all {
		if state != a2a.TaskStateCompleted {
			t.Errorf("task %s is %s, want completed", id, state)
		}
		if want := "a2a:" + id + ":0"; first.Pending[0]["id"] != want {
			t.Errorf("run 1's interrupt %v, want %s", first.Pending[0]["id"], want)
		}
	}
}

func TestAGUIResumeUnknownInterrupt(t *testing.T) {
	t.Parallel()
	ask, reply := story()
	f := start(t, ask, reply)
	var out aguiRuns
	runNode(t, map[string]any{"mode": "agui-runs", "url": f.url + "/ag-ui", "id": "thread-2", "text": "ship it?",
		"runs": []map[string]any{
			{"runId": "run-1", "resume": []string{"a2a:no-such-task:0"}, "payload": "yes, ship it"},
		}}, &out)
	run := out.Runs[0]
	if diff := cmp.Diff([]string{"RUN_STARTED", "RUN_ERROR"}, types(run.Events)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if code := run.Events[1]["code"]; code != "interrupt_unknown" {
		t.Errorf("error code = %v, want interrupt_unknown", code)
	}
	if all, opened := tasks(t, f); len(all)+opened != 0 {
		t.Errorf("the orchestrator opened %d tasks and answered %v, want nothing sent (an answer is never a new question)", opened, all)
	}
}

type chatTurns struct {
	Messages []struct {
		Role  string `json:"role"`
		Parts []struct {
			Type       string          `json:"type"`
			ToolCallID string          `json:"toolCallId"`
			State      string          `json:"state"`
			Output     json.RawMessage `json:"output"`
			Input      map[string]any  `json:"input"`
			Text       string          `json:"text"`
		} `json:"parts"`
	} `json:"messages"`
	Errors []string `json:"errors"`
	Status string   `json:"status"`
}

func TestChatRespondNestedQuestion(t *testing.T) {
	t.Parallel()
	ask, reply := story()
	f := start(t, ask, reply)
	var out chatTurns
	runNode(t, map[string]any{"mode": "chat-turns", "api": f.url + "/api/chat", "id": "chat-1",
		"texts": []string{"ship it?", "yes, ship it"}}, &out)
	if len(out.Errors) > 0 || out.Status != "ready" {
		t.Fatalf("chat: status %q, errors %q", out.Status, out.Errors)
	}
	type call struct {
		ID, State, Verdict, Reply string
	}
	var roles []string
	var calls [][]call
	for _, m := range out.Messages {
		roles = append(roles, m.Role)
		if m.Role != "assistant" {
			continue
		}
		var cs []call
		for _, p := range m.Parts {
			if p.Type == "tool-ask_colleague" {
				v := decodeView(t, p.Output)
				cs = append(cs, call{p.ToolCallID, p.State, v.Verdict, v.Reply})
			}
		}
		calls = append(calls, cs)
	}
	if diff := cmp.Diff([]string{"user", "assistant", "user", "assistant"}, roles); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	id := calls[0][0].ID
	want := [][]call{
		{{id, "output-available", "input-required", ""}},
		// The answer's turn, in a tool part of the call that asked.
		{{id, "output-available", "completed", "Shipped: 3 of 4 items."}},
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("the tool parts (-want +got):\n%s", diff)
	}
	all, opened := tasks(t, f)
	if len(all) != 1 || opened != 1 {
		t.Fatalf("the orchestrator opened %d tasks and answered %v, want one task for the story", opened, all)
	}
	for id, state := range all {
		if state != a2a.TaskStateCompleted {
			t.Errorf("task %s is %s, want completed", id, state)
		}
	}
}
