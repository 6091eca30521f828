package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/terminal"
)

// sink renders one turn. update is called for every update of the stream,
// finish once at the end. Both return the write error of stdout, so that a
// closed pipe stops the command. close releases what the sink runs (the
// live view's ticker) whether finish was reached or not.
type sink interface {
	update(u client.Update) error
	finish(v merge.View, out terminal.Outcome, err error) error
	close()
}

// newSink picks the renderer for the -o flag and the terminal.
func (a *app) newSink() sink {
	switch a.output {
	case "ndjson":
		return &ndjsonSink{w: &jsonWriter{w: a.stdout}}
	case "json":
		return &jsonSink{w: &jsonWriter{w: a.stdout}}
	}
	if a.isTTY(a.stdout) {
		s := newLiveSink(a.stdout, a.useColor(), a.timestamps, a.now, a.size)
		s.caps = a.caps()
		return s
	}
	return &lineSink{w: a.stdout, color: a.useColor(), timestamps: a.timestamps}
}

// ---- append-only text (stdout is not a terminal) ----

// lineSink prints one line per applied block and per tool status change,
// flushed at once, without ANSI codes unless --color=always.
type lineSink struct {
	w          io.Writer
	color      bool
	timestamps bool
}

func (s *lineSink) close() {}

func (s *lineSink) update(u client.Update) error {
	if u.Type != client.UpdateProgress || u.Change.Result != merge.Applied {
		return nil
	}
	var b strings.Builder
	if s.timestamps {
		b.WriteString(stamp(u.Timestamp))
		b.WriteByte(' ')
	}
	b.WriteString(blockLine(u.Change, u.Reading, s.color))
	b.WriteByte('\n')
	if t := u.Change.Tool; t != nil && u.Change.ToolStatusChanged && u.Reading.Envelope.Kind != envelope.KindToolCall {
		if s.timestamps {
			b.WriteString(stamp(u.Timestamp))
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "tool %s %s: %s\n", printable(t.Tool), printable(t.Key), paint(s.color, toolColor(t.Status), string(t.Status)))
	}
	_, err := io.WriteString(s.w, b.String())
	return err
}

func (s *lineSink) finish(v merge.View, out terminal.Outcome, err error) error {
	var b strings.Builder
	for _, t := range v.ToolCalls {
		if t.Status == merge.ToolUnfinished {
			fmt.Fprintf(&b, "tool %s %s: %s\n", printable(t.Tool), printable(t.Key), paint(s.color, toolColor(t.Status), string(t.Status)))
		}
	}
	b.WriteString(verdictLine(out, err, s.color))
	_, werr := io.WriteString(s.w, b.String())
	return werr
}

// blockLine is the one-line rendering of an applied block.
func blockLine(c merge.Change, r envelope.Reading, color bool) string {
	e := r.Envelope
	var b strings.Builder
	if r.Fallback {
		b.WriteString("  ~ ")
	} else {
		fmt.Fprintf(&b, "%3d ", e.Seq)
	}
	switch p := e.Payload.(type) {
	case envelope.Thinking:
		b.WriteString(paint(color, dim, "thinking: "+oneLine(p.Text, 160)))
	case envelope.ToolCall:
		fmt.Fprintf(&b, "tool_call %s", printable(p.Tool))
		if e.StreamKey != "" {
			fmt.Fprintf(&b, " [%s]", printable(e.StreamKey))
		}
		fmt.Fprintf(&b, " %s", paint(color, statusColor(e.Status), string(e.Status)))
	case envelope.ToolOutputAppend:
		// Every line of the chunk, each under the tool's name: output is
		// what a tail -f user came for.
		for i, l := range strings.Split(strings.TrimRight(p.Chunk, "\n"), "\n") {
			if i > 0 {
				b.WriteString("\n    ")
			}
			fmt.Fprintf(&b, "%s | %s", printable(p.Tool), oneLine(l, 400))
		}
	case envelope.Text:
		b.WriteString(oneLine(p.Text, 200))
		if r.Fallback && r.Reason != envelope.ReasonNoEnvelope {
			fmt.Fprintf(&b, " (fallback: %s)", r.Reason)
		}
	case envelope.ErrorPayload:
		b.WriteString(paint(color, red, "error: "+oneLine(p.Message, 200)))
	}
	if c.Late {
		b.WriteString(" (late)")
	}
	return b.String()
}

// verdictLine is the last line: what the terminal state says.
func verdictLine(out terminal.Outcome, err error, color bool) string {
	switch {
	case err == nil && out.Interrupt != nil:
		q := out.Interrupt.Question
		if q == "" {
			q = out.Interrupt.Text
		}
		label := "input required"
		if out.State == a2a.TaskStateAuthRequired {
			label = "auth required"
		}
		s := paint(color, yellow, "? "+label) + ": " + printable(q) + "\n"
		for _, it := range out.Interrupt.Items {
			s += fmt.Sprintf("  - %s (%s): %s\n", printable(it.ToolName), printable(it.ToolCallID), printable(it.Message))
		}
		return s + fmt.Sprintf("  answer on task %s\n", printable(string(out.TaskID)))
	case err == nil:
		s := paint(color, green, "✓ completed")
		if out.Text != "" {
			s += ": " + printable(out.Text)
		}
		s += "\n"
		for _, art := range out.Artifacts {
			s += fmt.Sprintf("  artifact %s: %s\n", printable(artifactName(art)), oneLine(artifactText(art), 200))
		}
		return s
	case errors.As(err, new(*client.IncompleteError)):
		return paint(color, red, "✗ incomplete") + ": " + errText(err) + "\n"
	case codeFor(out, err) == exitCtrlC:
		return paint(color, red, "✗ stopped") + " before the turn ended: " + errText(err) + "\n"
	}
	label := "failed"
	switch out.State {
	case a2a.TaskStateCanceled:
		label = "canceled"
	case a2a.TaskStateRejected:
		label = "rejected"
	}
	if out.Err == nil || out.Class != terminal.ClassTerminal {
		return paint(color, red, "✗ error") + ": " + errText(err) + "\n"
	}
	reason := out.Text
	if reason == "" {
		reason = "(no reason given)"
	}
	return paint(color, red, "✗ "+label) + ": " + printable(reason) + "\n"
}

func artifactName(a *a2a.Artifact) string {
	if a.Name != "" {
		return a.Name
	}
	return string(a.ID)
}

func artifactText(a *a2a.Artifact) string {
	var parts []string
	for _, p := range a.Parts {
		if t := p.Text(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return strings.Repeat(" ", len(time.RFC3339))
	}
	return t.UTC().Format(time.RFC3339)
}

// oneLine folds s to its first line, at most max runes, made printable.
func oneLine(s string, max int) string {
	s = printable(s)
	folded := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, folded = s[:i], true
	}
	if r := []rune(s); len(r) > max {
		s, folded = string(r[:max]), true
	}
	if folded {
		s += "…"
	}
	return s
}

// ---- NDJSON ----

// ndjsonSink prints one JSON object per applied op, then a result line.
// The schema is documented in README.md (“NDJSON output”). Every op line
// carries "ts", whatever --timestamps says: a script can ignore a field,
// not recover one.
type ndjsonSink struct {
	w io.Writer
}

// forwarded reports whether u carries an op for a front end: an applied
// block, or the seal that comes with the settling state.
func forwarded(u client.Update) bool {
	switch {
	case u.Type == client.UpdateProgress:
		return u.Change.Result == merge.Applied
	case u.Type == client.UpdateState:
		return u.Change.Op.Type == merge.OpSeal
	}
	return false
}

// ndjsonLine is a merge op's JSON plus the timestamp of the update that
// caused it. merge.Op has its own MarshalJSON, so embedding it in a struct
// would promote that method and silently drop every other field: the "ts"
// member is spliced into the op's object instead.
func ndjsonLine(u client.Update) ([]byte, error) {
	b, err := json.Marshal(u.Change.Op)
	if err != nil {
		return nil, err
	}
	if u.Timestamp.IsZero() || len(b) < 2 || b[len(b)-1] != '}' {
		return b, nil
	}
	ts, err := json.Marshal(u.Timestamp.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return nil, err
	}
	b = append(b[:len(b)-1], `,"ts":`...)
	b = append(b, ts...)
	return append(b, '}'), nil
}

func (s *ndjsonSink) close() {}

func (s *ndjsonSink) update(u client.Update) error {
	if !forwarded(u) {
		return nil
	}
	b, err := ndjsonLine(u)
	if err != nil {
		return err
	}
	_, err = s.w.Write(append(b, '\n'))
	return err
}

func (s *ndjsonSink) finish(v merge.View, out terminal.Outcome, err error) error {
	return writeJSONLine(s.w, newResult(v, out, err))
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// result is the final line of -o ndjson and the "outcome" of -o json.
type result struct {
	Type      string           `json:"type"`
	Task      string           `json:"task"`
	Context   string           `json:"context,omitempty"`
	State     string           `json:"state"`
	Verdict   string           `json:"verdict"`
	Reply     string           `json:"reply,omitempty"`
	Error     string           `json:"error,omitempty"`
	Artifacts []resultArtifact `json:"artifacts,omitempty"`
	Interrupt *resultInterrupt `json:"interrupt,omitempty"`
	Counters  merge.Counters   `json:"counters"`
	ExitCode  int              `json:"exitCode"`
}

// resultInterrupt is what an interrupted turn asks: the question (the
// runtime's _interrupt.message, else the status message's text) and the
// tool calls waiting for the answer. Its own type, not terminal.Interrupt,
// so that the schema is camelCase and stable, without the raw message.
type resultInterrupt struct {
	Question string                `json:"question"`
	Items    []resultInterruptItem `json:"items,omitempty"`
}

type resultInterruptItem struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	Message    string `json:"message"`
}

func newResultInterrupt(in *terminal.Interrupt) *resultInterrupt {
	r := &resultInterrupt{Question: in.Question}
	if r.Question == "" {
		r.Question = in.Text
	}
	for _, it := range in.Items {
		r.Items = append(r.Items, resultInterruptItem{ToolCallID: it.ToolCallID, ToolName: it.ToolName, Message: it.Message})
	}
	return r
}

type resultArtifact struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	Text string `json:"text,omitempty"`
}

func newResult(v merge.View, out terminal.Outcome, err error) result {
	r := result{Type: "result", Task: string(out.TaskID), Context: out.ContextID, State: string(out.State),
		Reply: out.Text, Counters: v.Counters, ExitCode: codeFor(out, err)}
	if r.Task == "" {
		r.Task = v.Task
	}
	if out.State == "" {
		r.State = a2a.TaskStateUnspecified.String()
	}
	switch r.ExitCode {
	case exitOK:
		r.Verdict = "completed"
	case exitInterrupted:
		// The status message of an interrupt is a question, not a reply.
		r.Verdict = "interrupted"
		r.Reply = ""
		if out.Interrupt != nil {
			r.Interrupt = newResultInterrupt(out.Interrupt)
		}
	case exitFailed:
		r.Verdict = strings.ToLower(strings.TrimPrefix(string(out.State), "TASK_STATE_"))
	default:
		r.Verdict = "incomplete"
	}
	if err != nil {
		r.Error = peerData(err.Error())
		r.Reply = ""
	}
	for _, a := range out.Artifacts {
		r.Artifacts = append(r.Artifacts, resultArtifact{ID: string(a.ID), Name: a.Name, Text: artifactText(a)})
	}
	return r
}

// ---- one JSON document ----

type jsonSink struct{ w io.Writer }

func (s *jsonSink) update(client.Update) error { return nil }

func (s *jsonSink) close() {}

func (s *jsonSink) finish(v merge.View, out terminal.Outcome, err error) error {
	doc := struct {
		View    merge.View `json:"view"`
		Outcome result     `json:"outcome"`
	}{View: v, Outcome: newResult(v, out, err)}
	bw := bufio.NewWriter(s.w)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return bw.Flush()
}
