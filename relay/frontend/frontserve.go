package frontend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/internal/seam"
	"github.com/tfrs/a2a-progress/schema"
)

// What the AG-UI and AI SDK endpoints share: they accept a front end's own
// request, send its last user message to the agent, publish the turn to the
// relay (Attach: one upstream, however many connections watch it) and
// answer with the same subscription as GET /tasks/{id}/events, encoded in
// the front end's protocol. A cut connection resumes through the relay like
// any other: a snapshot, then live, from whichever replica.

// Agent is what the front-end endpoints talk to: *client.Client is one.
// Send sends a message and streams its turn; ListTasks (A2A's tasks/list)
// finds a conversation's latest task when a useChat page resumes on a
// process that did not serve its POST.
type Agent interface {
	Send(ctx context.Context, msg *a2a.Message) (*client.Stream, error)
	ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error)
}

// host is a relay.Handler as this package uses it beyond relay's public API
// (see relay/internal/seam).
type host interface {
	// Serve asks the Authorizer whether r may watch task, then serves the
	// task's subscription with enc, as GET /tasks/{id}/events would.
	Serve(w http.ResponseWriter, r *http.Request, task string, enc relay.Encoder)
	// Admit sets the CORS headers of a request that opens a turn and asks
	// the Authorizer with the task ""; false: refused, the error written.
	Admit(w http.ResponseWriter, r *http.Request) bool
	// Authorize asks the Authorizer whether r may use task (read or answer
	// it): the status to answer (404, 403) and why, or 0 and nil.
	Authorize(r *http.Request, task string) (int, error)
	// Conversation is the A2A context id to send a browser's conversation
	// id under (relay.TaskSet.Conversation); "" when create is false and
	// the conversation is not one of this relay's.
	Conversation(id string, create bool) string
	// Preflight answers a CORS preflight for the origins given to
	// relay.WithCORS.
	Preflight(w http.ResponseWriter, r *http.Request, methods, headers string)
	// Hold counts a running turn, which relay's Close waits for: the
	// context ends at Close, done ends the count; an error (503) once
	// closed or past relay.WithMaxTurns.
	Hold() (ctx context.Context, done func(), err error)
	// Context ends when the Handler closes.
	Context() context.Context
	// Store is the shared Store (relay.WithStore), nil without one.
	Store() relay.Store
	// StoreFailed records a failed Store call.
	StoreFailed(task string, err error)
	// Logger is the Handler's logger (relay.WithLogger).
	Logger() *slog.Logger
}

// hub is a relay.Handler with the methods of host.
type hub struct {
	*relay.Handler
	host
}

func hubOf(h *relay.Handler) hub { return hub{h, seam.HostOf(h).(host)} }

func newEventWriter(w http.ResponseWriter) *relay.EventWriter {
	return seam.NewEventWriter(w).(*relay.EventWriter)
}

// writeError answers with status and a JSON body {"error": msg}.
var writeError = seam.WriteError

// The bounds of a front-end request: the whole body, and the text sent to
// the agent (the last user message's).
const (
	maxFrontendBodyBytes = 4 << 20
	maxFrontendTextBytes = 256 << 10
)

// errFrontend is an error whose text is safe to show the client.
type errFrontend struct {
	status int
	msg    string
}

func (e *errFrontend) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &errFrontend{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

// readJSON decodes a bounded request body. It takes only application/json
// (what HttpAgent and DefaultChatTransport send): a page of another origin
// cannot send that without a CORS preflight, which the relay answers only
// for origins given to relay.WithCORS — so a page the user merely visits cannot
// make a loopback relay send messages to the agent on the user's behalf.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if status, err := relay.ReadJSON(w, r, v, maxFrontendBodyBytes); err != nil {
		return &errFrontend{status, err.Error()}
	}
	return nil
}

// turnMessage builds the A2A message of a front end's user message: its id
// becomes the turn's identity (so the ids of everything the encoders send
// derive from it), the conversation id becomes the context.
func turnMessage(id, text, contextID, taskID string) (*a2a.Message, error) {
	if text == "" {
		return nil, badRequest("relay: no user message with text to send")
	}
	if len(text) > maxFrontendTextBytes {
		return nil, badRequest("relay: the user message is over %d bytes", maxFrontendTextBytes)
	}
	if !utf8.ValidString(text) {
		return nil, badRequest("relay: the user message is not valid UTF-8")
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	if id != "" && relay.ValidateTaskID(id) == nil {
		msg.ID = id
	}
	msg.ContextID = contextID
	msg.TaskID = a2a.TaskID(taskID)
	return msg, nil
}

// sendAndServe sends msg, publishes its turn and serves the turn's
// subscription to w with enc. The upstream runs under the handler's context,
// not the request's: a client that drops the connection finds the turn
// still running when it reconnects.
func sendAndServe(h hub, w http.ResponseWriter, r *http.Request, agent Agent, msg *a2a.Message, enc relay.Encoder, fail func(error)) {
	ctx, held, err := h.Hold() // at most relay.WithMaxTurns at once
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	s, err := agent.Send(ctx, msg)
	if err != nil {
		held()
		fail(err)
		return
	}
	named := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		defer held()
		var last error
		for u, err := range h.Attach(s) {
			if err != nil {
				last = err
				continue
			}
			if op, ok := u.Op(); ok && op.Task != "" {
				select {
				case named <- op.Task:
				default:
				}
			}
		}
		done <- last
	}()
	serve := func(task string) { h.Serve(w, r, task, enc) }
	select {
	case task := <-named:
		serve(task)
	case err := <-done:
		select {
		case task := <-named: // named, then ended at once
			serve(task)
			return
		default:
		}
		// The turn ended before any op named its task: the agent refused
		// it, or answered with a message and no task.
		if err == nil {
			err = errors.New("relay: the agent answered without a task")
		}
		fail(err)
	case <-r.Context().Done():
	}
}

// frontStateBytes bounds what a front-end encoder keeps besides its
// Receiver, for the byte budgets: a record and an id per item (about 150
// bytes; 160 counted) for as many items as a turn has blocks
// (merge.DefaultMaxBlocks), the tool output it keeps (maxKeptOutputBytes),
// and a note per tool key (64 bytes counted, merge.DefaultMaxStreamKeys).
const frontStateBytes = merge.DefaultMaxBlocks*160 + maxKeptOutputBytes + merge.DefaultMaxStreamKeys*64

// StateBytes and SetBudget make a frontStream a seam.Budgeted: the relay
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
// Late envelopes, fallbacks and projections, the seal and the result render
// the view: O(blocks) each, bounded by merge.Caps.
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
	// named, when set, is told the task the first op names.
	named func(task string)
}

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
		if s.named != nil {
			s.named(op.Task)
		}
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
	told := false
	if key, chunk, status, ok := s.growable(op); ok {
		told = s.enc.growTool(key, chunk, status, emit)
	} else if it, ok := s.appendable(op); ok {
		s.enc.appendItem(it, emit)
		told = true
	}
	s.note(op)
	if op.Type == schema.OpResult && op.Turn == s.turn {
		s.settled = true
	}
	switch {
	case told:
		if skipped > 0 {
			s.gaps += skipped
			s.enc.gapsNow(s.gaps, emit)
		}
	case !s.inSnap:
		s.render(emit)
	}
}

// inOrder reports whether op is a live envelope block above the rendered
// turn's highest seq.
func (s *frontFeed) inOrder(op *schema.Op) bool {
	b := &op.Block
	return s.rendered && !s.inSnap && !s.enc.done() && s.enc.itemIDs() != nil && op.Type == schema.OpBlock &&
		op.Turn == s.turn && !s.settled && b.Source == schema.SourceEnvelope && b.Truncated == 0 &&
		s.hasSeq && b.Key.Seq > s.maxSeq
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

// appendable returns the item op adds at the end of the rendered view, when
// it does no more than that.
func (s *frontFeed) appendable(op *schema.Op) (*frontItem, bool) {
	b := &op.Block
	ids := s.enc.itemIDs()
	// A nested block (PROTOCOL.md §10) renders: where it stands in the tree
	// is the view's to tell.
	if b.Status != envelope.StatusRunning || b.Parent != "" || !s.inOrder(op) {
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
	v := s.recv.View()
	out := s.recv.Result()
	s.enc.sync(&v, out, emit)
	s.rendered = v.Turn == s.turn
	s.gaps = v.Counters.Gaps
}

// frontStream adapts a frontFeed to the relay's Encoder: it renders the
// whole snapshot once, then tells each live op, and ends the response once
// the encoder sent the run's end.
type frontStream struct {
	frontFeed
	// ended: the end marker was written.
	ended  bool
	end    func(ew *relay.EventWriter, settled bool) error
	header func(h http.Header)
	// buf is reused to marshal each event (as large as the largest).
	buf []byte
}

func (s *frontStream) Begin(h http.Header, _ *relay.EventWriter) error {
	if s.header != nil {
		s.header(h)
	}
	return nil
}

func (s *frontStream) SnapshotStart(*relay.EventWriter) error { s.inSnap = true; return nil }

func (s *frontStream) SnapshotEnd(ew *relay.EventWriter) error {
	s.inSnap = false
	return s.finish(ew, s.emit(ew, s.render))
}

// finish ends the response once the encoder sent the run's end: the end
// marker, then errFrontDone.
func (s *frontStream) finish(ew *relay.EventWriter, err error) error {
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

func (s *frontStream) Op(ew *relay.EventWriter, ev relay.Event) error {
	err := s.emit(ew, func(emit func(map[string]any)) { s.apply(&ev.Op, emit) })
	return s.finish(ew, err)
}

func (s *frontStream) End(ew *relay.EventWriter, settled bool) error {
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
func (s *frontStream) emit(ew *relay.EventWriter, f func(emit func(map[string]any))) error {
	var err error
	f(func(e map[string]any) {
		if err == nil {
			s.buf, err = writeJSONEventBuf(ew, s.buf, e)
		}
	})
	return err
}

// writeJSONEvent writes one data-only SSE event.
func writeJSONEvent(ew *relay.EventWriter, v any) error {
	_, err := writeJSONEventBuf(ew, nil, v)
	return err
}

// writeJSONEventBuf writes one data-only SSE event, marshalled into buf,
// and returns buf to reuse.
func writeJSONEventBuf(ew *relay.EventWriter, buf []byte, v any) ([]byte, error) {
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

// frontPreflight answers the CORS preflight of a front-end POST: only for
// the origins given to relay.WithCORS (a front end served from another
// origin, e.g. a Next.js dev server), never for others — the same rule as
// the events endpoint, with the method and header of a JSON POST.
func frontPreflight(h hub, w http.ResponseWriter, r *http.Request) {
	h.Preflight(w, r, "POST, GET", "Content-Type, Authorization, Last-Event-ID")
}

// writeFrontError answers a request that cannot be sent.
func writeFrontError(w http.ResponseWriter, err error) {
	var fe *errFrontend
	if errors.As(err, &fe) {
		writeError(w, fe.status, fe.msg)
		return
	}
	writeError(w, http.StatusBadRequest, err.Error())
}
