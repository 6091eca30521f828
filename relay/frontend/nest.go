package frontend

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/schema"
)

// Nesting: an orchestrator that runs its own agent loop and serves its own
// front end (an AG-UI run, a useChat stream) calls a remote A2A agent as one
// of its tools. The callee's progress belongs inside that tool call, next to
// the orchestrator's own messages and other tools — not in a second
// connection. AGUIRun nests it as an AG-UI sub-agent of the call; ChatStream
// (nestchat.go) as the preliminary outputs of the call's tool part. Both feed
// the callee's ops through the encoders the relay's own endpoints use
// (frontFeed), told who the events belong to.

// ErrSubagentActive is returned by [AGUIRun.Emit] for a RUN_FINISHED while
// a sub-agent is still running: AG-UI refuses to finish a run with an
// active sub-agent.
var ErrSubagentActive = errors.New("relay: a sub-agent of the run is still active")

// AGUIRun is one AG-UI run that an orchestrator streams to its front end,
// with the remote A2A calls it makes nested in it as sub-agents. It
// serialises the writes of the orchestrator (Emit) and of every nested call
// (Nest, one goroutine each), so that concurrent remote calls write into
// one run safely; the events of one op are written together.
//
// The orchestrator writes its own events with Emit: RUN_STARTED, its text,
// the TOOL_CALL_START / _ARGS / _END of each remote call, and, after the
// calls ended, RUN_FINISHED. Nest then adds, for one call, a SUBAGENT_STARTED
// whose parentToolCallId is the call's id, the callee's reasoning, text and
// tool calls (with their live output as activity messages) each carrying
// the sub-agent's subagentRunId, exactly as FormatAGUI maps a turn (§9.1 of
// PROTOCOL.md), and at the verdict:
//
//   - completed: SUBAGENT_FINISHED (outcome success), then the parent
//     call's TOOL_CALL_RESULT with the reply;
//   - input-required, auth-required: SUBAGENT_FINISHED with outcome
//     suspended and the interrupt ids (a2a:<task>:<n>), and no result — the
//     call waits; [SubagentEnd].Interrupts are ready for the run's
//     RUN_FINISHED outcome interrupt;
//   - failed, rejected, canceled, incomplete (a cut the client could not
//     resume): SUBAGENT_ERROR with the verdict as code, then the parent
//     call's TOOL_CALL_RESULT with the reason, metadata
//     {"a2a":{"verdict":…}}.
//
// The callee's ids are functions of its task and turn, so two calls (or two
// turns of one task) never share one; each sub-agent run id is random. A
// late block cannot be moved into place inside a run the orchestrator owns
// (a MESSAGES_SNAPSHOT would restate the orchestrator's messages): it is
// added where it arrives. A client.Stream resumes a cut upstream itself,
// and repeated ops change nothing, so a resumed call sends no event twice.
//
// write is called with one event at a time, never concurrently; its first
// error is returned by every later call. An event is a JSON object (marshal
// it with encoding/json; AG-UI's SSE framing is one "data:" line per event).
type AGUIRun struct {
	mu     sync.Mutex
	write  func(event map[string]any) error
	err    error
	active map[string]bool
}

// NewAGUIRun returns a run that writes its events with write.
func NewAGUIRun(write func(event map[string]any) error) *AGUIRun {
	return &AGUIRun{write: write, active: map[string]bool{}}
}

// Emit writes one of the orchestrator's own events. It refuses RUN_FINISHED
// with ErrSubagentActive while a nested call runs.
func (r *AGUIRun) Emit(event map[string]any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if event["type"] == "RUN_FINISHED" && len(r.active) > 0 {
		return ErrSubagentActive
	}
	return r.writeLocked([]map[string]any{event})
}

func (r *AGUIRun) writeLocked(events []map[string]any) error {
	for _, ev := range events {
		if r.err != nil {
			return r.err
		}
		r.err = r.write(ev)
	}
	return r.err
}

func (r *AGUIRun) writeAll(events []map[string]any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writeLocked(events)
}

// SubagentOptions describe a nested call to its front end.
type SubagentOptions struct {
	// Name is the sub-agent's name (SUBAGENT_STARTED name); "a2a" when
	// empty. The remote agent's card name is a good one.
	Name string
	// Description, when set, is SUBAGENT_STARTED's description.
	Description string
	// Continues is, for the response to a nested question, the
	// subagentRunId of the sub-agent that asked (SuspendedCall's): AG-UI
	// gives each invocation an id of its own, so SUBAGENT_STARTED names it
	// in its metadata {"a2a":{"continues":…}}.
	Continues string
	// OnUpdate, when set, sees each update of the call's stream (progress,
	// reconnect notices, the result) before it is written, on Nest's
	// goroutine: to show the same progress in a log or a terminal too.
	OnUpdate func(client.Update)
}

// SubagentEnd is how a nested call ended.
type SubagentEnd struct {
	// Result is the callee's verdict (the result op's): its reply, its
	// interrupt, its error. An incomplete verdict when the stream ended
	// without one.
	Result schema.Result
	// Interrupts are, for a suspended sub-agent, the AG-UI interrupts to
	// put in the run's RUN_FINISHED outcome (OutcomeInterrupt).
	Interrupts []AGUIInterrupt
	// Suspended is, for a call that waits for the user's response
	// (input-required, auth-required), what the response goes to: hold it
	// in a PendingResponses.
	Suspended *SuspendedCall
}

// Nest runs s to its end as a sub-agent of the run's tool call
// parentToolCallID: it iterates s.Updates (s must not be iterated
// elsewhere) and writes the callee's progress and end as the type
// documents. The error is the run's write error, if any; the callee's own
// failure is in the result.
func (r *AGUIRun) Nest(parentToolCallID string, s *client.Stream, opts SubagentOptions) (SubagentEnd, error) {
	sub, err := r.start(parentToolCallID, opts)
	if err != nil {
		return SubagentEnd{}, err
	}
	for u, uerr := range s.Updates() {
		if uerr != nil {
			continue
		}
		if opts.OnUpdate != nil {
			opts.OnUpdate(u)
		}
		if err := sub.Update(u); err != nil {
			return sub.End(err)
		}
	}
	_, serr := s.Outcome()
	return sub.End(serr)
}

// aguiSubagent is one nested call of an AGUIRun, for an orchestrator that
// iterates the callee's stream itself (for instance through
// [relay.Handler.Attach], to publish it to the relay too): Update with each
// update, then End. It is used by one goroutine.
type aguiSubagent struct {
	run    *AGUIRun
	id     string
	parent string
	feed   frontFeed
	enc    *aguiEncoder
	ended  bool
	events []map[string]any
}

// start writes SUBAGENT_STARTED for a new sub-agent of the call
// parentToolCallID and returns it.
func (r *AGUIRun) start(parentToolCallID string, opts SubagentOptions) (*aguiSubagent, error) {
	var n [8]byte
	_, _ = rand.Read(n[:])
	id := "a2a-sub-" + hex.EncodeToString(n[:])
	a := &aguiSubagent{run: r, id: id, parent: parentToolCallID,
		enc: &aguiEncoder{nested: true, started: true, sub: id}}
	a.feed.enc = a.enc
	ev := map[string]any{"type": "SUBAGENT_STARTED", "subagentRunId": a.id, "name": firstNonEmpty(opts.Name, "a2a"),
		"parentToolCallId": parentToolCallID}
	if opts.Description != "" {
		ev["description"] = opts.Description
	}
	if opts.Continues != "" {
		ev["metadata"] = map[string]any{"a2a": map[string]any{"continues": opts.Continues}}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active[a.id] = true
	return a, r.writeLocked([]map[string]any{ev})
}

// ID is the sub-agent's subagentRunId.
func (a *aguiSubagent) ID() string { return a.id }

// Update writes what u changes in the callee's view (nothing for an update
// without an op).
func (a *aguiSubagent) Update(u client.Update) error {
	op, ok := u.Op()
	if !ok || a.ended {
		return nil
	}
	a.events = a.events[:0]
	a.feed.apply(&op, a.collect)
	if err := a.run.writeAll(a.events); err != nil {
		return err
	}
	return nil
}

// collect keeps an event of the callee (the encoder attributes it: to the
// sub-agent, or to one inside it).
func (a *aguiSubagent) collect(ev map[string]any) {
	a.events = append(a.events, ev)
}

// End writes the sub-agent's end: from the callee's verdict when its result
// op arrived, else as incomplete with err as the reason. It returns how the
// call ended; a second End returns the same without writing.
func (a *aguiSubagent) End(err error) (SubagentEnd, error) {
	res := SubagentEnd{}
	var out *schema.Result
	var v schema.View
	if a.feed.recv != nil {
		out = a.feed.recv.Result()
		v = a.feed.recv.View()
	}
	if out == nil {
		msg := "the remote agent's turn did not end"
		if err != nil {
			msg = client.Reason(err)
		}
		out = &schema.Result{Verdict: schema.VerdictIncomplete, Error: msg}
	}
	res.Result = *out
	if a.ended {
		return res, a.run.writeAll(nil)
	}
	a.ended = true
	a.events = a.events[:0]
	if a.feed.recv != nil && !a.enc.finished {
		// The last state the callee reached, for a turn that ended
		// without a result op.
		a.feed.render(a.collect)
		a.enc.closeSubs(a.collect, false)
	}
	var tail []map[string]any
	switch {
	case out.Verdict == schema.VerdictCompleted:
		tail = append(tail, map[string]any{"type": "SUBAGENT_FINISHED", "subagentRunId": a.id, "outcome": map[string]any{"type": "success"}},
			a.parentResult(out.Reply, out))
	case interrupted(out):
		prefix := frontPrefix(v.Task, v.Turn)
		var ids []string
		for _, in := range aguiInterrupts(&v, prefix, "", out) {
			m := in.(aguiEvent)
			ai := AGUIInterrupt{SubagentRunID: a.id}
			ai.ID, _ = m["id"].(string)
			ai.Reason, _ = m["reason"].(string)
			ai.Message, _ = m["message"].(string)
			ai.ToolCallID, _ = m["toolCallId"].(string)
			res.Interrupts = append(res.Interrupts, ai)
			ids = append(ids, ai.ID)
		}
		res.Suspended = suspended(v.Task, a.parent, a.id, ids, out)
		tail = append(tail, map[string]any{"type": "SUBAGENT_FINISHED", "subagentRunId": a.id,
			"outcome": map[string]any{"type": "suspended", "interruptIds": ids}})
	default:
		msg := firstNonEmpty(out.Error, "turn "+string(out.Verdict))
		tail = append(tail, map[string]any{"type": "SUBAGENT_ERROR", "subagentRunId": a.id, "message": msg, "code": string(out.Verdict)},
			a.parentResult(msg, out))
	}
	r := a.run
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.active, a.id)
	return res, r.writeLocked(append(a.events, tail...))
}

// parentResult is the TOOL_CALL_RESULT of the parent call: the orchestrator
// owns it, so it carries no subagentRunId.
func (a *aguiSubagent) parentResult(content string, out *schema.Result) map[string]any {
	return map[string]any{"type": "TOOL_CALL_RESULT", "messageId": a.id + "-result", "toolCallId": a.parent, "role": "tool",
		"content": content, "metadata": map[string]any{"a2a": map[string]any{"verdict": string(out.Verdict)}}}
}
