package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
)

// What the AG-UI and AI SDK endpoints share: they accept a front end's own
// request, send its last user message to the agent, publish the turn to the
// relay (Attach: one upstream, however many connections watch it) and
// answer with the same subscription as GET /tasks/{id}/events, encoded in
// the front end's protocol. A cut connection resumes through the relay like
// any other: a snapshot, then live, from whichever replica.

// Agent is what the front-end endpoints talk to: *client.Client is one.
// Send sends a message and streams its turn; A2A gives the a2a-go client,
// whose ListTasks finds a conversation's latest task on resume.
type Agent interface {
	Send(ctx context.Context, msg *a2a.Message) (*client.Stream, error)
	A2A() *a2aclient.Client
}

// The bounds of a front-end request: the whole body, and the text sent to
// the agent (the last user message's).
const (
	MaxFrontendBodyBytes = 4 << 20
	MaxFrontendTextBytes = 256 << 10
)

// MaxFrontendSends bounds the turns the front-end endpoints run at once (each
// holds one upstream stream until its turn ends); past it a request gets 503.
const MaxFrontendSends = 256

// frontSends counts the running sends of all handlers of the process. A
// process-wide bound keeps one bound however many handlers are mounted.
var frontSends = make(chan struct{}, MaxFrontendSends)

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
// for origins given to WithCORS — so a page the user merely visits cannot
// make a loopback relay send messages to the agent on the user's behalf.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return &errFrontend{http.StatusUnsupportedMediaType, "relay: the request must be application/json"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxFrontendBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &errFrontend{http.StatusRequestEntityTooLarge, fmt.Sprintf("relay: request body over %d bytes", MaxFrontendBodyBytes)}
		}
		return badRequest("relay: reading the request: %v", err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return badRequest("relay: the request is not the JSON expected: %v", err)
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
	if len(text) > MaxFrontendTextBytes {
		return nil, badRequest("relay: the user message is over %d bytes", MaxFrontendTextBytes)
	}
	if !utf8.ValidString(text) {
		return nil, badRequest("relay: the user message is not valid UTF-8")
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	if id != "" && ValidateTaskID(id) == nil {
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
func (h *Handler) sendAndServe(w http.ResponseWriter, r *http.Request, agent Agent, msg *a2a.Message, enc Encoder, fail func(error)) {
	select {
	case frontSends <- struct{}{}:
	default:
		writeError(w, http.StatusServiceUnavailable, "relay: too many turns running")
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		<-frontSends
		writeError(w, http.StatusServiceUnavailable, "relay: closed")
		return
	}
	h.wg.Add(1) // under mu, so that Close's Wait never races a late Add
	h.mu.Unlock()
	s, err := agent.Send(h.ctx, msg)
	if err != nil {
		h.wg.Done()
		<-frontSends
		fail(err)
		return
	}
	named := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		defer h.wg.Done()
		defer func() { <-frontSends }()
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
	serve := func(task string) {
		if err := h.authorize(r, task); err != nil {
			writeError(w, statusOf(err), err.Error())
			return
		}
		h.serveEncoder(w, r, task, enc)
	}
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

// serveEncoder serves task's subscription with enc, as ServeEvents does
// with the encoder of the request's format (and hands it here).
func (h *Handler) serveEncoder(w http.ResponseWriter, r *http.Request, task string, enc Encoder) {
	t, sub, err := h.acquire(task)
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	defer h.release(t, sub)
	if err := h.waitReady(r, t); err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	h.stream(w, r, t, sub, enc)
}

// frontEncoder is what the AG-UI and AI SDK encoders share.
type frontEncoder interface {
	// sync emits what the client lacks to show view v (of its turn), and the
	// outcome once it is known.
	sync(v *merge.View, out *frontOutcome, emit func(map[string]any))
	// appendItem sends one item that the view adds at its end, where sync
	// would send the same: the client holds every earlier item.
	appendItem(it *frontItem, emit func(map[string]any))
	// appendOutput sends chunk as the next output of the running tool call
	// key, where sync would send the same, and reports whether it could (the
	// call is sent, running, within the output cap).
	appendOutput(key, chunk string, emit func(map[string]any)) bool
	// itemIDs are the encoder's ids of the turn it renders (nil before the
	// first sync).
	itemIDs() *frontIDs
	// done reports whether the encoder sent the run's end (the outcome).
	done() bool
}

// errFrontDone ends a front-end response once its run ended: the relay ends
// a response when its Encoder returns an error. The front ends' clients
// wait for the body to end, and the relay goes on with a turn whose result
// settles nothing (incomplete: a follow may still bring it to an end).
var errFrontDone = errors.New("relay: the front end's run ended")

// frontStream adapts one of the front-end encoders to the relay's Encoder:
// it keeps a Receiver of the ops it got and renders the receiver's view of
// the latest turn through the encoder, which sends only what the client
// lacks — after a whole snapshot, and after each live op that changed the
// view.
//
// A render costs O(blocks) (the view is rebuilt), so a live op that merely
// adds to the end of the view is sent without one: an envelope whose seq
// follows the turn's highest, in a turn with no missing seq (so nothing
// moves and no gap marker appears), that starts a block or a new tool call,
// or appends a chunk to a running call's output. In order — the common case
// — an op costs O(1) (O(output) for the AI SDK, whose preliminary output
// carries the whole output so far). Closes, late or gapped envelopes,
// fallbacks and projections render the view: O(blocks) each, bounded by
// merge.Caps.
type frontStream struct {
	enc frontEncoder
	// recv is made by the first op, which names the task.
	recv   *merge.Receiver
	inSnap bool
	// rendered is true once the encoder rendered turn.
	rendered bool
	turn     string
	// maxSeq is the highest envelope seq of turn's ops so far (hasSeq: one
	// was seen); keys are the tool keys its ops named.
	maxSeq int64
	hasSeq bool
	keys   map[string]bool
	// minSeq and seqs (envelope blocks applied) tell whether the turn's seqs
	// are contiguous: seqs == maxSeq-minSeq+1.
	minSeq int64
	seqs   int64

	// ended: the end marker was written.
	ended  bool
	end    func(ew *EventWriter, settled bool) error
	header func(h http.Header)
	// named, when set, is told the task the first op names.
	named func(task string)
}

func (s *frontStream) Begin(h http.Header, _ *EventWriter) error {
	if s.header != nil {
		s.header(h)
	}
	return nil
}

func (s *frontStream) SnapshotStart(*EventWriter) error { s.inSnap = true; return nil }

func (s *frontStream) SnapshotEnd(ew *EventWriter) error {
	s.inSnap = false
	return s.finish(ew, s.render(ew))
}

// finish ends the response once the encoder sent the run's end: the end
// marker, then errFrontDone.
func (s *frontStream) finish(ew *EventWriter, err error) error {
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

func (s *frontStream) Op(ew *EventWriter, ev Event) error {
	if s.recv == nil {
		s.recv = merge.NewReceiver(ev.Op.Task, merge.Caps{})
		if s.named != nil {
			s.named(ev.Op.Task)
		}
	}
	// A duplicate (a resumed upstream repeats what it backfills), a
	// conflict or a refused op changes nothing the client shows.
	if s.recv.Apply(ev.Op) != merge.Applied {
		return nil
	}
	if key, chunk, ok := s.chunkable(&ev.Op); ok {
		var done bool
		err := s.emit(ew, func(emit func(map[string]any)) { done = s.enc.appendOutput(key, chunk, emit) })
		s.note(&ev.Op)
		if done || err != nil {
			return err
		}
		return s.finish(ew, s.render(ew))
	}
	it, ok := s.appendable(&ev.Op)
	s.note(&ev.Op)
	switch {
	case s.inSnap:
		return nil
	case ok:
		return s.emit(ew, func(emit func(map[string]any)) { s.enc.appendItem(it, emit) })
	}
	return s.finish(ew, s.render(ew))
}

// follows reports whether op is a live envelope block that follows the
// rendered turn's highest seq, in a turn that misses no seq.
func (s *frontStream) follows(op *merge.Op) bool {
	b := &op.Block
	return s.rendered && !s.inSnap && s.enc.itemIDs() != nil && op.Type == merge.OpBlock && op.Turn == s.turn &&
		s.recv.Result() == nil && b.Source == merge.SourceEnvelope && b.Status == envelope.StatusRunning &&
		s.hasSeq && b.Key.Seq == s.maxSeq+1 && s.seqs == s.maxSeq-s.minSeq+1
}

// chunkable returns the tool key and chunk of an op that only appends to a
// call's output.
func (s *frontStream) chunkable(op *merge.Op) (key, chunk string, ok bool) {
	p, isChunk := op.Block.Payload.(envelope.ToolOutputAppend)
	if !isChunk || !s.follows(op) {
		return "", "", false
	}
	return op.Block.ToolKey(), p.Chunk, true
}

// appendable returns the item op adds at the end of the rendered view, when
// it does no more than that.
func (s *frontStream) appendable(op *merge.Op) (*frontItem, bool) {
	b := &op.Block
	ids := s.enc.itemIDs()
	if !s.follows(op) || b.Truncated != 0 {
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
		if s.keys[key] || len(s.keys) >= merge.DefaultMaxStreamKeys-1 {
			return nil, false
		}
		tc := &merge.ToolCall{Key: key, Tool: p.Tool, ToolCallID: p.ToolCallID, Status: merge.ToolRunning, Started: true, FirstSeq: b.Key.Seq}
		return &frontItem{kind: itemTool, id: ids.tool(key), tool: tc, block: b}, true
	}
	return nil, false
}

// note records what op tells about its turn for appendable.
func (s *frontStream) note(op *merge.Op) {
	if op.Type != merge.OpBlock {
		return
	}
	if op.Turn != s.turn || s.keys == nil {
		// Another turn: what was noted is about an older one.
		if s.rendered && op.Turn != s.turn {
			s.rendered = false
		}
		s.turn, s.maxSeq, s.hasSeq, s.keys, s.minSeq, s.seqs = op.Turn, 0, false, map[string]bool{}, 0, 0
	}
	b := &op.Block
	if b.Source == merge.SourceEnvelope {
		if !s.hasSeq || b.Key.Seq > s.maxSeq {
			s.maxSeq = b.Key.Seq
		}
		if !s.hasSeq || b.Key.Seq < s.minSeq {
			s.minSeq = b.Key.Seq
		}
		s.hasSeq = true
		s.seqs++
	}
	// The blocks that make or change a tool call (merge.ToolCall).
	if b.Kind == envelope.KindToolCall || b.Kind == envelope.KindToolOutputAppend || b.Status != envelope.StatusRunning {
		s.keys[b.ToolKey()] = true
	}
}

func (s *frontStream) End(ew *EventWriter, settled bool) error {
	if s.ended {
		return nil
	}
	if err := s.render(ew); err != nil {
		return err
	}
	s.ended = true
	if s.end != nil {
		return s.end(ew, settled)
	}
	return nil
}

func (s *frontStream) render(ew *EventWriter) error {
	if s.recv == nil {
		return nil
	}
	v := s.recv.View()
	out := s.recv.Result()
	err := s.emit(ew, func(emit func(map[string]any)) { s.enc.sync(&v, out, emit) })
	s.rendered = v.Turn == s.turn
	return err
}

// emit runs f with an emit that writes each event, stopping at the first
// write error.
func (s *frontStream) emit(ew *EventWriter, f func(emit func(map[string]any))) error {
	var err error
	f(func(e map[string]any) {
		if err == nil {
			err = writeJSONEvent(ew, e)
		}
	})
	return err
}

// writeJSONEvent writes one data-only SSE event.
func writeJSONEvent(ew *EventWriter, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return ew.Event("", "", data)
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

// admitTurn sets the CORS headers of a front-end request that opens a turn
// and asks the Authorizer with the task "" (no task exists yet). It reports
// false when the Authorizer refused, with the error already written.
func (h *Handler) admitTurn(w http.ResponseWriter, r *http.Request) bool {
	h.cors(w, r)
	if err := h.authorize(r, ""); err != nil {
		writeError(w, statusOf(err), err.Error())
		return false
	}
	return true
}

// frontPreflight answers the CORS preflight of a front-end POST: only for
// the origins given to WithCORS (a front end served from another origin,
// e.g. a Next.js dev server), never for others — the same rule as the
// events endpoint, with the method and header of a JSON POST.
func (h *Handler) frontPreflight(w http.ResponseWriter, r *http.Request) {
	h.answerPreflight(w, r, "POST, GET", "Content-Type, Authorization, Last-Event-ID")
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
