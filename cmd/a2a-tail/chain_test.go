package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/chaintest"
	"github.com/tfrs/a2a-progress/internal/schematest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

// startChain starts B and C of the chain (client/chaintest); a2a-tail
// is A.
func startChain(t *testing.T) *chaintest.Chain {
	t.Helper()
	ch, err := chaintest.Start(client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ch.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return ch
}

// TestChainText: a2a-tail's lines show C's blocks under B's ask_colleague
// call, indented by depth, each once, with no cut and across cuts on
// either hop and both.
func TestChainText(t *testing.T) {
	t.Parallel()
	want := strings.Join([]string{
		"  1 B: asking a colleague",
		"  2 tool_call ask_colleague [ask-1] running",
		"  3 ↳ thinking: C: which order?",
		"  4 ↳ tool_call search [fw:ask-1:s1] running",
		"  5 ↳ search | order 42",
		"  6   ↳ tool_call lookup [fw:ask-1:fw%3As1%3Ad1] running",
		"  7   ↳ lookup | shipped",
		"  8   ↳ tool_call lookup [fw:ask-1:fw%3As1%3Ad1] done",
		"  9 ↳ search | status: shipped",
		" 10 ↳ tool_call search [fw:ask-1:s1] done",
		" 11 ↳ C: found it",
		" 12 tool_call ask_colleague [ask-1] done",
		"✓ completed: B: " + chaintest.Reply,
		"",
	}, "\n")
	for _, tc := range []struct {
		name         string
		cutAB, cutBC int
	}{
		{"uncut", -1, -1},
		{"cut-A-B", 5, -1},
		{"cut-B-C", -1, 4},
		{"cut-both", 7, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ch := startChain(t)
			if tc.cutAB >= 0 {
				ch.B.CutAfter(tc.cutAB, true)
			}
			if tc.cutBC >= 0 {
				ch.C.CutAfter(tc.cutBC, true)
			}
			a := testApp("")
			res := runCLI(t.Context(), a, "send", ch.B.URL, "where is my order?")
			if res.Code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
			}
			// A cut of A's own stream is reported; one of B's is B's to resume.
			if resumed := strings.Contains(res.Stderr, "resuming"); resumed != (tc.cutAB >= 0) {
				t.Errorf("stderr %q: resumed %v, want %v", res.Stderr, resumed, tc.cutAB >= 0)
			}
			if d := cmp.Diff(want, res.Stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
		})
	}
}

// TestChainLive: the live view draws C's calls inside B's ask_colleague
// call — each nested item under its call, indented by depth — with no cut
// and across a cut on each hop.
func TestChainLive(t *testing.T) {
	t.Parallel()
	want := []string{
		"·  B: asking a colleague",
		"✓  ask_colleague [ask-1] done",
		"   ┆ 💭 C: which order?",
		"   ┆ ✓  search [fw:ask-1:s1] done",
		"   ┆    │ order 42",
		"   ┆    │ status: shipped",
		"   ┆    ┆ ✓  lookup [fw:ask-1:fw%3As1%3Ad1] done",
		"   ┆    ┆    │ shipped",
		"   ┆ ·  C: found it",
		"✓ completed: B: " + chaintest.Reply,
	}
	for _, tc := range []struct {
		name         string
		cutAB, cutBC int
	}{
		{"uncut", -1, -1},
		{"cut-A-B", 6, -1},
		{"cut-B-C", -1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ch := startChain(t)
			if tc.cutAB >= 0 {
				ch.B.CutAfter(tc.cutAB, false)
			}
			if tc.cutBC >= 0 {
				ch.C.CutAfter(tc.cutBC, false)
			}
			out := &screenWriter{}
			a := newApp(strings.NewReader(""), out, &lockedBuffer{})
			a.isTTY = func(io.Writer) bool { return true }
			a.size = func() (int, int) { return 80, 40 }
			a.color = "never"
			if code := a.run(t.Context(), []string{"send", ch.B.URL, "where is my order?"}); code != exitOK {
				t.Fatalf("exit %d; stderr: %s", code, a.stderr.(*lockedBuffer).String())
			}
			got := out.screen()
			// The live view's header names the task and counts the whole
			// tree (a cut may add duplicates to the counters).
			if len(got) == 0 || !strings.HasPrefix(got[0], "task ") || !strings.Contains(got[0], " · completed · 12 blocks") {
				t.Fatalf("header %q, want \"task <id> · completed · 12 blocks…\"", got)
			}
			got = got[1:]
			for i, l := range got {
				// Elapsed times come from the clock.
				if j := strings.Index(l, " done "); j >= 0 {
					got[i] = l[:j+len(" done")]
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("final screen (-want +got):\n%s", d)
			}
		})
	}
}

// pageTree is a JS function of a list and an indent: a line per item of
// the list — a tool call's name, status and output tail, a block's text —
// each followed by the items nested in it, indented two more spaces.
const pageTree = `(function walk(ol, pad) {
	const out = [];
	for (const li of ol.children) {
		const own = (sel) => { const e = li.querySelector(sel); return e ? e.textContent : ""; };
		let line;
		if (li.classList.contains("tool")) {
			line = "tool " + own(".name") + " " + li.dataset.status + " | " + own(".tail").replace(/\n/g, "⏎");
		} else if (li.classList.contains("thinking")) {
			line = "thinking: " + own("pre");
		} else {
			line = li.textContent;
		}
		out.push(pad + line);
		const nested = [...li.children].find((c) => c.tagName === "OL");
		if (nested) out.push(...walk(nested, pad + "  "));
	}
	return out;
})`

// TestChainWebPage: the web page, in a real Chromium, shows C's calls
// inside B's ask_colleague call, C's forwarded lookup inside C's search,
// each item once — with no cut, with the page's event stream cut, and
// with a cut on either hop of the chain.
func TestChainWebPage(t *testing.T) {
	t.Parallel()
	testdep.ChromiumPath(t, "the web page's check in a real browser") // skips, or fails where required, before any setup
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(3*time.Minute))
	t.Cleanup(cancel) // after the parallel subtests
	bctx := browser.Tab(t, ctx, "the web page's check in a real browser")
	want := []string{
		"B: asking a colleague",
		"tool ask_colleague done | ",
		"  thinking: C: which order?",
		"  tool search done | order 42⏎status: shipped⏎",
		"    tool lookup done | shipped⏎",
		"  C: found it",
	}
	for _, tc := range []struct {
		name                  string
		cutPage, cutAB, cutBC int
	}{
		{"uncut", 0, -1, -1},
		{"cut-page", 5, -1, -1},
		{"cut-A-B", 0, 6, -1},
		{"cut-B-C", 0, -1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each in a tab of its own
			ch := startChain(t)
			if tc.cutAB >= 0 {
				ch.B.CutAfter(tc.cutAB, true)
			}
			if tc.cutBC >= 0 {
				ch.C.CutAfter(tc.cutBC, true)
			}
			c, err := client.New(ctx, ch.B.URL, client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			st, wasCut := runPage(t, ctx, bctx, c, "where is my order?", tc.cutPage)
			if wasCut != (tc.cutPage > 0) {
				t.Errorf("page stream cut: %v, want %v", wasCut, tc.cutPage > 0)
			}
			if d := cmp.Diff(want, st.Tree); d != "" {
				t.Errorf("the page's tree (-want +got):\n%s", d)
			}
			if st.Dups != 0 {
				t.Errorf("%d items shown twice", st.Dups)
			}
			if w := "Completed" + "B: " + chaintest.Reply; !strings.HasPrefix(st.Verdict, w) {
				t.Errorf("verdict %q, want it to start with %q", st.Verdict, w)
			}
		})
	}
}

// TestChainSchemas: a2a-tail's -o ndjson and -o json of the chain's turn
// validate against schema/, and the forwarded blocks and calls carry their
// parent there.
func TestChainSchemas(t *testing.T) {
	t.Parallel()
	sc := schematest.Compile(t, filepath.Join("..", "..", "schema"))
	ch := startChain(t)
	res := runCLI(t.Context(), testApp(""), "send", "-o", "ndjson", ch.B.URL, "where is my order?")
	if res.Code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	ndjsonLines(t, sc["op"], "ndjson", res.Stdout)
	if n := strings.Count(res.Stdout, `"parent":`); n != 9 {
		t.Errorf("%d block ops with a parent, want C's 9", n)
	}
	res = runCLI(t.Context(), testApp(""), "send", "-o", "json", ch.B.URL, "where is my order?")
	var doc struct {
		View    json.RawMessage `json:"view"`
		Outcome json.RawMessage `json:"outcome"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	schematest.MustValidate(t, sc["view"], "-o json view", doc.View)
	var v schema.View
	if err := json.Unmarshal(doc.View, &v); err != nil {
		t.Fatal(err)
	}
	var depths []int
	for _, c := range v.ToolCalls {
		depths = append(depths, c.Depth)
	}
	if d := cmp.Diff([]int{0, 1, 2}, depths); d != "" {
		t.Errorf("depths of the calls (-want +got):\n%s", d)
	}
}

// TestChainWebFrontEnds: `a2a-tail web`'s own AG-UI and useChat routes keep
// the chain's tree. In AG-UI, C's blocks are a sub-agent of B's
// ask_colleague call and the lookup C's search forwarded is a sub-agent
// inside that one (parentSubagentRunId), each tool call attributed to its
// own level; in the UI message stream every part of a forwarded block
// names its parent call and depth.
func TestChainWebFrontEnds(t *testing.T) {
	t.Parallel()
	ch := startChain(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	defer cancel()
	c, err := client.New(ctx, ch.B.URL, client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ws := newWebServer(ctx, client.LazyOf(c), webPolicy{auth: relay.AllowLoopback, tasks: relay.NewTaskSet(0)})
	srv := httptest.NewServer(ws)
	defer ws.Close()
	defer srv.Close()

	events := func(path, body string) []map[string]any {
		t.Helper()
		resp := postJSON(ctx, t, srv.URL+path, body)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
		var out []map[string]any
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "[DONE]" {
				var ev map[string]any
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("%s: event %q: %v", path, data, err)
				}
				out = append(out, ev)
			}
		}
		return out
	}
	str := func(ev map[string]any, k string) string { s, _ := ev[k].(string); return s }

	// AG-UI: the tree of sub-agents, and each tool call's level.
	agui := events("/ag-ui", `{"threadId":"th-chain","runId":"r1","messages":[{"id":"m1","role":"user","content":"where is my order?"}]}`)
	toolName := map[string]string{} // toolCallId → name
	type level struct{ Parent, ParentRun string }
	runs := map[string]level{} // subagentRunId → where it sits
	var calls []string         // "<name> in <the name of the call its sub-agent belongs to, or top>"
	for _, ev := range agui {
		switch str(ev, "type") {
		case "TOOL_CALL_START":
			toolName[str(ev, "toolCallId")] = str(ev, "toolCallName")
		case "SUBAGENT_STARTED":
			runs[str(ev, "subagentRunId")] = level{toolName[str(ev, "parentToolCallId")], str(ev, "parentSubagentRunId")}
		}
	}
	for _, ev := range agui {
		if str(ev, "type") != "TOOL_CALL_START" {
			continue
		}
		where := "top"
		if run := str(ev, "subagentRunId"); run != "" {
			where = runs[run].Parent
		}
		calls = append(calls, str(ev, "toolCallName")+" in "+where)
	}
	if d := cmp.Diff([]string{"ask_colleague in top", "search in ask_colleague", "lookup in search"}, calls); d != "" {
		t.Errorf("AG-UI tool calls by level (-want +got):\n%s", d)
	}
	var tree []string // "<parent call> < <the parent sub-agent's parent call>"
	for _, l := range runs {
		up := "top"
		if l.ParentRun != "" {
			up = runs[l.ParentRun].Parent
		}
		tree = append(tree, l.Parent+" < "+up)
	}
	slices.Sort(tree)
	if d := cmp.Diff([]string{"ask_colleague < top", "search < ask_colleague"}, tree); d != "" {
		t.Errorf("AG-UI sub-agents (-want +got):\n%s", d)
	}
	if last := agui[len(agui)-1]; str(last, "type") != "RUN_FINISHED" {
		t.Errorf("the AG-UI run ends with %v, want RUN_FINISHED", last)
	}

	// useChat: the tool parts of the forwarded calls name their parent
	// call and depth (toolMetadata.a2a), and so do the texts and thinking
	// of the forwarded blocks (providerMetadata.a2a).
	chat := events("/api/chat", `{"id":"chat-chain","messages":[{"id":"m2","role":"user","parts":[{"type":"text","text":"where is my order?"}]}]}`)
	chatName := map[string]string{} // toolCallId → name
	var placed []string
	for _, ev := range chat {
		if str(ev, "type") == "tool-input-start" {
			chatName[str(ev, "toolCallId")] = str(ev, "toolName")
		}
	}
	for _, ev := range chat {
		if str(ev, "type") != "tool-input-available" {
			continue
		}
		meta, _ := ev["toolMetadata"].(map[string]any)
		a2a, _ := meta["a2a"].(map[string]any)
		depth, _ := a2a["depth"].(float64)
		placed = append(placed, fmt.Sprintf("%s under %q at %v", str(ev, "toolName"), chatName[str(a2a, "parent")], depth))
	}
	var texts []string
	for _, ev := range chat {
		if t := str(ev, "type"); t == "text-start" || t == "reasoning-start" {
			meta, _ := ev["providerMetadata"].(map[string]any)
			a2a, _ := meta["a2a"].(map[string]any)
			depth, _ := a2a["depth"].(float64)
			texts = append(texts, fmt.Sprintf("%s under %q at %v", t, chatName[str(a2a, "parent")], depth))
		}
	}
	if d := cmp.Diff([]string{`text-start under "" at 0`, `reasoning-start under "ask_colleague" at 1`,
		`text-start under "ask_colleague" at 1`, `text-start under "" at 0`}, texts); d != "" {
		t.Errorf("useChat texts by place (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`ask_colleague under "" at 0`, `search under "ask_colleague" at 1`, `lookup under "search" at 2`}, placed); d != "" {
		t.Errorf("useChat tool parts by place (-want +got):\n%s\nevents: %v", d, chat)
	}
}
