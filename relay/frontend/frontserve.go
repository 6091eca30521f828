package frontend

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay/internal/sse"
	"github.com/tfrs/a2a-progress/schema"
)

// What the AG-UI and AI SDK encoders share: a relay serves them as formats
// of its task events endpoint and with its front-end endpoints
// (relay.Handler.AGUI, relay.Handler.Chat), through the Encoder contract of
// relay/internal/sse.

func newEventWriter(w http.ResponseWriter) *sse.EventWriter { return sse.NewEventWriter(w) }

// MaxRequestBytes bounds the body of a front end's request (a
// RunAgentInput, a chat request).
const MaxRequestBytes = 4 << 20

// frontStateBytes bounds what a front-end encoder keeps besides its
// Receiver, for the byte budgets: a record and an id per item (about 150
// bytes; 160 counted) for as many items as a turn has blocks
// (merge.DefaultMaxBlocks), the tool output it keeps (maxKeptOutputBytes),
// and a note per tool key (64 bytes counted, merge.DefaultMaxStreamKeys).
const frontStateBytes = merge.DefaultMaxBlocks*160 + maxKeptOutputBytes + merge.DefaultMaxStreamKeys*64

// StateBytes and SetBudget make a frontStream an sse.Budgeted: the relay
// reserves frontStateBytes of the task's budget for it and gives it the
// budget its Receiver charges.
func (s *frontStream) StateBytes() int64         { return frontStateBytes }
func (s *frontStream) SetBudget(b *merge.Budget) { s.budget = b }

// frontEncoder is what the AG-UI and AI SDK encoders share.
type frontEncoder interface {
	// sync emits what the client lacks to show view v (of its turn), and the
	// result once it is known.
	sync(v *schema.View, out *frontResult, emit func(map[string]any))
	// appendItem sends one item that the view adds at its end, where sync
	// would send the same: the client holds every earlier item.
	appendItem(it *frontItem, emit func(map[string]any))
	// growTool sends chunk (possibly "") as the next output of the running
	// tool call key and status as its status — running, or its close —
	// where sync would send the same, and reports whether it could (the
	// call is sent, running, within the output cap, its output kept).
	growTool(key, chunk string, status schema.ToolStatus, emit func(map[string]any)) bool
	// gapsNow tells the turn's count of missing seqs, where sync would
	// tell the same.
	gapsNow(n int64, emit func(map[string]any))
	// itemIDs are the encoder's ids of the turn it renders (nil before the
	// first sync).
	itemIDs() *frontIDs
	// done reports whether the encoder sent the run's end (the result).
	done() bool
	// restated counts the syncs that restated the whole view (a
	// resynchronisation): O(items) sent, which the render credit pays for.
	restated() int
}

// errFrontDone ends a front-end response once its run ended: the relay ends
// a response when its Encoder returns an error. The front ends' clients
// wait for the body to end, and the relay goes on with a turn whose result
// settles nothing (incomplete: a follow may still bring it to an end).
var errFrontDone = errors.New("relay: the front end's run ended")

// frontFeed drives one of the front-end encoders with ops: it keeps a
// Receiver of the ops it got and tells the encoder what changed. It does not
// know where the events go (an SSE response of the relay, or the
// orchestrator's own run for a nested sub-agent): every method takes the
// emit that writes them.
//
// A render — the view rebuilt and compared with what the client holds —
// costs O(blocks), so an op that changes the view only at its end is told
// without one: a live envelope with a seq above the turn's highest (one past
// a missing seq too: the gap count is carried along) that starts a text,
// thinking or error block or a new tool call, appends a chunk to a running
// call (with no seq missing since its last chunk: no gap marker), or closes
// a call the client holds. In order — the common case, and a turn past a
// cap that drops blocks — an op costs O(1) amortised (plus the call's
// output for the AI SDK, whose tool output restates the output so far).
//
// A late envelope that starts a text, thinking or error block or a new tool
// call is told at once too, out of place: the item is added after what the
// client holds, and the view owes the client a render that puts it in view
// order. Any other late op (a chunk, a close, a rename), and any op not
// told while such a render is owed, is paid for (see frontRenderRate), as
// is any render that restates the view: while the credit lasts it renders
// at once; past it, the render waits until the ops since have paid for it,
// and the client meanwhile holds every op told, without the ones the
// render owes (the degraded mode, PROTOCOL.md §9). The seal, the result, a
// new turn, the snapshot's end and the stream's end always render, so the
// client ends every turn with the exact view. An op in order that the view
// only extends with (a nested block, a fallback, a projection) renders at
// once for free: O(blocks) of CPU, nothing re-sent. A peer that sends
// everything late, in reverse, or each call's output before its tool_call
// therefore costs O(1) amortised per op in what is re-sent, plus one
// restatement per turn.
//
// Its memory is its Receiver's (bounded by merge.Caps, every turn charging
// budget when it is set — a relay subscriber's, under its task's — or each
// its own merge.DefaultMaxTurnBytes), the encoder's frontSent and ids (a
// record and an id per item, about 150 bytes; at most maxKeptOutputBytes of
// output) and a note per tool key: frontStateBytes in all, which a relay
// subscriber reserves from its task's budget.
type frontFeed struct {
	enc frontEncoder
	// budget, when set, is charged by recv for every turn it keeps.
	budget *merge.Budget
	// recv is made by the first op, which names the task.
	recv   *merge.Receiver
	inSnap bool
	// rendered is true once the encoder rendered turn.
	rendered bool
	turn     string
	// maxSeq is the highest envelope seq of turn's ops so far (hasSeq: one
	// was seen); keys are the tool keys and parents its ops named (at most
	// merge.DefaultMaxStreamKeys); settled: its
	// result op arrived.
	maxSeq  int64
	hasSeq  bool
	keys    map[string]keyNote
	settled bool
	// jumps counts the turn's ops that did not follow maxSeq at once: a
	// late envelope, one past a missing seq, a fallback or a projection.
	// Between two chunks of a call with no jump in between, the view has no
	// gap marker.
	jumps int64
	// gaps is the turn's count of missing seqs: the view's at the last
	// render, plus the seqs skipped by the ops told since.
	gaps int64
	// credit is what the ops applied paid for the renders that restate
	// the view or serve a late op, in items (frontRenderRate per op, at
	// most frontRenderBurst over the view's items; below zero, by at most
	// one render's items, after a restatement it could not pay for);
	// items is the count of the view's blocks and calls at the last render
	// (the next one's cost); owed: the client lacks, or holds out of
	// place, what a late op changed.
	credit, items int
	owed          bool
}

// A render costs O(blocks) and, when the view changed before what the
// client holds, restates it (AG-UI: a MESSAGES_SNAPSHOT; the AI SDK:
// reset-step and every part): neither protocol can insert a message or a
// part before others. A turn starts with frontRenderBurst items of
// credit; each applied op adds frontRenderRate, up to frontRenderBurst more
// than the view's items (blocks and calls). A render for a late op, or one
// that restated the view, spends the view's items: a late op's render
// waits while the credit is short of them, any other while it is below
// zero. So what a turn restates, and renders for late ops, costs at most
// frontRenderBurst plus frontRenderRate items per op, plus one render: a
// turn with few late ops or a small view renders each at once, one with
// many past the burst renders when the ops since the last render
// outnumber the view's items (the view at most doubles in between).
const (
	frontRenderRate  = 1
	frontRenderBurst = 1024
)

// keyNote is what frontFeed notes of a tool key.
type keyNote struct {
	// started: a tool_call block named the call; chunked: it has output,
	// whose last chunk arrived when the turn had jumps jumps.
	started, chunked bool
	jumps            int64
}

// apply merges op and tells the encoder what the client lacks.
func (s *frontFeed) apply(op *schema.Op, emit func(map[string]any)) {
	if s.recv == nil {
		s.recv = merge.NewReceiver(op.Task, merge.Caps{Budget: s.budget})
	}
	// A duplicate (a resumed upstream repeats what it backfills), a
	// conflict or a refused op changes nothing the client shows.
	if s.recv.Apply(*op) != merge.Applied {
		return
	}
	var skipped int64
	if s.inOrder(op) {
		skipped = op.Block.Key.Seq - s.maxSeq - 1
	}
	// A late envelope lands before the turn's highest seq: before what the
	// client holds.
	late := op.Type == schema.OpBlock && op.Turn == s.turn && op.Block.Source == schema.SourceEnvelope &&
		s.hasSeq && op.Block.Key.Seq < s.maxSeq
	told := false
	if key, chunk, status, ok := s.growable(op); ok {
		told = s.enc.growTool(key, chunk, status, emit)
	} else if it, ok := s.appendable(op); ok {
		s.enc.appendItem(it, emit)
		told = true
		// Told after what the client holds: out of place until a render.
		s.owed = s.owed || late
	}
	s.note(op)
	if op.Type == schema.OpResult && op.Turn == s.turn {
		s.settled = true
	}
	s.credit = min(s.credit+frontRenderRate, s.items+frontRenderBurst)
	switch {
	case told:
		if skipped > 0 {
			s.gaps += skipped
			s.enc.gapsNow(s.gaps, emit)
		}
		if s.owed && !s.inSnap && s.credit >= s.items {
			s.paidRender(emit)
		}
	case s.inSnap:
	case op.Type != schema.OpBlock || !s.rendered:
		// The seal, the result, a new turn: always.
		s.freeRender(emit)
	case !(late || s.owed) && s.credit >= 0:
		// An op in order that the client's view most often only extends
		// with (a nested block, a fallback, a projection, a chunk past a
		// missing seq): paid for only if it restated the view (a call
		// that a tool_call block names after its output moved), which
		// may overdraw the credit: then renders wait until it is repaid.
		s.freeRender(emit)
	case s.credit >= s.items:
		s.paidRender(emit)
	default:
		s.owed = true
	}
}

// paidRender renders for a late op, or while the client owes one, and
// spends the credit the render costs: the view's items.
func (s *frontFeed) paidRender(emit func(map[string]any)) {
	s.render(emit)
	s.credit -= s.items
}

// freeRender renders, and spends the credit only when the render restated
// the view.
func (s *frontFeed) freeRender(emit func(map[string]any)) {
	n := s.enc.restated()
	s.render(emit)
	if s.enc.restated() != n {
		s.credit -= s.items
	}
}

// live reports whether op is a live envelope block of the rendered turn,
// which the client can be told without a render.
func (s *frontFeed) live(op *schema.Op) bool {
	b := &op.Block
	return s.rendered && !s.inSnap && !s.enc.done() && s.enc.itemIDs() != nil && op.Type == schema.OpBlock &&
		op.Turn == s.turn && !s.settled && b.Source == schema.SourceEnvelope && b.Truncated == 0 && s.hasSeq
}

// inOrder reports whether op is a live envelope block above the rendered
// turn's highest seq.
func (s *frontFeed) inOrder(op *schema.Op) bool {
	return s.live(op) && op.Block.Key.Seq > s.maxSeq
}

// growable returns the tool key, chunk and new status of an op that only
// grows or closes a call the client holds: a running chunk, a closing
// chunk, or a closing tool_call block of a call that has its tool_call
// block already (a first one would rename it).
func (s *frontFeed) growable(op *schema.Op) (key, chunk string, status schema.ToolStatus, ok bool) {
	b := &op.Block
	if !s.inOrder(op) {
		return "", "", "", false
	}
	switch b.Status {
	case envelope.StatusRunning:
		status = schema.ToolRunning
	case envelope.StatusDone:
		status = schema.ToolDone
	case envelope.StatusAborted:
		status = schema.ToolAborted
	default:
		return "", "", "", false
	}
	key = b.ToolKey()
	n := s.keys[key]
	switch p := b.Payload.(type) {
	case envelope.ToolOutputAppend:
		// No seq went missing since the call's last chunk, and this one
		// follows the highest seq: no gap marker comes before it.
		return key, p.Chunk, status, !n.chunked || (n.jumps == s.jumps && b.Key.Seq == s.maxSeq+1)
	case envelope.ToolCall:
		return key, "", status, status != schema.ToolRunning && n.started
	}
	return "", "", "", false
}

// appendable returns the item op adds to the rendered view, when it does no
// more than that: at its end (in order), or before what the client holds (a
// late envelope; told after it, out of place until a render).
func (s *frontFeed) appendable(op *schema.Op) (*frontItem, bool) {
	b := &op.Block
	ids := s.enc.itemIDs()
	// A nested block (PROTOCOL.md §10) renders: where it stands in the tree
	// is the view's to tell.
	if b.Status != envelope.StatusRunning || b.Parent != "" || !s.live(op) {
		return nil, false
	}
	switch p := b.Payload.(type) {
	case envelope.Thinking:
		return &frontItem{kind: itemThinking, id: ids.block(b), text: p.Text, block: b}, len(p.Text) <= merge.DefaultMaxTextBytes
	case envelope.Text:
		return &frontItem{kind: itemText, id: ids.block(b), text: p.Text, block: b}, len(p.Text) <= merge.DefaultMaxTextBytes
	case envelope.ErrorPayload:
		return &frontItem{kind: itemError, id: ids.block(b), text: p.Message, block: b}, len(p.Message) <= merge.DefaultMaxTextBytes
	case envelope.ToolCall:
		key := b.ToolKey()
		// A key seen before — as a call, or named as a parent by a block
		// the client holds at the top level, which this call now takes
		// under it — renders.
		if _, seen := s.keys[key]; seen || len(s.keys) >= merge.DefaultMaxStreamKeys-1 {
			return nil, false
		}
		tc := &schema.ToolCall{Key: key, Tool: p.Tool, ToolCallID: p.ToolCallID, Status: schema.ToolRunning, Started: true, FirstSeq: b.Key.Seq}
		return &frontItem{kind: itemTool, id: ids.tool(key), tool: tc, block: b}, true
	}
	return nil, false
}

// note records what op tells about its turn for appendable and growable.
func (s *frontFeed) note(op *schema.Op) {
	if op.Type != schema.OpBlock {
		return
	}
	if op.Turn != s.turn || s.keys == nil {
		// Another turn: what was noted is about an older one.
		if s.rendered && op.Turn != s.turn {
			s.rendered = false
		}
		s.turn, s.maxSeq, s.hasSeq, s.keys, s.jumps, s.settled = op.Turn, 0, false, map[string]keyNote{}, 0, false
		s.credit = frontRenderBurst
	}
	b := &op.Block
	if b.Source != schema.SourceEnvelope || (s.hasSeq && b.Key.Seq != s.maxSeq+1) {
		s.jumps++
	}
	if _, ok := s.keys[b.Parent]; !ok && b.Parent != "" && len(s.keys) < merge.DefaultMaxStreamKeys {
		// A parent is noted as a key (a zero note): a tool_call of that
		// key then renders (appendable).
		s.keys[b.Parent] = keyNote{}
	}
	if b.Source == schema.SourceEnvelope && (!s.hasSeq || b.Key.Seq > s.maxSeq) {
		s.hasSeq, s.maxSeq = true, b.Key.Seq
	}
	// The blocks that make or change a tool call (schema.ToolCall).
	if b.Kind == envelope.KindToolCall || b.Kind == envelope.KindToolOutputAppend || b.Status != envelope.StatusRunning {
		key := b.ToolKey()
		n := s.keys[key]
		n.started = n.started || b.Kind == envelope.KindToolCall
		if b.Kind == envelope.KindToolOutputAppend {
			n.chunked, n.jumps = true, s.jumps
		}
		s.keys[key] = n
	}
}

// render tells the encoder the receiver's view of the latest turn.
func (s *frontFeed) render(emit func(map[string]any)) {
	if s.recv == nil {
		return
	}
	if s.enc.done() {
		// The run ended: nothing more is sent, so nothing to render.
		return
	}
	v := s.recv.View()
	out := s.recv.Result()
	s.enc.sync(&v, out, emit)
	s.rendered = v.Turn == s.turn
	s.gaps = v.Counters.Gaps
	s.items = len(v.Blocks) + len(v.ToolCalls)
	s.owed = false
}

// frontStream adapts a frontFeed to the relay's Encoder (sse.Encoder): it renders the
// whole snapshot once, then tells each live op, and ends the response once
// the encoder sent the run's end.
type frontStream struct {
	frontFeed
	// ended: the end marker was written.
	ended  bool
	end    func(ew *sse.EventWriter, settled bool) error
	header func(h http.Header)
	// buf is reused to marshal each event (as large as the largest).
	buf []byte
}

func (s *frontStream) Begin(h http.Header, _ *sse.EventWriter) error {
	if s.header != nil {
		s.header(h)
	}
	return nil
}

func (s *frontStream) SnapshotStart(*sse.EventWriter) error { s.inSnap = true; return nil }

func (s *frontStream) SnapshotEnd(ew *sse.EventWriter) error {
	s.inSnap = false
	return s.finish(ew, s.emit(ew, s.render))
}

// finish ends the response once the encoder sent the run's end: the end
// marker, then errFrontDone.
func (s *frontStream) finish(ew *sse.EventWriter, err error) error {
	if err != nil || !s.enc.done() || s.ended {
		return err
	}
	s.ended = true
	if s.end != nil {
		if err := s.end(ew, true); err != nil {
			return err
		}
	}
	return errFrontDone
}

func (s *frontStream) Op(ew *sse.EventWriter, ev sse.Event) error {
	err := s.emit(ew, func(emit func(map[string]any)) { s.apply(&ev.Op, emit) })
	return s.finish(ew, err)
}

func (s *frontStream) End(ew *sse.EventWriter, settled bool) error {
	if s.ended {
		return nil
	}
	if err := s.emit(ew, s.render); err != nil {
		return err
	}
	s.ended = true
	if s.end != nil {
		return s.end(ew, settled)
	}
	return nil
}

// emit runs f with an emit that writes each event, stopping at the first
// write error.
func (s *frontStream) emit(ew *sse.EventWriter, f func(emit func(map[string]any))) error {
	var err error
	f(func(e map[string]any) {
		if err == nil {
			s.buf, err = writeJSONEventBuf(ew, s.buf, e)
		}
	})
	return err
}

// writeJSONEvent writes one data-only SSE event.
func writeJSONEvent(ew *sse.EventWriter, v any) error {
	_, err := writeJSONEventBuf(ew, nil, v)
	return err
}

// writeJSONEventBuf writes one data-only SSE event, marshalled into buf,
// and returns buf to reuse.
func writeJSONEventBuf(ew *sse.EventWriter, buf []byte, v any) ([]byte, error) {
	data, err := appendJSON(buf[:0], v)
	if err != nil {
		return buf, err
	}
	return data[:0], ew.Event("", "", data)
}

// textOf joins the text of a front end's message content: a string, or
// parts whose text ones are joined.
func textOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
