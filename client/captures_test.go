package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/internal/projection"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/capture"
	"github.com/tfrs/a2a-progress/internal/recorded"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

var update = flag.Bool("update", false, "re-record the captures from the reference callee and rewrite every golden file")

// dir holds the captures: <wire>/<trajectory>.sse recorded from the
// reference callee, seed004/*.sse written by hand from the recorded runtime
// analysis (testdata/runtime/frames-analysis.txt), each with
// its <name>.golden.json next to it.
const dir = "../testdata/captures"

// queryConversation is the conversation id under which a /v1/query
// capture (a file named *query.sse) is replayed.
const queryConversation = "seed-004-conversation"

// wires are the recorded wire forms: every HTTP transport in both versions.
var wires = []struct {
	name string
	t    a2a.TransportProtocol
	v    a2a.ProtocolVersion
}{
	{"v1.0-jsonrpc", a2a.TransportProtocolJSONRPC, agenttest.V1},
	{"v1.0-rest", a2a.TransportProtocolHTTPJSON, agenttest.V1},
	{"v0.3-jsonrpc", a2a.TransportProtocolJSONRPC, agenttest.V0},
	{"v0.3-rest", a2a.TransportProtocolHTTPJSON, agenttest.V0},
}

// golden is what a capture's golden file holds: the View and the Outcome
// of its replay.
type golden struct {
	View    schema.View `json:"view"`
	Outcome outcome     `json:"outcome"`
	// Result is the stream's result op (the last op a front end gets).
	Result schema.Op `json:"result"`
}

// recordedAt is the status timestamp of every recorded event (see
// capture.Normalise).
var recordedAt = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// outcome is terminal.Outcome without the shared pointers.
type outcome struct {
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	State     a2a.TaskState   `json:"state"`
	Class     string          `json:"class"`
	Text      string          `json:"text,omitempty"`
	Artifacts []*a2a.Artifact `json:"artifacts,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
	Interrupt *interrupt      `json:"interrupt,omitempty"`
	Err       string          `json:"err,omitempty"`
}

// interrupt is the interrupt as the goldens record it: the state and the
// status message's text beside the question and items of the Outcome's
// schema.Interrupt (the goldens predate the move; Message stays null).
type interrupt struct {
	State    a2a.TaskState
	Message  *a2a.Message
	Text     string
	Question string
	Items    []schema.InterruptItem
}

// classOf is the verdict in the three words the goldens record.
func classOf(v schema.Verdict) string {
	switch v {
	case schema.VerdictIncomplete:
		return "in-progress"
	case schema.VerdictInputRequired, schema.VerdictAuthRequired:
		return "interrupted"
	}
	return "terminal"
}

func newOutcome(o terminal.Outcome) outcome {
	// The goldens' text is the final status message's, whatever the
	// verdict (Outcome.Reply is a completed turn's only).
	text := envelope.MessageText(o.Message)
	out := outcome{TaskID: string(o.TaskID), ContextID: o.ContextID, State: o.State, Class: classOf(o.Verdict),
		Text: text, Artifacts: o.Artifacts, Truncated: o.Truncated}
	if o.Interrupt != nil {
		// Question is the structured question, else the status text: the
		// goldens kept "" for the first when there was none.
		q := o.Interrupt.Question
		if q == text && !structured(o.Message) {
			q = ""
		}
		out.Interrupt = &interrupt{State: o.State, Text: text, Question: q, Items: o.Interrupt.Items}
	}
	if o.Err != nil {
		out.Err = o.Err.Error()
	}
	return out
}

// replay runs one capture through the pipeline a live stream takes.
func replay(t *testing.T, path string) golden {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events := recorded.Events(f, recorded.FormatAuto)
	if strings.HasSuffix(path, "query.sse") {
		events = projection.QueryEvents(f, queryConversation)
	}
	st := client.Replay(context.Background(), events)
	var res schema.Op
	for u := range st.Updates() {
		if op, ok := u.Op(); ok && op.Type == schema.OpResult {
			res = op
		}
	}
	o, _ := st.Outcome()
	g := golden{View: st.View(), Outcome: newOutcome(o), Result: res}
	// A block of an event without a status timestamp (an artifact update,
	// a query frame) is stamped when it is read; the recorded ones carry
	// the recording's. A query turn is named by a random request id.
	for i, b := range g.View.Blocks {
		if !b.At.Equal(recordedAt) {
			g.View.Blocks[i].At = time.Time{}
		}
	}
	if strings.HasPrefix(g.View.Turn, "query:") {
		g.View.Turn, g.Result.Turn = "query:<id>", "query:<id>"
	}
	return g
}

// TestCaptures replays every capture and compares its View and Outcome
// with the golden file next to it. With -update it first re-records the
// callee's captures, then rewrites every golden file.
func TestCaptures(t *testing.T) {
	if *update {
		record(t)
	}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sse") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(wires)*len(trajectories())+2 {
		t.Errorf("%d captures, want %d recorded and 2 by hand", len(paths), len(wires)*len(trajectories()))
	}
	for _, p := range paths {
		name, _ := filepath.Rel(dir, p)
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(replay(t, p), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			goldenPath := strings.TrimSuffix(p, ".sse") + ".golden.json"
			if *update {
				if err := os.WriteFile(goldenPath, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run go test ./client -run TestCaptures -update)", err)
			}
			// Both sides through the same decoder: the comparison is of
			// values, not of JSON spelling.
			var w, g golden
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatalf("%s: %v", goldenPath, err)
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("%s (-want +got):\n%s", goldenPath, diff)
			}
		})
	}
}

// record plays every trajectory over every wire against the reference
// callee, tees the streaming response and writes it, normalised, as a
// capture. It also checks that the capture replays to what the live stream
// gave: a recording that lost or changed something would fail here.
func record(t *testing.T) {
	s, err := agenttest.New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, sc := range trajectories() {
		s.Register(sc)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(time.Minute))
	defer cancel()
	for _, w := range wires {
		if err := os.MkdirAll(filepath.Join(dir, w.name), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, sc := range trajectories() {
			rec := &capture.Recorder{}
			cl, err := client.New(ctx, s.Endpoint(w.t, w.v).URL, client.WithTransport(w.t), client.WithProtocolVersion(w.v),
				client.WithHTTPClient(&http.Client{Transport: rec}))
			if err != nil {
				t.Fatal(err)
			}
			st, err := cl.SendText(ctx, sc.Name)
			if err != nil {
				t.Fatal(err)
			}
			for range st.Updates() {
			}
			o, _ := st.Outcome()
			live := golden{View: st.View(), Outcome: newOutcome(o)}
			_ = cl.Close()
			streams := rec.Streams()
			if len(streams) != 1 {
				t.Fatalf("%s/%s: %d streams recorded, want 1 (a cut?)", w.name, sc.Name, len(streams))
			}
			path := filepath.Join(dir, w.name, sc.Name+".sse")
			if err := os.WriteFile(path, capture.Normalise(streams[0].Body()), 0o644); err != nil {
				t.Fatal(err)
			}
			ids := cmpopts.IgnoreFields(outcome{}, "TaskID", "ContextID", "Artifacts", "Err")
			// Ids were normalised in the capture (fallbacks are "msg:<id>").
			renamed := cmpopts.IgnoreFields(schema.Key{}, "ID")
			if diff := cmp.Diff(live, replay(t, path), cmpopts.IgnoreFields(schema.View{}, "Task", "Turn"), cmpopts.IgnoreFields(schema.Block{}, "At"), ids, renamed); diff != "" {
				t.Errorf("%s: the capture does not replay to the live stream (-live +replay):\n%s", path, diff)
			}
		}
	}
}

// trajectories are the recorded scripts: the demo trajectory, one with
// every fault knob, a failed and an input-required end, and the recorded
// runtime's projection frames beside envelopes.
func trajectories() []agenttest.Script {
	faults := agenttest.Trajectory(30, agenttest.Named("faults"), agenttest.Reorder(2), agenttest.Duplicate(2), agenttest.SkipSeqs(2),
		agenttest.PlainText(2), agenttest.Oversize())
	failed := agenttest.Trajectory(10, agenttest.Named("failed"), agenttest.EndIn(a2a.TaskStateFailed))
	input := agenttest.Trajectory(10, agenttest.Named("input-required"), agenttest.EndIn(a2a.TaskStateInputRequired))
	input.FinalMeta = map[string]any{"_interrupt": map[string]any{"message": input.FinalText, "items": []any{
		map[string]any{"toolCallId": "call-2", "toolName": "fetch_page", "message": input.FinalText}}}}
	return []agenttest.Script{agenttest.Realistic(), faults, failed, input, projections()}
}

// projections sends the recorded runtime's frames (PROTOCOL.md §5.1) on the
// A2A stream of the callee:
// a member that completes, one that times out, a malformed frame, an
// ordinary artifact, and the reply.
func projections() agenttest.Script {
	frame := func(id, call string, seq int, phase, category string) agenttest.Step {
		ri := map[string]any{"kind": "remote_agent_invocation", "batchId": "batch-1", "toolCallId": call,
			"sequence": float64(seq), "target": "expense-review", "phase": phase, "latencyMs": float64(100 * seq)}
		if category != "" {
			ri["resultCategory"] = category
		}
		p := a2a.NewTextPart(phase)
		p.Metadata = map[string]any{projection.MetadataKey: ri}
		return agenttest.Step{Artifact: &a2a.TaskArtifactUpdateEvent{Artifact: &a2a.Artifact{ID: a2a.ArtifactID(id), Parts: a2a.ContentParts{p}}}}
	}
	bad := frame("bad", "call-3", 1, "RUNNING", "")
	bad.Artifact.Artifact.Parts[0].Metadata[projection.MetadataKey].(map[string]any)["sequence"] = "first"
	sc := agenttest.Trajectory(6, agenttest.Named("projections"), agenttest.StartSeq(100))
	steps := slices.Clone(sc.Steps)
	steps = slices.Insert(steps, 1, frame("p1", "call-1", 1, "RUNNING", ""), frame("p2", "call-2", 1, "QUEUED", ""))
	steps = slices.Insert(steps, 4, frame("p3", "call-2", 2, "RUNNING", ""), bad)
	steps = append(steps, frame("p4", "call-1", 2, "COMPLETED", "SUCCESS"), frame("p5", "call-2", 3, "TIMED_OUT", "TIMEOUT"))
	sc.Steps = steps
	sc.Artifacts = []*a2a.Artifact{{ID: "reply", Name: "reply", Parts: a2a.ContentParts{a2a.NewTextPart("approved: 8200")}}}
	return sc
}

// The hand-made seed004 captures are the frames of the recorded runtime
// analysis, byte for byte (modulo the blank line that ends the last
// event).
func TestSeedCapturesAreVerbatim(t *testing.T) {
	// The analysis of a runtime's mis-routed frames, verbatim, with the
	// frames it observed.
	seed, err := os.ReadFile("../testdata/runtime/frames-analysis.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"seed004/a2a.sse", "seed004/query.sse"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(seed, bytes.TrimRight(b, "\n")) {
			t.Errorf("%s is not a verbatim excerpt of the recorded analysis", name)
		}
	}
}

// The wire form does not show: each trajectory's four recordings replay to
// the same View and Outcome (ids aside, which differ per recording).
func TestEveryWireSameGolden(t *testing.T) {
	ids := cmp.Options{
		cmpopts.IgnoreFields(schema.View{}, "Task", "Turn"), cmpopts.IgnoreFields(schema.Block{}, "At"),
		cmpopts.IgnoreFields(schema.Key{}, "ID"),
		cmpopts.IgnoreFields(outcome{}, "TaskID", "ContextID", "Err"),
		cmpopts.IgnoreFields(a2a.Artifact{}, "ID"),
		cmpopts.IgnoreFields(schema.Op{}, "Task", "Turn"), cmpopts.IgnoreFields(schema.Result{}, "Context"),
	}
	for _, sc := range trajectories() {
		t.Run(sc.Name, func(t *testing.T) {
			var first golden
			for i, w := range wires {
				b, err := os.ReadFile(filepath.Join(dir, w.name, sc.Name+".golden.json"))
				if err != nil {
					t.Fatal(err)
				}
				var g golden
				if err := json.Unmarshal(b, &g); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = g
					continue
				}
				if diff := cmp.Diff(first, g, ids); diff != "" {
					t.Errorf("%s vs %s (-%[1]s +%[2]s):\n%s", wires[0].name, w.name, diff)
				}
			}
		})
	}
}

// structured reports whether m carries a structured interrupt question
// (_interrupt.message).
func structured(m *a2a.Message) bool {
	if m == nil {
		return false
	}
	in, _ := m.Metadata[terminal.InterruptMetadataKey].(map[string]any)
	q, _ := in["message"].(string)
	return q != ""
}
