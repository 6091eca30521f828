package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/termtext"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// sink renders one turn. update is called for every update of the stream,
// finish once at the end. Both return the write error of stdout, so that a
// closed pipe stops the command. close releases what the sink runs (the
// live view's ticker) whether finish was reached or not.
type sink interface {
	update(u client.Update) error
	finish(v schema.View, out terminal.Outcome, err error) error
	close()
}

// newSink picks the renderer of st for the -o flag and the terminal.
func (a *app) newSink(st *client.Stream) sink {
	switch a.output {
	case "ndjson":
		f := newLineWriter(a.stdout)
		return &ndjsonSink{w: f, flush: f}
	case "json":
		return &jsonSink{w: termtext.NewJSONWriter(a.stdout)}
	}
	if a.isTTY(a.stdout) {
		s := newLiveSink(a.stdout, st.View, a.useColor(), a.timestamps, a.now, a.size)
		s.notices = a.stderr
		if a.tailLines > 0 {
			s.tail = a.tailLines
		}
		a.setLive(s)
		return s
	}
	return &lineSink{w: a.stdout, errw: a.stderr, color: a.useColor(), timestamps: a.timestamps}
}

// ---- append-only text (stdout is not a terminal) ----

// lineSink prints one line per applied block and per tool status change,
// flushed at once, without ANSI codes unless --color=always.
type lineSink struct {
	w          io.Writer
	errw       io.Writer // stderr: where an error (not a verdict) goes
	color      bool
	timestamps bool
	nest       lineNesting
}

func (s *lineSink) close() {}

func (s *lineSink) update(u client.Update) error {
	if u.Type != client.UpdateProgress || u.Change.Effect != merge.Applied {
		return nil
	}
	var b strings.Builder
	if s.timestamps {
		b.WriteString(stamp(u.Timestamp))
		b.WriteByte(' ')
	}
	b.WriteString(s.nest.indent(u.Reading.Envelope, blockLine(u.Change, u.Reading, s.color)))
	b.WriteByte('\n')
	if t := u.Change.Tool; t != nil && u.Change.ToolStatusChanged && u.Reading.Envelope.Kind != envelope.KindToolCall {
		if s.timestamps {
			b.WriteString(stamp(u.Timestamp))
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "tool %s %s: %s\n", termtext.Printable(t.Tool), termtext.Printable(t.Key), paint(s.color, toolColor(t.Status), string(t.Status)))
	}
	_, err := io.WriteString(s.w, b.String())
	return err
}

func (s *lineSink) finish(v schema.View, out terminal.Outcome, err error) error {
	var b strings.Builder
	for _, t := range v.ToolCalls {
		if t.Status == schema.ToolUnfinished {
			fmt.Fprintf(&b, "tool %s %s: %s\n", termtext.Printable(t.Tool), termtext.Printable(t.Key), paint(s.color, toolColor(t.Status), string(t.Status)))
		}
	}
	line := verdictLine(out, err, s.color)
	if isErrorLine(out, err) {
		_, _ = io.WriteString(s.errw, line)
	} else {
		b.WriteString(line)
	}
	_, werr := io.WriteString(s.w, b.String())
	return werr
}

// isErrorLine says whether the last line reports an error rather than a
// verdict of the turn: a task the agent does not know, a call that failed
// before any turn. Errors go to stderr; verdicts — completed, failed,
// canceled, rejected, input-required, and incomplete or stopped, which
// say how far the turn got — to stdout.
func isErrorLine(out terminal.Outcome, err error) bool {
	if err == nil || errors.As(err, new(*client.IncompleteError)) || errors.As(err, new(*stoppedError)) {
		return false
	}
	return out.Err == nil || out.Verdict == schema.VerdictIncomplete
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
		fmt.Fprintf(&b, "tool_call %s", termtext.Printable(p.Tool))
		if e.StreamKey != "" {
			fmt.Fprintf(&b, " [%s]", termtext.Printable(e.StreamKey))
		}
		fmt.Fprintf(&b, " %s", paint(color, statusColor(e.Status), string(e.Status)))
	case envelope.ToolOutputAppend:
		// Every line of the chunk, each under the tool's name: output is
		// what a tail -f user came for.
		for i, l := range strings.Split(strings.TrimRight(p.Chunk, "\n"), "\n") {
			if i > 0 {
				b.WriteString("\n    ")
			}
			fmt.Fprintf(&b, "%s | %s", termtext.Printable(p.Tool), oneLine(l, 400))
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
		label := "input required"
		if out.State == a2a.TaskStateAuthRequired {
			label = "auth required"
		}
		s := paint(color, yellow, "? "+label) + ": " + termtext.Peer(q) + "\n"
		for _, it := range out.Interrupt.Items {
			s += fmt.Sprintf("  - %s (%s): %s\n", termtext.Peer(it.ToolName), termtext.Peer(it.ToolCallID), termtext.Peer(it.Message))
		}
		return s + fmt.Sprintf("  respond on task %s\n", termtext.Peer(string(out.TaskID)))
	case err == nil:
		s := paint(color, green, "✓ completed")
		if out.Reply != "" {
			// The reply is the answer: cut far later than a message.
			s += ": " + termtext.Printable(terminal.Cut(out.Reply, terminal.MaxReplyBytes))
		}
		s += "\n"
		for _, art := range out.Artifacts {
			s += fmt.Sprintf("  artifact %s: %s\n", termtext.Peer(artifactName(art)), oneLine(artifactText(art), 200))
		}
		return s
	case errors.As(err, new(*client.IncompleteError)):
		return paint(color, red, "✗ incomplete") + ": " + onceEach(errText(err)) + "\n"
	case errors.As(err, new(*stoppedError)):
		return paint(color, red, "✗ stopped") + " before the turn ended: " + errText(err) + "\n"
	}
	label := "failed"
	switch out.State {
	case a2a.TaskStateCanceled:
		label = "canceled"
	case a2a.TaskStateRejected:
		label = "rejected"
	}
	if out.Err == nil || out.Verdict == schema.VerdictIncomplete {
		return paint(color, red, "✗ error") + ": " + errText(err) + "\n"
	}
	reason := out.Reason
	if reason == "" {
		reason = "(no reason given)"
	}
	return paint(color, red, "✗ "+label) + ": " + termtext.Peer(reason) + "\n"
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

// oneLine folds s to its first line, at most max runes, made printable
// (termtext.Printable).
func oneLine(s string, max int) string {
	s = termtext.Printable(s)
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

// ndjsonSink prints one line per op the stream forwards — its blocks, seal
// and result, in the library's JSON form (PROTOCOL.md §4) — so that a
// script sees exactly what a front end gets. The last line is the result
// op with the process's exitCode added. Each line is written whole, made
// termtext.JSONSafe, in one Write.
type ndjsonSink struct {
	w io.Writer
	// flush, when set, is the buffer under w: finish and close flush it.
	flush *lineWriter
	// result is the stream's result op, held back for the last line.
	result *schema.Op
}

func (s *ndjsonSink) close() {
	if s.flush != nil {
		_ = s.flush.Close()
	}
}

func (s *ndjsonSink) update(u client.Update) error {
	op, ok := u.Op()
	switch {
	case !ok:
		return nil
	case op.Type == schema.OpResult:
		r := op // a copy for the result alone: &op would move every op to the heap
		s.result = &r
		return nil
	}
	// The op's own encoding, once: json.Marshal would compact and check
	// again what MarshalJSON wrote with encoding/json.
	b, err := op.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = s.w.Write(append(termtext.JSONSafe(b), '\n'))
	return err
}

func (s *ndjsonSink) finish(v schema.View, out terminal.Outcome, err error) error {
	b, err := resultLine(s.result, v, out, err)
	if err != nil {
		return err
	}
	if _, err = s.w.Write(append(termtext.JSONSafe(b), '\n')); err == nil && s.flush != nil {
		err = s.flush.Close()
	}
	return err
}

// resultLine is the result op of the turn plus "exitCode": the stream's
// own result op when it gave one, else (a stream stopped before it could)
// the same form built from the outcome. The stream's error, when the turn
// did not settle, is the result's error.
func resultLine(op *schema.Op, v schema.View, out terminal.Outcome, err error) ([]byte, error) {
	var r schema.Result
	if op != nil && op.Result != nil {
		r = *op.Result
	} else {
		r = out.Result()
		r.Counters = v.Counters
	}
	if err != nil && r.Verdict == schema.VerdictIncomplete {
		r.Error = err.Error()
	}
	// A peer's error message may be any size and quote a URL typed with its
	// password: cut and redacted like everything the CLI prints of a peer.
	r.Error = termtext.Data(r.Error)
	task, turn := v.Task, v.Turn
	if op != nil {
		task, turn = op.Task, op.Turn
	}
	if task == "" {
		task = string(out.TaskID)
	}
	b, merr := json.Marshal(schema.Op{Type: schema.OpResult, Task: task, Turn: turn, Result: &r})
	if merr != nil {
		return nil, merr
	}
	// schema.Op marshals itself, so a struct embedding it would drop every
	// field beside it: exitCode and schemaVersion are spliced into the
	// op's object.
	return fmt.Appendf(b[:len(b)-1], `,"exitCode":%d,"schemaVersion":%d}`, codeFor(out, err), outputSchemaVersion), nil
}

// outputSchemaVersion is the version of what -o ndjson and -o json print,
// carried by their result line (PROTOCOL.md §4, CHANGELOG.md): it changes
// when a consumer written for the previous one could misread the output
// (a field removed, renamed or given another meaning), not when a field is
// added.
const outputSchemaVersion = 1

// ---- one JSON document ----

type jsonSink struct {
	w      io.Writer
	result *schema.Op
}

func (s *jsonSink) update(u client.Update) error {
	if op, ok := u.Op(); ok && op.Type == schema.OpResult {
		s.result = &op
	}
	return nil
}

func (s *jsonSink) close() {}

// finish writes {"view": …, "outcome": …}: the merged view and the result
// line of -o ndjson.
func (s *jsonSink) finish(v schema.View, out terminal.Outcome, err error) error {
	res, rerr := resultLine(s.result, v, out, err)
	if rerr != nil {
		return rerr
	}
	// The document is written a piece at a time — each block, each tool
	// call — in the form json.Encoder with a two-space indent gives it,
	// never whole: a turn's view is up to its byte budget, and encoding
	// it in one piece held it several times over (compact, indented, the
	// writer's copy).
	bw := bufio.NewWriter(s.w)
	d := docWriter{w: bw}
	d.raw("{\n  \"view\": {\n")
	d.field("    ", "task", v.Task, false)
	d.field("    ", "turn", v.Turn, false)
	writeArray(&d, "    ", "blocks", v.Blocks)
	writeArray(&d, "    ", "toolCalls", v.ToolCalls)
	d.field("    ", "counters", v.Counters, false)
	d.field("    ", "sealed", v.Sealed, true)
	d.raw("  },\n")
	d.field("  ", "outcome", json.RawMessage(res), true)
	d.raw("}\n")
	if d.err != nil {
		return d.err
	}
	return bw.Flush()
}

// docWriter writes a JSON document in pieces, keeping the first error.
type docWriter struct {
	w   io.Writer
	err error
}

func (d *docWriter) raw(s string) {
	if d.err == nil {
		_, d.err = io.WriteString(d.w, s)
	}
}

// value writes v indented as at indent.
func (d *docWriter) value(indent string, v any) {
	if d.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, indent, "  ")
	if err != nil {
		d.err = err
		return
	}
	_, d.err = d.w.Write(b)
}

// field writes one member of an object at indent.
func (d *docWriter) field(indent, name string, v any, last bool) {
	d.raw(indent + strconv.Quote(name) + ": ")
	d.value(indent, v)
	if !last {
		d.raw(",")
	}
	d.raw("\n")
}

// writeArray writes a member whose value is a slice, an element at a time
// (null for a nil slice, as encoding/json writes it).
func writeArray[T any](d *docWriter, indent, name string, xs []T) {
	if len(xs) == 0 { // [] for none, never null, as schema.View's JSON
		d.raw(indent + strconv.Quote(name) + ": [],\n")
		return
	}
	d.raw(indent + strconv.Quote(name) + ": [\n")
	for i := range xs {
		d.raw(indent + "  ")
		d.value(indent+"  ", xs[i])
		if i < len(xs)-1 {
			d.raw(",")
		}
		d.raw("\n")
	}
	d.raw(indent + "],\n")
}
