package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/chaintest"
)

// A chain with two Go hops: the orchestrator asks A, A asks B, B asks the
// peer C (chaintest's script, whose search has a lookup under it that C
// forwarded itself). A and B are Go agents using emit and client.Forward
// (chaintest.Hop). Every hop can be cut — orchestrator→A, A→B, B→C — and
// the browser's connection too.

// twoHopCuts are the cuts each test runs with: after that many events on
// the orchestrator→A, A→B and B→C hops (0: none).
var twoHopCuts = []struct{ a, b, c int }{{0, 0, 0}, {3, 0, 0}, {0, 3, 0}, {0, 0, 4}, {3, 3, 4}}

// startTwoHops serves the orchestrator in front of A → B → C, cut as told.
func startTwoHops(t *testing.T, cutA, cutB, cutC int) string {
	t.Helper()
	retry := client.WithRetry(8, time.Millisecond, 20*time.Millisecond)
	newAgent := func(opt agenttest.Option) *agenttest.Agent {
		a, err := agenttest.New(opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a.Close() })
		return a
	}
	c := newAgent(agenttest.WithScripts(chaintest.Script()))
	b := newAgent(agenttest.WithExecutor(chaintest.Hop("B", c.URL, retry)))
	a := newAgent(agenttest.WithExecutor(chaintest.Hop("A", b.URL, retry)))
	for agent, n := range map[*agenttest.Agent]int{a: cutA, b: cutB, c: cutC} {
		if n > 0 {
			agent.CutAfter(n, true)
		}
	}
	return serveFor(t, a.URL)
}

// AG-UI: a sub-agent inside a sub-agent — A's, B's inside it, C's inside
// B's — with C's tool calls attributed to the innermost, across cuts on
// every hop and two at the browser (the client reconnects).
func TestAGUIChainTwoGoHops(t *testing.T) {
	t.Parallel()
	for _, cut := range twoHopCuts {
		t.Run(fmt.Sprintf("cutA=%d,cutB=%d,cutC=%d", cut.a, cut.b, cut.c), func(t *testing.T) {
			t.Parallel()
			url := startTwoHops(t, cut.a, cut.b, cut.c)
			var out cutsOut
			runNode(t, map[string]any{"mode": "agui-cuts", "url": url + "/ag-ui", "runUrl": url + "/ag-ui/threads/{thread}/runs/{run}",
				"id": "thread-1", "text": "where is order 42?", "cuts": []int{14, 9}}, &out)
			var events []map[string]any
			for i, c := range out.Connections {
				if c.Error != nil {
					t.Fatalf("connection %d: the AG-UI client refused the run: %s", i, *c.Error)
				}
				for _, ev := range c.Raw {
					if ev.ID == nil {
						continue // a reconnect's prelude
					}
					var m map[string]any
					if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
						t.Fatal(err)
					}
					events = append(events, m)
				}
			}
			if len(out.Connections) < 2 {
				t.Errorf("connections = %d: the browser was never cut", len(out.Connections))
			}
			want := []aguiLevel{
				{Under: "ask_colleague", Depth: 1, Tools: []string{"ask_colleague"}, Texts: []string{"A: asking a colleague"}, Outcome: "success"},
				{Under: "ask_colleague", Depth: 2, Tools: []string{"ask_colleague"}, Texts: []string{"B: asking a colleague"}, Outcome: "success"},
				{Under: "ask_colleague", Depth: 3, Tools: []string{"search"}, Texts: []string{"C: which order?", "C: found it"}, Outcome: "success"},
				{Under: "search", Depth: 4, Tools: []string{"lookup"}, Outcome: "success"},
			}
			if diff := cmp.Diff(want, aguiLevels(t, events)); diff != "" {
				t.Errorf("the sub-agents (-want +got):\n%s", diff)
			}
			var reply string
			for _, m := range out.Messages {
				if m["role"] == "tool" && m["subagentRunId"] == nil {
					reply, _ = m["content"].(string)
				}
			}
			if want := "A: B: " + chaintest.Reply; reply != want {
				t.Errorf("the orchestrator's call's result = %q, want %q", reply, want)
			}
		})
	}
}

// useChat: C's calls under B's ask_colleague item, B's under A's, in the
// final view — and the same message for a page that comes back after the
// turn ended — across cuts on every hop.
func TestChatChainTwoGoHops(t *testing.T) {
	t.Parallel()
	for _, cut := range twoHopCuts {
		t.Run(fmt.Sprintf("cutA=%d,cutB=%d,cutC=%d", cut.a, cut.b, cut.c), func(t *testing.T) {
			t.Parallel()
			url := startTwoHops(t, cut.a, cut.b, cut.c)
			var out struct {
				Errors   []string         `json:"errors"`
				First    []map[string]any `json:"first"`
				Messages []map[string]any `json:"messages"`
			}
			runNode(t, map[string]any{"mode": "after", "api": url + "/api/chat", "id": "chat-1", "text": "where is order 42?"}, &out)
			if len(out.Errors) > 0 {
				t.Fatalf("chat errors: %q", out.Errors)
			}
			want := []chatItem{
				{What: "text A: asking a colleague"},
				{What: "tool ask_colleague"},
				{What: "text B: asking a colleague", Under: "tool ask_colleague", Depth: 1},
				{What: "tool ask_colleague", Under: "tool ask_colleague", Depth: 1},
				{What: "thinking C: which order?", Under: "tool ask_colleague", Depth: 2},
				{What: "tool search", Under: "tool ask_colleague", Depth: 2},
				{What: "tool lookup", Under: "tool search", Depth: 3},
				{What: "text C: found it", Under: "tool ask_colleague", Depth: 2},
			}
			for name, msgs := range map[string][]map[string]any{"the page that watched": out.First, "the page back after the end": out.Messages} {
				if len(msgs) != 2 {
					t.Fatalf("%s: %d messages, want the user's and the answer", name, len(msgs))
				}
				var final json.RawMessage
				for _, p := range msgs[1]["parts"].([]any) {
					if p := p.(map[string]any); p["type"] == "tool-ask_colleague" && p["state"] == "output-available" {
						final, _ = json.Marshal(p["output"])
					}
				}
				if final == nil {
					t.Fatalf("%s: no final output of the call", name)
				}
				got, version := chatTree(t, final)
				if diff := cmp.Diff(want, got); diff != "" || version != 2 {
					t.Errorf("%s: schemaVersion %d; the final view's tree (-want +got):\n%s", name, version, diff)
				}
			}
		})
	}
}
