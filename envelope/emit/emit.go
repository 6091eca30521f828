package emit

import (
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/tfrs/a2a-progress/envelope"
)

// Errors an [Emitter] and a [Tool] return besides the *envelope.Error of an
// envelope a reader would drop (envelope.ReasonBadField for a tool call with
// no tool name, envelope.ReasonEnvelopeTooLarge for a text over
// envelope.MaxEnvelopeBytes).
var (
	// ErrStopped: a2asrv stopped taking events (the execution's context
	// ended, or its queue failed). Nothing more can be sent; the executor
	// should return.
	ErrStopped = errors.New("emit: a2asrv stopped taking events")
	// ErrClosed: the emitter was closed ([Emitter.Close], [Emitter.Finish]).
	ErrClosed = errors.New("emit: emitter closed")
	// ErrToolEnded: the tool call was already reported done or aborted.
	ErrToolEnded = errors.New("emit: tool call already ended")
	// ErrDuplicateToolCall: a tool call id already used in this turn (a
	// reader would merge the two calls into one).
	ErrDuplicateToolCall = errors.New("emit: tool call id already used in this turn")
)

// An Option configures [New].
type Option func(*Emitter)

// WithStartSeq sets the seq of the first envelope (default 1). The spec leaves
// the start value free; seqs only have to increase within a turn.
func WithStartSeq(seq int64) Option { return func(e *Emitter) { e.next = seq } }

// WithChunkLimit sets the size, in bytes, above which [Tool.Output] splits its
// text into several tool_output_append envelopes (default
// envelope.SoftChunkLimit). It is clamped as envelope.SplitOutput clamps
// it: never above envelope.HardChunkLimit, so no chunk is ever dropped by
// a reader.
func WithChunkLimit(n int) Option { return func(e *Emitter) { e.chunkLimit = n } }

// Emitter writes the progress of one turn of an a2asrv executor as working
// status updates, each carrying one envelope and its text fallback in the
// same Part (envelope.NewPart). Make one per Execute call with [New].
//
// An Emitter is safe for concurrent use by the goroutines of one
// execution: every event goes through one lock, so seqs increase in the
// order the events reach a2asrv, and the chunks of one [Tool.Output] call
// are consecutive. It remembers the id of every tool call of the turn (to
// refuse a reused one): memory grows by one entry per [Emitter.ToolStart].
type Emitter struct {
	ec    *a2asrv.ExecutorContext
	yield func(a2a.Event, error) bool

	mu         sync.Mutex
	next       int64 // the seq of the next envelope
	chunkLimit int
	submitted  bool // the submitted Task was sent (or not needed)
	stopped    bool // yield returned false
	closed     bool
	toolIDs    map[string]bool
	autoID     int
}

// New binds an Emitter to the execution ec and to the yield function of
// the iterator that Execute returns. Before the first event it sends the
// submitted Task that a2asrv requires for a new task (not for a task that
// continues, when ec.StoredTask is set).
//
// yield must not be called after the iterator has returned, so Execute
// closes the emitter before it returns:
//
//	em := emit.New(ec, yield)
//	defer em.Close()
func New(ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool, opts ...Option) *Emitter {
	e := &Emitter{ec: ec, yield: yield, next: 1, submitted: ec.StoredTask != nil, toolIDs: make(map[string]bool)}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Thinking sends a thinking block (callers render it folded).
func (e *Emitter) Thinking(text string) error {
	return e.emit("", envelope.StatusRunning, envelope.Thinking{Text: text})
}

// Text sends a block of progress text. It is progress, not the reply: the
// reply is the final status message ([Emitter.Finish]) or an artifact.
func (e *Emitter) Text(text string) error {
	return e.emit("", envelope.StatusRunning, envelope.Text{Text: text})
}

// Error sends an error block in the default stream: a process error the
// agent works around. It is progress, never the verdict on the turn; a
// turn that fails ends with [Emitter.Finish](a2a.TaskStateFailed, …).
func (e *Emitter) Error(message string) error {
	return e.emit("", envelope.StatusRunning, envelope.ErrorPayload{Message: message})
}

// ToolStart sends the tool_call block that starts a call of tool and
// returns its handle. id is the tool call id and the streamKey of every
// block of the call; "" picks one ("call-1", "call-2", … skipping ids
// already used). An id already used in this turn is refused
// ([ErrDuplicateToolCall]), as is an empty tool name.
func (e *Emitter) ToolStart(tool, id string) (*Tool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if id == "" {
		for {
			e.autoID++
			id = "call-" + strconv.Itoa(e.autoID)
			if !e.toolIDs[id] {
				break
			}
		}
	} else if e.toolIDs[id] {
		return nil, fmt.Errorf("emit: tool_call %q: %w", id, ErrDuplicateToolCall)
	}
	if err := e.emitLocked(id, envelope.StatusRunning, envelope.ToolCall{Tool: tool, ToolCallID: id}); err != nil {
		return nil, err
	}
	e.toolIDs[id] = true
	return &Tool{e: e, tool: tool, id: id}, nil
}

// Send sends any other event of the execution (an artifact update, a
// status with metadata of its own) in order with the envelopes.
func (e *Emitter) Send(ev a2a.Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.yieldLocked(ev)
}

// Finish sends the final status of the turn — state with a message holding
// text ("" for no message) — and closes the emitter. The state is the
// verdict: completed with the reply, failed or rejected with the reason,
// input-required or auth-required with the question.
func (e *Emitter) Finish(state a2a.TaskState, text string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var msg *a2a.Message
	if text != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, e.ec, a2a.NewTextPart(text))
	}
	err := e.yieldLocked(a2a.NewStatusUpdateEvent(e.ec, state, msg))
	e.closed = true
	return err
}

// Close ends the emitter: later calls return [ErrClosed]. It waits for an
// event being sent by another goroutine, so once it returns yield is never
// called again. Close is idempotent.
func (e *Emitter) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
}

// Tool is the handle of one tool call, from [Emitter.ToolStart]. It is
// safe for concurrent use, under the emitter's lock.
type Tool struct {
	e     *Emitter
	tool  string
	id    string
	ended bool // under e.mu
}

// ID returns the tool call id, which is also the streamKey of its blocks.
func (t *Tool) ID() string { return t.id }

// Output sends output of the tool: one tool_output_append envelope per
// chunk of envelope.SplitOutput(s, limit) ([WithChunkLimit]), with consecutive
// seqs. Empty output sends nothing. A reader appends the chunks in seq
// order, so output may be sent in pieces of any size.
func (t *Tool) Output(s string) error {
	e := t.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := t.usableLocked(); err != nil {
		return err
	}
	for _, chunk := range envelope.SplitOutput(s, e.chunkLimit) {
		if err := e.emitLocked(t.id, envelope.StatusRunning,
			envelope.ToolOutputAppend{Tool: t.tool, ToolCallID: t.id, Chunk: chunk}); err != nil {
			return err
		}
	}
	return nil
}

// Error sends an error block in the tool call's stream (the call goes on;
// end it with [Tool.Aborted] if it does not).
func (t *Tool) Error(message string) error {
	e := t.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := t.usableLocked(); err != nil {
		return err
	}
	return e.emitLocked(t.id, envelope.StatusRunning, envelope.ErrorPayload{Message: message})
}

// Done reports that the tool call finished. Later calls on t return
// [ErrToolEnded].
func (t *Tool) Done() error { return t.end(envelope.StatusDone) }

// Aborted reports that the tool call was given up. Later calls on t return
// [ErrToolEnded].
func (t *Tool) Aborted() error { return t.end(envelope.StatusAborted) }

func (t *Tool) end(status envelope.Status) error {
	e := t.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := t.usableLocked(); err != nil {
		return err
	}
	if err := e.emitLocked(t.id, status, envelope.ToolCall{Tool: t.tool, ToolCallID: t.id}); err != nil {
		return err
	}
	t.ended = true
	return nil
}

func (t *Tool) usableLocked() error {
	if t.ended {
		return fmt.Errorf("emit: tool_call %q: %w", t.id, ErrToolEnded)
	}
	return nil
}

// emit sends one envelope under the lock.
func (e *Emitter) emit(key string, status envelope.Status, p envelope.Payload) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.emitLocked(key, status, p)
}

// emitLocked builds the envelope with the next seq and sends it; the seq
// is used up only when the envelope was valid. e.mu held.
func (e *Emitter) emitLocked(key string, status envelope.Status, p envelope.Payload) error {
	return e.sendLocked(envelope.Envelope{StreamKey: key, Status: status, Payload: p}, "")
}

// sendLocked sends env (its version, kind and seq filled in here) with the
// text fallback text ("": envelope.DefaultText). e.mu held.
func (e *Emitter) sendLocked(env envelope.Envelope, text string) error {
	if err := e.usableLocked(); err != nil {
		return err
	}
	env.V, env.Seq = envelope.Version, e.next
	if env.Payload == nil {
		return fmt.Errorf("emit: %w", &envelope.Error{Reason: envelope.ReasonBadField, Field: "payload", Detail: "required"})
	}
	p := env.Payload
	env.Kind = p.Kind()
	wire, err := envelope.Marshal(env)
	if err == nil && len(wire) > envelope.MaxEnvelopeBytes {
		// envelope.NewPart writes it, but every reader drops it unparsed.
		err = &envelope.Error{Reason: envelope.ReasonEnvelopeTooLarge,
			Detail: strconv.Itoa(len(wire)) + " bytes is over the cap of " + strconv.Itoa(envelope.MaxEnvelopeBytes)}
	}
	if err != nil {
		return fmt.Errorf("emit: %s: %w", p.Kind(), err)
	}
	// The Part envelope.NewPart builds, from the JSON already checked.
	if text == "" {
		text = envelope.DefaultText(env)
	}
	part := a2a.NewTextPart(text)
	part.Metadata = map[string]any{envelope.MetadataKey: wire}
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, e.ec, part)
	e.next++
	return e.yieldLocked(a2a.NewStatusUpdateEvent(e.ec, a2a.TaskStateWorking, msg))
}

func (e *Emitter) usableLocked() error {
	switch {
	case e.stopped:
		return ErrStopped
	case e.closed:
		return ErrClosed
	}
	return nil
}

// yieldLocked hands ev to a2asrv, after the submitted Task if it is due.
// e.mu held.
func (e *Emitter) yieldLocked(ev a2a.Event) error {
	if err := e.usableLocked(); err != nil {
		return err
	}
	if !e.submitted {
		e.submitted = true
		if !e.yield(a2a.NewSubmittedTask(e.ec, e.ec.Message), nil) {
			e.stopped = true
			return ErrStopped
		}
	}
	if !e.yield(ev, nil) {
		e.stopped = true
		return ErrStopped
	}
	return nil
}
