package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/chaintest"
)

// The chain tests put the orchestrator in front of a chain (PROTOCOL.md
// §10): the orchestrator asks A (chaintest's B, a Go agent using emit and
// client.Forward), A asks its colleague (chaintest's C) in its own
// ask_colleague call, and C's search has a lookup under it that C forwarded
// itself. Both hops are cut mid-turn and resume.

// startChain serves the orchestrator in front of a chain cut after cutA
// events on the orchestrator→A hop and cutC on the A→C hop (0: no cut).
func startChain(t *testing.T, cutA, cutC int) string {
	t.Helper()
	ch, err := chaintest.Start(client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	if cutA > 0 {
		ch.B.CutAfter(cutA, true)
	}
	if cutC > 0 {
		ch.C.CutAfter(cutC, true)
	}
	return serveFor(t, ch.B.URL)
}

// chainCuts are the cuts each chain test runs with.
var chainCuts = []struct{ a, c int }{{0, 0}, {3, 0}, {0, 4}, {3, 4}}

// aguiLevel is one sub-agent as the AG-UI events show it: the tool call
// it runs under (by name), how deep it is, its tool calls and texts, and
// how it ended.
type aguiLevel struct {
	Under   string
	Depth   int
	Tools   []string
	Texts   []string
	Outcome string
}

func TestAGUIChain(t *testing.T) {
	t.Parallel()
	for _, cut := range chainCuts {
		t.Run(fmt.Sprintf("cutA=%d,cutC=%d", cut.a, cut.c), func(t *testing.T) {
			t.Parallel()
			url := startChain(t, cut.a, cut.c)
			var out aguiOut
			runNode(t, map[string]any{"mode": "agui", "url": url + "/ag-ui", "id": "thread-1", "text": "where is order 42?"}, &out)
			if out.Error != nil {
				t.Fatalf("the AG-UI client refused the run: %s", *out.Error)
			}
			got := aguiLevels(t, out.Events)
			want := []aguiLevel{
				{Under: "ask_colleague", Depth: 1, Tools: []string{"ask_colleague"}, Texts: []string{"B: asking a colleague"}, Outcome: "success"},
				{Under: "ask_colleague", Depth: 2, Tools: []string{"search"}, Texts: []string{"C: which order?", "C: found it"}, Outcome: "success"},
				{Under: "search", Depth: 3, Tools: []string{"lookup"}, Outcome: "success"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the sub-agents (-want +got):\n%s", diff)
			}
		})
	}
}

// chatItem is one item of the final sub-agent view: what it is, the tool
// or text of the item it belongs under, and its depth.
type chatItem struct {
	What, Under string
	Depth       int
}

func TestChatChain(t *testing.T) {
	t.Parallel()
	for _, cut := range chainCuts {
		t.Run(fmt.Sprintf("cutA=%d,cutC=%d", cut.a, cut.c), func(t *testing.T) {
			t.Parallel()
			url := startChain(t, cut.a, cut.c)
			var out struct {
				States [][]toolState `json:"states"`
				Errors []string      `json:"errors"`
			}
			runNode(t, map[string]any{"mode": "read", "api": url + "/api/chat", "id": "chat-1", "text": "where is order 42?"}, &out)
			if len(out.Errors) > 0 {
				t.Fatalf("reader errors: %q", out.Errors)
			}
			var final json.RawMessage
			for _, st := range out.States {
				if len(st) == 1 && st[0].State == "output-available" && !st[0].Preliminary {
					final = st[0].Output
				}
			}
			if final == nil {
				t.Fatalf("no final output; states: %+v", out.States)
			}
			got, version := chatTree(t, final)
			want := []chatItem{
				{What: "text B: asking a colleague"},
				{What: "tool ask_colleague"},
				{What: "thinking C: which order?", Under: "tool ask_colleague", Depth: 1},
				{What: "tool search", Under: "tool ask_colleague", Depth: 1},
				{What: "tool lookup", Under: "tool search", Depth: 2},
				{What: "text C: found it", Under: "tool ask_colleague", Depth: 1},
			}
			if diff := cmp.Diff(want, got); diff != "" || version != 2 {
				t.Errorf("schemaVersion %d; the final view's tree (-want +got):\n%s", version, diff)
			}
		})
	}
}

// aguiLevels reads the sub-agents of a run's events, in the order they
// started.
func aguiLevels(t *testing.T, events []map[string]any) []aguiLevel {
	t.Helper()
	toolName := map[string]string{}
	depth := map[string]int{"": 0}
	levels := map[string]*aguiLevel{}
	var order []string
	for _, ev := range events {
		sub, _ := ev["subagentRunId"].(string)
		switch ev["type"] {
		case "TOOL_CALL_START":
			toolName[ev["toolCallId"].(string)] = ev["toolCallName"].(string)
			if l := levels[sub]; l != nil {
				l.Tools = append(l.Tools, ev["toolCallName"].(string))
			}
		case "TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT":
			if l := levels[sub]; l != nil {
				l.Texts = append(l.Texts, ev["delta"].(string))
			}
		case "SUBAGENT_STARTED":
			parent, _ := ev["parentSubagentRunId"].(string)
			if _, ok := depth[parent]; !ok {
				t.Errorf("sub-agent %s starts under %q, which has not started", sub, parent)
			}
			depth[sub] = depth[parent] + 1
			levels[sub] = &aguiLevel{Under: toolName[ev["parentToolCallId"].(string)], Depth: depth[sub]}
			order = append(order, sub)
		case "SUBAGENT_FINISHED":
			levels[sub].Outcome = ev["outcome"].(map[string]any)["type"].(string)
		case "SUBAGENT_ERROR":
			levels[sub].Outcome = "error:" + ev["code"].(string)
		}
	}
	var got []aguiLevel
	for _, id := range order {
		got = append(got, *levels[id])
	}
	return got
}

// chatTree reads the items of a final sub-agent view: what each is, what
// it is under, how deep; and the view's schemaVersion. No toolCallId names
// two calls.
func chatTree(t *testing.T, final json.RawMessage) ([]chatItem, int) {
	t.Helper()
	var v struct {
		SchemaVersion int `json:"schemaVersion"`
		Items         []struct {
			ID, Kind, Text, Tool, ToolCallID, Parent string
			Depth                                    int
		} `json:"items"`
	}
	if err := json.Unmarshal(final, &v); err != nil {
		t.Fatal(err)
	}
	what := map[string]string{}
	callIDs := map[string]bool{}
	var got []chatItem
	for _, it := range v.Items {
		w := it.Kind + " " + it.Text
		if it.Kind == "tool" {
			w = "tool " + it.Tool
			if callIDs[it.ToolCallID] {
				t.Errorf("toolCallId %q names two calls", it.ToolCallID)
			}
			callIDs[it.ToolCallID] = true
		}
		what[it.ID] = w
		got = append(got, chatItem{What: w, Under: what[it.Parent], Depth: it.Depth})
	}
	return got, v.SchemaVersion
}
