package frontend

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// frontendsDir is the node project that runs the real AG-UI and AI SDK
// client libraries (pinned by its package-lock.json).
var frontendsDir = filepath.Join("..", "testdata", "frontends")

// frontendsNode returns the node binary with the harness's packages
// installed ([testdep.NPM]: npm ci from the lockfile, once).
func frontendsNode(t *testing.T) string {
	t.Helper()
	return testdep.NPM(t, frontendsDir, "the AG-UI and AI SDK client libraries' check of the relay")
}

// runHarness runs one harness script with cfg (JSON) and decodes what it
// printed into out.
func runHarness(t *testing.T, script string, cfg, out any) {
	t.Helper()
	if err := json.Unmarshal(harness(t, script, []any{cfg})[0], out); err != nil {
		t.Fatalf("node %s: %v", script, err)
	}
}

// harnessCase is one case of a test's harness run: its subtest's name, its
// config, and the check of what the script printed for it.
type harnessCase[R any] struct {
	Name   string
	Config any
	Check  func(t *testing.T, res *R)
}

// runCases runs script once for all of a test's cases (a node process
// costs more than most cases), then each case's check as a subtest.
func runCases[R any](t *testing.T, script string, cases []harnessCase[R]) {
	t.Helper()
	cfgs := make([]any, len(cases))
	for i, c := range cases {
		cfgs[i] = c.Config
	}
	outs := harness(t, script, cfgs)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var res R
			if err := json.Unmarshal(outs[i], &res); err != nil {
				t.Fatalf("node %s: %v", script, err)
			}
			c.Check(t, &res)
		})
	}
}

// harness runs script with cfgs, in turn, in the package's node process
// (frontends), and returns what it printed for each.
func harness(t *testing.T, script string, cfgs []any) []json.RawMessage {
	t.Helper()
	node := frontendsNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute+time.Duration(len(cfgs))*5*time.Second))
	defer cancel()
	outs := make([]json.RawMessage, len(cfgs))
	for i, cfg := range cfgs {
		out, err := frontends.Run(ctx, node, script, cfg)
		if err != nil {
			t.Fatalf("node %s, config %d: %v", script, i, err)
		}
		outs[i] = out
	}
	return outs
}

// frontends runs the scripts of frontendsDir for every test of the
// package, in one node process (TestMain stops it).
var frontends = testdep.NodeServer{Dir: frontendsDir}

// aguiMessage is an AG-UI message as @ag-ui/client holds it.
type aguiMessage struct {
	ID           string         `json:"id"`
	Role         string         `json:"role"`
	Content      any            `json:"content"`
	ToolCallID   string         `json:"toolCallId"`
	ActivityType string         `json:"activityType"`
	Metadata     map[string]any `json:"metadata"`
	ToolCalls    []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"toolCalls"`
}

// aguiRun is what agui.mjs prints of one run (runAgent or connectAgent).
type aguiRun struct {
	Events   []string `json:"events"`
	RunError *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"runError"`
	Finished *struct {
		Outcome string `json:"outcome"`
	} `json:"finished"`
	Error             *string          `json:"error"`
	Task              string           `json:"task"`
	Messages          []aguiMessage    `json:"messages"`
	PendingInterrupts []map[string]any `json:"pendingInterrupts"`
}

type aguiResult struct {
	Run      aguiRun  `json:"run"`
	Answer   *aguiRun `json:"answer"`
	Connect  *aguiRun `json:"connect"`
	Warnings []string `json:"warnings"`
}

// uiPart is a part of a UIMessage as the AI SDK assembles it.
type uiPart struct {
	Type             string         `json:"type"`
	ID               string         `json:"id"`
	Text             string         `json:"text"`
	State            string         `json:"state"`
	ToolName         string         `json:"toolName"`
	ToolCallID       string         `json:"toolCallId"`
	Output           map[string]any `json:"output"`
	Preliminary      *bool          `json:"preliminary"`
	ProviderExecuted bool           `json:"providerExecuted"`
	ProviderMetadata map[string]any `json:"providerMetadata"`
	Data             map[string]any `json:"data"`
}

type uiMessage struct {
	ID    string   `json:"id"`
	Role  string   `json:"role"`
	Parts []uiPart `json:"parts"`
}

// aisdkResult is what aisdk.mjs prints.
type aisdkResult struct {
	Messages []uiMessage `json:"messages"`
	Status   string      `json:"status"`
	Errors   []string    `json:"errors"`
	Finishes []struct {
		FinishReason *string `json:"finishReason"`
		IsError      bool    `json:"isError"`
	} `json:"finishes"`
	Resumed  *struct{ Before, After int } `json:"resumed"`
	Warnings []string                     `json:"warnings"`
}

// shown is one displayed item, as the tests compare them: what a person
// would see, read back from the library's state.
type shown struct {
	Kind string // thinking, text, error, tool, reply
	Text string // the text; for a tool its name
	// Status and Output are a tool call's final status and output.
	Status, Output string
}

// aguiShown reads the displayed items of a turn back from @ag-ui/client's
// messages: every message but the user's, in order. A tool call shows as
// its assistant message, its result (whose content must equal the live
// output's chunks) and its activity.
func aguiShown(t *testing.T, msgs []aguiMessage) []shown {
	t.Helper()
	var out []shown
	results := map[string]aguiMessage{}
	outputs := map[string]aguiMessage{}
	for _, m := range msgs {
		switch m.Role {
		case "tool":
			if _, dup := results[m.ToolCallID]; dup {
				t.Errorf("tool call %s has two results", m.ToolCallID)
			}
			results[m.ToolCallID] = m
		case "activity":
			outputs[m.ID] = m
		}
	}
	seenCalls := map[string]bool{}
	for _, m := range msgs {
		switch m.Role {
		case "user", "tool", "activity":
		case "reasoning":
			out = append(out, shown{Kind: "thinking", Text: fmt.Sprint(m.Content)})
		case "assistant":
			if len(m.ToolCalls) > 0 {
				for _, tc := range m.ToolCalls {
					if seenCalls[tc.ID] {
						t.Errorf("tool call %s appears twice", tc.ID)
					}
					seenCalls[tc.ID] = true
					s := shown{Kind: "tool", Text: tc.Function.Name}
					act, ok := outputs[tc.ID+"-output"]
					if !ok {
						t.Errorf("tool call %s has no output activity", tc.ID)
					}
					content, _ := act.Content.(map[string]any)
					s.Status, _ = content["status"].(string)
					var chunks strings.Builder
					list, _ := content["chunks"].([]any)
					for _, c := range list {
						chunks.WriteString(fmt.Sprint(c))
					}
					s.Output = chunks.String()
					if res, ok := results[tc.ID]; ok {
						if res.Content != s.Output {
							t.Errorf("tool call %s: result %q, live output %q", tc.ID, res.Content, s.Output)
						}
						st, _ := res.Metadata["a2a"].(map[string]any)["status"].(string)
						if st != s.Status {
							t.Errorf("tool call %s: result status %q, activity status %q", tc.ID, st, s.Status)
						}
					} else if s.Status != "running" {
						t.Errorf("tool call %s is %s but has no result", tc.ID, s.Status)
					}
					out = append(out, s)
				}
				continue
			}
			kind := "text"
			if a2a, ok := m.Metadata["a2a"].(map[string]any); ok && a2a["kind"] == "error" {
				kind = "error"
			}
			if strings.Contains(m.ID, "-reply") {
				kind = "reply"
			}
			out = append(out, shown{Kind: kind, Text: fmt.Sprint(m.Content)})
		default:
			t.Errorf("unexpected message role %q", m.Role)
		}
	}
	return out
}

// aisdkShown reads the displayed items back from an assistant UIMessage.
func aisdkShown(t *testing.T, m uiMessage) []shown {
	t.Helper()
	var out []shown
	calls := map[string]bool{}
	for _, p := range m.Parts {
		switch {
		case p.Type == "reasoning":
			out = append(out, shown{Kind: "thinking", Text: p.Text})
		case p.Type == "text":
			kind := "text"
			if a2a, ok := p.ProviderMetadata["a2a"].(map[string]any); ok && a2a["kind"] == "reply" {
				kind = "reply"
			}
			out = append(out, shown{Kind: kind, Text: p.Text})
		case p.Type == "data-a2a-error":
			out = append(out, shown{Kind: "error", Text: fmt.Sprint(p.Data["message"])})
		case p.Type == "dynamic-tool":
			if calls[p.ToolCallID] {
				t.Errorf("tool call %s appears twice", p.ToolCallID)
			}
			calls[p.ToolCallID] = true
			if !p.ProviderExecuted {
				t.Errorf("tool call %s is not provider-executed", p.ToolCallID)
			}
			s := shown{Kind: "tool", Text: p.ToolName, Status: "running"}
			if p.Output != nil {
				s.Status = fmt.Sprint(p.Output["status"])
				s.Output = fmt.Sprint(p.Output["output"])
				closed := s.Status != "running"
				if prelim := p.Preliminary != nil && *p.Preliminary; prelim == closed {
					t.Errorf("tool call %s: status %s with preliminary %v", p.ToolCallID, s.Status, prelim)
				}
			}
			out = append(out, s)
		case strings.HasPrefix(p.Type, "data-a2a-"):
		default:
			t.Errorf("unexpected part %q", p.Type)
		}
	}
	return out
}

// A script the node process cannot run is the run's error, with node's
// reason, and the process goes on serving the other tests.
func TestNodeServerCrash(t *testing.T) {
	t.Parallel()
	node := frontendsNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	defer cancel()
	_, err := frontends.Run(ctx, node, "nosuch.mjs", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), `no script "nosuch.mjs"`) {
		t.Fatalf("Run of an unknown script: %v, want its crash", err)
	}
	// The next run is answered: here a fetch that fails, which the script
	// does not catch.
	_, err = frontends.Run(ctx, node, "aisdk-chunks.mjs", map[string]any{"url": "http://127.0.0.1:1/", "method": "GET"})
	if err == nil || !strings.Contains(err.Error(), "aisdk-chunks.mjs: ") {
		t.Fatalf("Run after the crash: %v, want aisdk-chunks.mjs's own error", err)
	}
}
