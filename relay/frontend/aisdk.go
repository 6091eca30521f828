package frontend

import (
	"net/http"
	"unicode/utf8"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/textcut"
	"github.com/tfrs/a2a-progress/relay/internal/sse"
	"github.com/tfrs/a2a-progress/schema"
)

// FormatAISDK is the ?format= name of the Vercel AI SDK's UI message stream
// (protocol v1, the stream useChat reads) on the task events endpoint — a
// resumed stream, as below, for a custom transport that watches a task — and
// the wire format of relay.Handler.Chat.
//
// A turn is one assistant UIMessage whose id is a function of the task and
// the turn ("start" names it). Its parts, in view order: reasoning-start /
// -delta / -end for thinking, text-start / -delta / -end for text and for the
// reply (providerMetadata {"a2a":{"kind":"reply"}} marks it), a dynamic, provider-executed tool part per call (tool-input-start
// then tool-input-available with input {}: the remote agent runs the tool, so
// useChat's onToolCall never fires for it), and data parts for what has no
// native part: "data-a2a-error" per error block (visible, never terminal),
// "data-a2a-gaps" (id "gaps", replaced in place as the count changes) and
// "data-a2a-result" (id "result": the verdict, the interrupt's question and
// items, the error).
//
// A call's output travels in tool-output-available: preliminary:true while
// the call runs — each one replaces the last, so it carries the output so far
// ({status, output}), its last 4 KiB when longer (omittedBytes: the bytes
// before them) — and one non-preliminary, whole, when the call is done or
// unfinished; an aborted call ends with tool-output-error whose errorText is
// the callee's reason (the text of the aborted error block of its key), so
// that useChat shows a failed call, not a success. The stream ends with
// finish (completed: finishReason stop; interrupted: other) or with error
// (failed, rejected, canceled, incomplete), then "data: [DONE]". A stream
// resumed after its turn settled ends a failed turn with finish
// (finishReason error) instead: the client had its error part, and useChat
// would fire onError again for the same failure.
//
// The reader is strict (a delta without its start throws) and appends parts
// in arrival order, while blocks may arrive late. Every part is sent whole
// (start, delta, end at once), so no part is ever open between two flushes;
// when a late block lands before what was sent, the encoder sends
// "reset-step" — which drops the message's parts (no step is ever started, so
// the step is the whole message) — and the view again in order. That
// restates the whole message, so late blocks are paced (frontFeed): told at
// once out of place where they start a part, re-sends paid for by the ops
// before them.
//
// Resume (useChat({resume: true}) GETs /api/chat/{id}/stream): the AI SDK's
// own resumable streams replay the whole buffer, which duplicated messages.
// Here a resumed stream starts with "start" naming the same message id and a
// "reset-step", then the turn's current view, then live parts: the reader
// either starts the message afresh (DefaultChatTransport's default,
// resumeStreamIsReplay) or keeps it and drops its parts — either way it
// replaces the message it has, in place, and each block is there once. What
// it re-sends is the current view (one part per block), never the history of
// deltas and preliminary outputs.
const FormatAISDK = "ai-sdk"

// aisdkEvent is one UI message stream part, marshalled as its JSON object.
type aisdkEvent = map[string]any

// aisdkHeader and aisdkHeaderValue are the header that marks a UI message
// stream response (protocol v1).
const (
	aisdkHeader      = "x-vercel-ai-ui-message-stream"
	aisdkHeaderValue = "v1"
)

// aisdkEncoder turns the successive views of one turn into UI message stream
// parts for one client connection. It is not safe for concurrent use.
type aisdkEncoder struct {
	// resume makes the stream restate the message: the client may hold it
	// from a cut connection.
	resume bool

	started, finished bool
	// restates counts the reset-steps sent (restated).
	restates int
	gaps     int64
	sent     frontSent
	ids      *frontIDs
	// reasons are why the turn's aborted tool calls were aborted, by tool
	// key: the text of the aborted error block of the key (the callee's
	// reason). Bounded by merge.Caps (keys per turn); the strings are the
	// view's.
	reasons map[string]string
}

// sync emits what the client lacks to show view v (of its turn) and, once
// it is known, the result. The caller writes "data: [DONE]" after the
// finishing part.
func (e *aisdkEncoder) sync(v *schema.View, out *frontResult, emit func(aisdkEvent)) {
	if e.finished {
		return
	}
	prefix := frontPrefix(v.Task, v.Turn)
	e.ids = e.ids.forTurn(prefix)
	if !e.started {
		e.started = true
		emit(aisdkEvent{"type": "start", "messageId": prefix,
			"messageMetadata": aisdkEvent{"a2a": aisdkEvent{"task": v.Task, "turn": v.Turn}}})
	}
	items := frontItems(v, e.ids, out)
	// A stream resumed after its turn settled restates a message the
	// client may already have ended: it ends it without the error part,
	// so that onError does not fire again for the same failure.
	settledAtResume := e.resume && out != nil
	if e.resume || !e.sent.extends(items) {
		e.resume = false
		emit(aisdkEvent{"type": "reset-step"})
		e.restates++
		e.sent.reset()
		e.gaps = 0
	}
	for i := len(e.sent.items); i < len(items); i++ {
		e.noteReason(&items[i]) // before the calls it closes are sent
	}
	for i := range e.sent.items {
		if it := &items[i]; it.kind == itemTool {
			e.updateTool(&e.sent.items[i], it, emit)
		}
	}
	for i := len(e.sent.items); i < len(items); i++ {
		e.add(&items[i], emit)
	}
	e.gapsNow(v.Counters.Gaps, emit)
	if out != nil {
		e.finished = true
		emit(aisdkEvent{"type": "data-a2a-result", "id": "result", "data": out})
		switch {
		case out.Verdict == "completed":
			emit(aisdkEvent{"type": "finish", "finishReason": "stop"})
		case interrupted(out):
			emit(aisdkEvent{"type": "finish", "finishReason": "other"})
		default:
			msg := out.Error
			if msg == "" {
				msg = "turn " + string(out.Verdict)
			}
			if settledAtResume {
				emit(aisdkEvent{"type": "finish", "finishReason": "error"})
			} else {
				emit(aisdkEvent{"type": "error", "errorText": msg})
			}
		}
	}
}

// add sends a new item whole.
func (e *aisdkEncoder) add(it *frontItem, emit func(aisdkEvent)) {
	switch it.kind {
	case itemThinking:
		start := aisdkEvent{"type": "reasoning-start", "id": it.id}
		if m := e.nestMeta(it); m != nil {
			start["providerMetadata"] = aisdkEvent{"a2a": m}
		}
		emit(start)
		if it.text != "" {
			emit(aisdkEvent{"type": "reasoning-delta", "id": it.id, "delta": it.text})
		}
		emit(aisdkEvent{"type": "reasoning-end", "id": it.id})
	case itemText, itemReply:
		start := aisdkEvent{"type": "text-start", "id": it.id}
		if it.kind == itemReply {
			// A text part keeps no id; the reply is told apart by this.
			start["providerMetadata"] = aisdkEvent{"a2a": aisdkEvent{"kind": "reply"}}
		} else if m := e.nestMeta(it); m != nil {
			start["providerMetadata"] = aisdkEvent{"a2a": m}
		}
		emit(start)
		if it.text != "" {
			emit(aisdkEvent{"type": "text-delta", "id": it.id, "delta": it.text})
		}
		emit(aisdkEvent{"type": "text-end", "id": it.id})
	case itemError:
		e.noteReason(it)
		data := aisdkEvent{"message": it.text}
		for k, v := range e.nestMeta(it) {
			data[k] = v
		}
		emit(aisdkEvent{"type": "data-a2a-error", "id": it.id, "data": data})
	case itemTool:
		name := it.toolName()
		emit(aisdkEvent{"type": "tool-input-start", "toolCallId": it.id, "toolName": name,
			"providerExecuted": true, "dynamic": true})
		emit(aisdkEvent{"type": "tool-input-available", "toolCallId": it.id, "toolName": name,
			"input": aisdkEvent{}, "providerExecuted": true, "dynamic": true, "toolMetadata": e.toolMeta(it)})
		if it.tool.Output != "" || toolClosed(it.tool.Status) {
			emit(e.output(it))
		}
	}
	e.sent.put(it)
}

// updateTool sends a call's output again when it changed or the call closed:
// a preliminary output replaces the last one, so it is always the whole
// output so far.
func (e *aisdkEncoder) updateTool(r *sentItem, it *frontItem, emit func(aisdkEvent)) {
	_, same, _ := e.sent.outputChange(r, it.tool.Output)
	if same && it.tool.Status == r.status {
		return
	}
	emit(e.output(it))
	e.sent.put(it)
}

// noteReason remembers the reason of an aborted error block of a tool key.
func (e *aisdkEncoder) noteReason(it *frontItem) {
	if it.kind != itemError || it.block == nil || it.block.Status != envelope.StatusAborted {
		return
	}
	if key := it.block.ToolKey(); key != "" {
		if e.reasons == nil {
			e.reasons = map[string]string{}
		}
		e.reasons[key] = it.text
	}
}

// output is a call's output part: an aborted call is tool-output-error with
// the callee's reason — useChat shows it as a failed call, not a success.
func (e *aisdkEncoder) output(it *frontItem) aisdkEvent {
	if it.tool.Status == schema.ToolAborted {
		reason := e.reasons[it.tool.Key]
		if reason == "" {
			reason = "tool call aborted"
		}
		return aisdkEvent{"type": "tool-output-error", "toolCallId": it.id, "providerExecuted": true, "dynamic": true,
			"errorText": reason}
	}
	return aisdkOutput(it)
}

func aisdkOutput(it *frontItem) aisdkEvent {
	if toolClosed(it.tool.Status) {
		return aisdkToolOutput(it.id, it.tool.Output, 0, it.tool.Status)
	}
	tail, omitted := aisdkTail(it.tool.Output)
	return aisdkToolOutput(it.id, tail, omitted, it.tool.Status)
}

// aisdkTailBytes bounds the output a preliminary tool-output-available
// carries: the last 4 KiB of a running call's output, so that each chunk
// costs the wire, the encoder and the browser O(1), not the whole output
// so far (a 3 000-chunk call re-sent 26 KB per op before). The final
// output is whole.
const aisdkTailBytes = 4 << 10

// aisdkTail returns the last aisdkTailBytes of out, cut at a rune, and the
// number of bytes before them. It reads and copies only the tail.
func aisdkTail[T ~string | ~[]byte](out T) (tail string, omitted int) {
	start := max(0, len(out)-aisdkTailBytes-utf8.UTFMax)
	s := string(out[start:])
	cut := textcut.After(s, len(s)-aisdkTailBytes)
	return s[cut:], start + cut
}

// aisdkToolOutput is the output of the call id: preliminary while it runs
// — its tail, omitted the bytes before it ("omittedBytes", when not 0) —
// or its final one, whole.
func aisdkToolOutput(id, output string, omitted int, status schema.ToolStatus) aisdkEvent {
	out := aisdkEvent{"status": string(status), "output": output}
	if omitted > 0 {
		out["omittedBytes"] = omitted
	}
	ev := aisdkEvent{"type": "tool-output-available", "toolCallId": id, "providerExecuted": true, "dynamic": true,
		"output": out}
	if !toolClosed(status) {
		ev["preliminary"] = true
	}
	return ev
}

// toolMeta carries what the A2A side calls the tool call: its stream key
// and tool_call_id (the part's toolCallId is a hash of them), and where it
// nests (nestMeta).
func (e *aisdkEncoder) toolMeta(it *frontItem) aisdkEvent {
	m := aisdkEvent{"key": it.tool.Key}
	if it.tool.ToolCallID != "" {
		m["toolCallId"] = it.tool.ToolCallID
	}
	for k, v := range e.nestMeta(it) {
		m[k] = v
	}
	return aisdkEvent{"a2a": m}
}

// nestMeta is where an item nests in a chain's tree (PROTOCOL.md §10.3):
// parent, the toolCallId of the tool part it belongs under, and its depth;
// nil at the top level.
func (e *aisdkEncoder) nestMeta(it *frontItem) aisdkEvent {
	if it.owner == "" {
		return nil
	}
	return aisdkEvent{"parent": e.ids.tool(it.owner), "depth": it.depth}
}

// AISDKFormat is the relay.Format of FormatAISDK: give it to relay.New with
// relay.WithFormat(FormatAISDK, AISDKFormat) to serve ?format=ai-sdk. It
// returns a relay.Encoder.
func AISDKFormat(*http.Request, string) (sse.Encoder, error) { return NewAISDKEncoder(true), nil }

// NewAISDKEncoder returns the relay.Encoder of a UI message stream
// (relay.Handler.Chat's). resume makes the stream restate the message: the
// client may hold it from a cut connection.
func NewAISDKEncoder(resume bool) sse.Encoder { return newAISDKStream(resume) }

func newAISDKStream(resume bool) *frontStream {
	return &frontStream{
		frontFeed: frontFeed{enc: &aisdkEncoder{resume: resume}},
		header:    func(h http.Header) { h.Set(aisdkHeader, aisdkHeaderValue) },
		end: func(ew *sse.EventWriter, settled bool) error {
			if !settled {
				// The turn goes on: no [DONE], so that the client treats the
				// end as a cut it may resume.
				return nil
			}
			return ew.Event("", "", []byte("[DONE]"))
		},
	}
}

// RefuseChat responds to a chat request when the agent refused its turn before
// it named a task: a UI message stream of start, error (reason), [DONE].
func RefuseChat(w http.ResponseWriter, reason string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set(aisdkHeader, aisdkHeaderValue)
	ew := newEventWriter(w)
	_ = writeJSONEvent(ew, aisdkEvent{"type": "start"})
	_ = writeJSONEvent(ew, aisdkEvent{"type": "error", "errorText": reason})
	_ = ew.Event("", "", []byte("[DONE]"))
	_ = ew.Flush()
}

func (e *aisdkEncoder) appendItem(it *frontItem, emit func(aisdkEvent)) { e.add(it, emit) }
func (e *aisdkEncoder) growTool(key, chunk string, status schema.ToolStatus, emit func(aisdkEvent)) bool {
	// An aborted call ends with the callee's reason, which the render
	// path reads from the view's error blocks.
	if e.ids == nil || e.finished || status == schema.ToolAborted {
		return false
	}
	r, out, ok := e.sent.growTool(e.ids.tool(key), chunk, status)
	if !ok {
		return false
	}
	if toolClosed(status) {
		emit(aisdkToolOutput(r.id, string(out), 0, status))
		return true
	}
	tail, omitted := aisdkTail(out)
	emit(aisdkToolOutput(r.id, tail, omitted, status))
	return true
}

func (e *aisdkEncoder) done() bool         { return e.finished }
func (e *aisdkEncoder) restated() int      { return e.restates }
func (e *aisdkEncoder) itemIDs() *frontIDs { return e.ids }

// gapsNow sends the count of missing seqs when it changed.
func (e *aisdkEncoder) gapsNow(n int64, emit func(aisdkEvent)) {
	if n != e.gaps {
		e.gaps = n
		emit(aisdkEvent{"type": "data-a2a-gaps", "id": "gaps", "data": aisdkEvent{"count": n}})
	}
}
