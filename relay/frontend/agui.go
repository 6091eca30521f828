package frontend

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/tfrs/a2a-progress/internal/jsonstr"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay/internal/sse"
	"github.com/tfrs/a2a-progress/schema"
)

// FormatAGUI is the ?format= name of AG-UI (the protocol of @ag-ui/client
// 1.0 and CopilotKit) on the task events endpoint, and the wire format of
// relay.Handler.AGUI.
//
// The client verifies the lifecycle strictly: one RUN_STARTED, every
// TEXT_MESSAGE_*, REASONING_* and TOOL_CALL_* bracket opened before it is
// continued and closed before RUN_FINISHED, nothing after RUN_FINISHED or
// RUN_ERROR. Blocks, though, may arrive late and out of order. So the
// encoder never leaves a bracket open between two flushes — a block is
// complete when it arrives, and is sent as START, CONTENT, END at once; a tool
// call's arguments are complete at once too (A2A progress carries none: "{}")
// — and it emits items in view order: when a view only adds items at the end
// and grows or closes calls, it sends just that; when a late block lands
// before what was sent (or a late tool_call block renames a call), it
// re-synchronises with one MESSAGES_SNAPSHOT that restates the conversation:
// the messages the client sent in its RunAgentInput, then the turn's items in
// view order. The client's reducer updates a message it holds in place and
// never moves it, so the snapshot names the turn's items afresh (a suffix per
// snapshot); the copies the client held, from this connection or a cut one,
// are left out and so dropped: each block once, in view order. A reconnect
// starts with such a snapshot. Snapshots restate the whole turn, so late
// blocks are paced (frontFeed): told at once out of place where they start
// an item, snapshots paid for by the ops before them.
//
// Live tool output travels in an activity message per call (activityType
// "a2a-tool-output", content {tool, toolCallId, status, chunks}), created by
// ACTIVITY_SNAPSHOT when the call starts and grown by ACTIVITY_DELTA
// ({"op":"add","path":"/chunks/-"}) — AG-UI has no incremental tool output
// event, and TOOL_CALL_RESULT is whole and final. An activity message rather
// than STATE_DELTA: it stands in the message list next to its call, where a
// front end renders it (CopilotKit renders activity messages by type), it
// leaves the application's state alone, and the client strips activity
// messages from the next RunAgentInput, so output never travels back to the
// agent; state would, on every later run. An output that changes other than
// by growing (a late chunk, a gap filled, the head cut by the output cap) is
// re-sent whole with ACTIVITY_SNAPSHOT. When the call closes, TOOL_CALL_RESULT
// carries the whole output, with the call's status in its metadata
// ({"a2a":{"status":"done"|"aborted"|"unfinished"}}).
//
// Error blocks are assistant text messages with metadata
// {"a2a":{"kind":"error"}}: visible in any client, never terminal. The verdict
// ends the run: completed — the reply as the last assistant message, then
// RUN_FINISHED with outcome success and the outcome under result.a2a;
// input-required and auth-required — RUN_FINISHED with outcome interrupt (one
// Interrupt per item, or one for the question), whose ids name the task
// ("a2a:<task>:<n>") so that the run that responds to it finds the task again;
// canceled — RUN_FINISHED with outcome cancelled (AG-UI 1.0's own end
// state); failed, rejected, incomplete — RUN_ERROR with the verdict as code.
//
// On the task events endpoint, a GET watches the task (threadId and runId
// from the query, the task id when absent): the stream opens with a MESSAGES_SNAPSHOT of the
// turn, which replaces whatever messages the client held. A POST with the
// RunAgentInput the client would send for a run (as HttpAgent's requestInit
// makes it, e.g. from a connect() override) reconnects: the snapshot
// restates the input's messages, then the turn, so the client keeps its
// conversation.
const FormatAGUI = "ag-ui"

// aguiTaskEvent is the name of the CUSTOM event, right after RUN_STARTED,
// whose value {task, turn} names the A2A task the run follows.
const aguiTaskEvent = "a2a.task"

// aguiActivityType is the activityType of the activity message that carries a
// tool call's live output.
const aguiActivityType = "a2a-tool-output"

// aguiEvent is one AG-UI event, marshalled as its JSON object.
type aguiEvent = map[string]any

// aguiEncoder turns the successive views of one turn into AG-UI events for
// one client connection. It is not safe for concurrent use.
type aguiEncoder struct {
	threadID, runID string
	// history is the conversation the client holds besides this turn (the
	// RunAgentInput's messages), restated in a MESSAGES_SNAPSHOT; nil when
	// the client sent none.
	history []json.RawMessage
	// reconnect makes the first sync a MESSAGES_SNAPSHOT: the client may
	// hold part of the turn from a cut connection.
	reconnect bool

	// nested renders the turn as a sub-agent inside another agent's run
	// (AGUIRun): no RUN_STARTED, no reply message (the reply is the parent
	// call's result), no MESSAGES_SNAPSHOT (the run's messages are not the
	// callee's to restate: a late item is added where it arrives), and the
	// end left to the sub-agent (sync only marks the encoder finished).
	nested bool

	// sub is the subagentRunId that the turn's top-level events carry: ""
	// for a run of its own, the sub-agent's in AGUIRun.
	sub string

	started, finished bool
	// restates counts the snapshots sent (restated).
	restates int
	sent     frontSent
	ids      *frontIDs
	// suffix is appended to every id after the first snapshot (see
	// snapshot).
	suffix string
	epoch  int

	// calls are the view's tool calls by key: the call each one belongs
	// under and its name (for the sub-agent it opens). subs are the
	// sub-agents of the calls that items belong under (PROTOCOL.md §9.3),
	// by the call's key, in the order they started (subOrder). All three
	// are as bounded as the turn's tool calls (merge.Caps).
	calls    map[string]aguiCall
	subs     map[string]*aguiSub
	subOrder []string
	// owners are the calls that new items of the render being sent belong
	// under; pending the closed ones among them, whose TOOL_CALL_RESULT
	// waits for their sub-agent to end (settle).
	owners  map[string]bool
	pending []*frontItem

	// textRun is, nested, the text message that the next text item of the
	// same run (sub-agent) continues: consecutive text blocks are one
	// message per run of text, not one each (a long turn would otherwise
	// be hundreds of messages). Any other item ends the run of text.
	textRun struct{ id, run string }
}

// aguiCall is what the AG-UI encoder notes of a tool call of the view.
type aguiCall struct {
	owner, name string
}

// aguiSub is the sub-agent of a tool call that items belong under: what a
// forwarded call did (PROTOCOL.md §10) runs inside the call that forwarded
// it.
type aguiSub struct {
	id string
	// owner is the key of the call the tool call itself belongs under.
	owner string
	open  bool
}

// sync emits what the client lacks to show view v (of its turn) and, once
// it is known, the result.
func (e *aguiEncoder) sync(v *schema.View, out *frontResult, emit func(aguiEvent)) {
	if e.finished {
		return
	}
	prefix := frontPrefix(v.Task, v.Turn)
	e.ids = e.ids.forTurn(prefix)
	if !e.started {
		e.started = true
		emit(aguiEvent{"type": "RUN_STARTED", "threadId": e.threadID, "runId": e.runID})
		// The A2A task the run follows: what a client needs to reconnect
		// through the task events endpoint.
		emit(aguiEvent{"type": "CUSTOM", "name": aguiTaskEvent, "value": aguiEvent{"task": v.Task, "turn": v.Turn}})
	}
	if e.nested {
		items := frontItems(v, e.ids, nil)
		e.noteCalls(items)
		e.noteOwners(items, func(it *frontItem) bool { return e.sent.lookup(it.id) == nil })
		e.syncNested(items, emit)
		e.settle(emit)
		if out != nil {
			e.finished = true
			e.closeSubs(emit, false)
		}
		return
	}
	items := frontItems(v, e.ids, out)
	e.noteCalls(items)
	if e.reconnect || !e.sent.extends(items) {
		e.reconnect = false
		e.snapshot(items, prefix, emit)
	} else {
		n := len(e.sent.items)
		e.noteOwners(items[n:], nil)
		for i := range e.sent.items {
			if it := &items[i]; it.kind == itemTool {
				e.updateTool(&e.sent.items[i], it, emit)
			}
		}
		for i := n; i < len(items); i++ {
			e.add(&items[i], emit)
		}
		e.settle(emit)
	}
	if out != nil {
		e.finished = true
		e.closeSubs(emit, false)
		emit(e.end(v, prefix, out))
	}
}

// noteOwners notes the calls that the items to send (all of items, or
// those for which send is true) belong under.
func (e *aguiEncoder) noteOwners(items []frontItem, send func(*frontItem) bool) {
	clear(e.owners)
	for i := range items {
		if it := &items[i]; it.owner != "" && (send == nil || send(it)) {
			if e.owners == nil {
				e.owners = map[string]bool{}
			}
			for k, d := it.owner, 0; k != "" && d <= merge.MaxDepth; k, d = e.calls[k].owner, d+1 {
				e.owners[k] = true
			}
		}
	}
}

// result sends the TOOL_CALL_RESULT of a closed call, or keeps it for
// settle when items of this render belong under the call: its sub-agent
// ends first.
func (e *aguiEncoder) result(base *frontItem, run string, emit func(aguiEvent)) {
	if e.owners[base.tool.Key] {
		e.pending = append(e.pending, base)
		return
	}
	e.closeSub(base.tool.Key, base.tool.Status, emit)
	emit(stamp(aguiResultEvent(e.named(base)), run))
}

// settle ends what a render left open: the sub-agents of the calls whose
// results waited (the inner ones first), then their results, and any
// sub-agent whose call closed before items came under it.
func (e *aguiEncoder) settle(emit func(aguiEvent)) {
	for i := len(e.pending) - 1; i >= 0; i-- {
		it := e.pending[i]
		e.closeSub(it.tool.Key, it.tool.Status, emit)
		emit(stamp(aguiResultEvent(e.named(it)), e.runOf(it.owner, emit)))
	}
	e.pending = e.pending[:0]
	clear(e.owners)
	for i := len(e.subOrder) - 1; i >= 0; i-- {
		if k := e.subOrder[i]; e.subs[k].open && toolClosed(e.statusOf(k)) {
			e.closeSub(k, e.statusOf(k), emit)
		}
	}
}

// noteCalls notes the view's calls.
func (e *aguiEncoder) noteCalls(items []frontItem) {
	if e.calls == nil {
		e.calls = map[string]aguiCall{}
	}
	for i := range items {
		if it := &items[i]; it.kind == itemTool {
			e.calls[it.tool.Key] = aguiCall{owner: it.owner, name: it.toolName()}
		}
	}
}

// runOf returns the subagentRunId of the events of an item under the call
// owner ("" the top level), starting the sub-agent of owner — and of the
// calls above it — when it has not started.
func (e *aguiEncoder) runOf(owner string, emit func(aguiEvent)) string {
	if owner == "" {
		return e.sub
	}
	if s := e.subs[owner]; s != nil {
		return s.id
	}
	c := e.calls[owner]
	// The owners of calls follow the view's depths, which end at the top
	// level: this recursion is at most merge.MaxDepth deep.
	parent := e.runOf(c.owner, emit)
	s := &aguiSub{id: frontID(e.ids.prefix, "s", owner) + e.suffix, owner: c.owner, open: true}
	ev := aguiEvent{"type": "SUBAGENT_STARTED", "subagentRunId": s.id, "name": firstNonEmpty(c.name, "tool"),
		"parentToolCallId": e.ids.tool(owner) + e.suffix}
	if parent != "" {
		ev["parentSubagentRunId"] = parent
	}
	emit(ev)
	if e.subs == nil {
		e.subs = map[string]*aguiSub{}
	}
	e.subs[owner] = s
	e.subOrder = append(e.subOrder, owner)
	return s.id
}

// closeSub ends the sub-agent of the call key, if open, as its call ended
// (status); the sub-agents under it first.
func (e *aguiEncoder) closeSub(key string, status schema.ToolStatus, emit func(aguiEvent)) {
	s := e.subs[key]
	if s == nil || !s.open {
		return
	}
	for i := len(e.subOrder) - 1; i >= 0; i-- {
		if k := e.subOrder[i]; k != key && e.subs[k].open && e.under(k, key) {
			e.closeSub(k, e.statusOf(k), emit)
		}
	}
	s.open = false
	emit(aguiSubEnd(s.id, status, false))
}

// under reports whether the sub-agent of the call k runs inside the one of
// the call key.
func (e *aguiEncoder) under(k, key string) bool {
	for d := 0; d <= merge.MaxDepth+1 && k != ""; d++ {
		k = e.subs[k].owner
		if k == key {
			return true
		}
		if e.subs[k] == nil {
			return false
		}
	}
	return false
}

// statusOf is the status the client holds of the call key.
func (e *aguiEncoder) statusOf(key string) schema.ToolStatus {
	if r := e.sent.lookup(e.ids.tool(key)); r != nil {
		return r.status
	}
	return schema.ToolRunning
}

// closeSubs ends every open sub-agent, the inner ones first: the run (or
// the enclosing sub-agent) cannot end with one active. superseded ends
// them without an outcome: a resynchronisation replaces their messages.
func (e *aguiEncoder) closeSubs(emit func(aguiEvent), superseded bool) {
	for i := len(e.subOrder) - 1; i >= 0; i-- {
		if s := e.subs[e.subOrder[i]]; s.open {
			s.open = false
			emit(aguiSubEnd(s.id, e.statusOf(e.subOrder[i]), superseded))
		}
	}
}

// aguiSubEnd ends the sub-agent id of a call that ended with status: a
// done call's succeeded, an aborted or unfinished one's failed with the
// status as code (a call still running when its turn ended is
// unfinished).
func aguiSubEnd(id string, status schema.ToolStatus, superseded bool) aguiEvent {
	switch {
	case superseded:
		return aguiEvent{"type": "SUBAGENT_FINISHED", "subagentRunId": id}
	case status == schema.ToolDone:
		return aguiEvent{"type": "SUBAGENT_FINISHED", "subagentRunId": id, "outcome": aguiEvent{"type": "success"}}
	}
	if !toolClosed(status) {
		status = schema.ToolUnfinished
	}
	return aguiEvent{"type": "SUBAGENT_ERROR", "subagentRunId": id, "code": string(status), "message": "tool call " + string(status)}
}

// stamp attributes ev to the sub-agent run ("": the run itself), unless
// it names its own (a sub-agent's start or end).
func stamp(ev aguiEvent, run string) aguiEvent {
	if _, own := ev["subagentRunId"]; run != "" && !own {
		ev["subagentRunId"] = run
	}
	return ev
}

// syncNested sends what a sub-agent's client lacks without moving what it
// holds: the calls it has are updated, the items it lacks added at the end
// (a late block appears after the items sent before it arrived).
func (e *aguiEncoder) syncNested(items []frontItem, emit func(aguiEvent)) {
	for i := range items {
		it := &items[i]
		if r := e.sent.lookup(it.id); r != nil {
			if it.kind == itemTool {
				e.updateTool(r, it, emit)
			}
			continue
		}
		e.add(it, emit)
	}
}

// snapshot restates the conversation: the history without this turn's items
// (a reconnecting client sends back what it got of them), then every item in
// view order, as the events would have built them.
func (e *aguiEncoder) snapshot(items []frontItem, prefix string, emit func(aguiEvent)) {
	// The messages are written directly: a snapshot restates the whole
	// turn, and a map per message was most of its cost.
	msgs := append(make(rawJSON, 0, 256*len(items)+64), '[')
	for _, raw := range e.history {
		var m struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &m) == nil && strings.HasPrefix(m.ID, prefix+"-") {
			continue
		}
		// The client's own JSON, compacted: an SSE data line holds no
		// line break.
		n := len(msgs)
		if len(msgs) > 1 {
			msgs = append(msgs, ',')
		}
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			msgs = msgs[:n]
			continue
		}
		msgs = append(msgs, buf.Bytes()...)
	}
	// The client's reducer updates a message it has in place and appends the
	// others, so a snapshot cannot move a message: it can only drop the ones
	// it leaves out. The snapshot therefore names the turn's items afresh —
	// a suffix of its own (a random nonce per encoder and a count) — which
	// drops every earlier copy, whichever connection sent it, and appends
	// the items in view order.
	e.epoch++
	if e.epoch == 1 {
		var n [4]byte
		_, _ = rand.Read(n[:])
		e.suffix = "." + hex.EncodeToString(n[:])
	}
	e.suffix = e.suffix[:9] + "." + strconv.Itoa(e.epoch)
	e.restates++
	e.sent.reset()
	// The sub-agents of the earlier ids end (their messages are dropped);
	// those of the new ones start before the messages that name them, and
	// the ones of closed calls end after.
	e.closeSubs(emit, true)
	clear(e.subs)
	e.subOrder = e.subOrder[:0]
	for i := range items {
		it := e.named(&items[i])
		run := e.runOf(it.owner, emit)
		if len(msgs) > 1 {
			msgs = append(msgs, ',')
		}
		msgs = appendSnapshotMessages(msgs, it, run)
		e.sent.put(&items[i])
	}
	msgs = append(msgs, ']')
	emit(aguiEvent{"type": "MESSAGES_SNAPSHOT", "messages": msgs,
		// The snapshot owns the activity messages of its own type only: the
		// client then keeps any other activity it shows.
		"metadata": aguiEvent{"@ag-ui/client": aguiEvent{"authoritativeActivityTypes": []string{aguiActivityType}}}})
	e.settle(emit)
}

// appendSnapshotMessages appends the messages of item it (attributed to the
// sub-agent run, "" the run itself) to a MESSAGES_SNAPSHOT's list: the
// messages its events would have built — a tool call's assistant message,
// its result once closed, and its output's activity message.
func appendSnapshotMessages(dst rawJSON, it *frontItem, run string) rawJSON {
	str := func(key, v string) {
		dst = append(dst, ',', '"')
		dst = append(dst, key...)
		dst = append(dst, '"', ':')
		dst = jsonstr.AppendQuoted(dst, v)
	}
	open := func(id, role string) {
		dst = append(dst, `{"id":`...)
		dst = jsonstr.AppendQuoted(dst, id)
		str("role", role)
	}
	closeMsg := func() {
		if run != "" {
			str("subagentRunId", run)
		}
		dst = append(dst, '}')
	}
	switch it.kind {
	case itemThinking:
		open(it.id, "reasoning")
		str("content", it.text)
	case itemText, itemReply:
		open(it.id, "assistant")
		str("content", it.text)
	case itemError:
		open(it.id, "assistant")
		str("content", it.text)
		dst = append(dst, `,"metadata":{"a2a":{"kind":"error"}}`...)
	case itemTool:
		open(it.id, "assistant")
		dst = append(dst, `,"toolCalls":[{"id":`...)
		dst = jsonstr.AppendQuoted(dst, it.id)
		dst = append(dst, `,"type":"function","function":{"name":`...)
		dst = jsonstr.AppendQuoted(dst, it.toolName())
		dst = append(dst, `,"arguments":"{}"},"metadata":{"a2a":{"key":`...)
		dst = jsonstr.AppendQuoted(dst, it.tool.Key)
		if it.tool.ToolCallID != "" {
			str("toolCallId", it.tool.ToolCallID)
		}
		dst = append(dst, "}}}]"...)
		closeMsg()
		if toolClosed(it.tool.Status) {
			dst = append(dst, ',')
			open(it.id+"-result", "tool")
			str("toolCallId", it.id)
			str("content", it.tool.Output)
			dst = append(dst, `,"metadata":{"a2a":{"status":`...)
			dst = jsonstr.AppendQuoted(dst, string(it.tool.Status))
			dst = append(dst, "}}"...)
			closeMsg()
		}
		dst = append(dst, ',')
		open(it.id+"-output", "activity")
		str("activityType", aguiActivityType)
		dst = append(dst, `,"content":{"tool":`...)
		dst = jsonstr.AppendQuoted(dst, it.toolName())
		str("status", string(it.tool.Status))
		dst = append(dst, `,"chunks":[`...)
		dst = jsonstr.AppendQuoted(dst, it.tool.Output)
		dst = append(dst, ']')
		if it.tool.ToolCallID != "" {
			str("toolCallId", it.tool.ToolCallID)
		}
		dst = append(dst, '}')
	}
	closeMsg()
	return dst
}

// named returns the item under the ids this encoder uses now.
func (e *aguiEncoder) named(it *frontItem) *frontItem {
	if e.suffix == "" {
		return it
	}
	c := *it
	c.id += e.suffix
	return &c
}

// add sends a new item whole: no bracket stays open.
func (e *aguiEncoder) add(base *frontItem, send func(aguiEvent)) {
	it := e.named(base)
	run := e.runOf(it.owner, send)
	emit := func(ev aguiEvent) { send(stamp(ev, run)) }
	switch it.kind {
	case itemThinking:
		emit(aguiEvent{"type": "REASONING_START", "messageId": it.id})
		emit(aguiEvent{"type": "REASONING_MESSAGE_START", "messageId": it.id, "role": "reasoning"})
		if it.text != "" {
			emit(aguiEvent{"type": "REASONING_MESSAGE_CONTENT", "messageId": it.id, "delta": it.text})
		}
		emit(aguiEvent{"type": "REASONING_MESSAGE_END", "messageId": it.id})
		emit(aguiEvent{"type": "REASONING_END", "messageId": it.id})
	case itemText, itemReply, itemError:
		if it.kind == itemText && e.nested && e.textRun.id != "" && e.textRun.run == run {
			// AG-UI reopens a message that ended: the client appends the
			// content to it, in place.
			if it.text != "" {
				emit(aguiEvent{"type": "TEXT_MESSAGE_START", "messageId": e.textRun.id, "role": "assistant"})
				emit(aguiEvent{"type": "TEXT_MESSAGE_CONTENT", "messageId": e.textRun.id, "delta": "\n" + it.text})
				emit(aguiEvent{"type": "TEXT_MESSAGE_END", "messageId": e.textRun.id})
			}
			e.sent.put(base)
			return
		}
		start := aguiEvent{"type": "TEXT_MESSAGE_START", "messageId": it.id, "role": "assistant"}
		if it.kind == itemError {
			start["metadata"] = aguiErrorMeta()
		}
		emit(start)
		if it.text != "" {
			emit(aguiEvent{"type": "TEXT_MESSAGE_CONTENT", "messageId": it.id, "delta": it.text})
		}
		emit(aguiEvent{"type": "TEXT_MESSAGE_END", "messageId": it.id})
	case itemTool:
		start := aguiEvent{"type": "TOOL_CALL_START", "toolCallId": it.id, "toolCallName": it.toolName()}
		if m := aguiToolMeta(it); m != nil {
			start["metadata"] = m
		}
		emit(start)
		emit(aguiEvent{"type": "TOOL_CALL_ARGS", "toolCallId": it.id, "delta": "{}"})
		emit(aguiEvent{"type": "TOOL_CALL_END", "toolCallId": it.id})
		emit(aguiEvent{"type": "ACTIVITY_SNAPSHOT", "messageId": it.id + "-output", "activityType": aguiActivityType,
			"content": aguiActivity(it, []string{it.tool.Output}), "replace": true})
		if toolClosed(it.tool.Status) {
			e.result(base, run, emit)
		}
	}
	e.textRun.id, e.textRun.run = "", ""
	if it.kind == itemText && e.nested {
		e.textRun.id, e.textRun.run = it.id, run
	}
	e.sent.put(base)
}

// updateTool sends what changed in a call the client has: more output, a
// changed output, its close.
func (e *aguiEncoder) updateTool(r *sentItem, base *frontItem, send func(aguiEvent)) {
	it := e.named(base)
	// The call's events go where it was opened (the client checks it).
	run := e.runOf(r.owner, send)
	emit := func(ev aguiEvent) { send(stamp(ev, run)) }
	tail, same, appended := e.sent.outputChange(r, it.tool.Output)
	status := it.tool.Status
	switch {
	case same && status == r.status:
		return
	case appended || same:
		var patch []any
		if appended {
			patch = append(patch, aguiEvent{"op": "add", "path": "/chunks/-", "value": tail})
		}
		if status != r.status {
			patch = append(patch, aguiEvent{"op": "replace", "path": "/status", "value": string(status)})
		}
		emit(aguiEvent{"type": "ACTIVITY_DELTA", "messageId": it.id + "-output", "activityType": aguiActivityType, "patch": patch})
	default:
		emit(aguiEvent{"type": "ACTIVITY_SNAPSHOT", "messageId": it.id + "-output", "activityType": aguiActivityType,
			"content": aguiActivity(it, []string{it.tool.Output}), "replace": true})
	}
	if toolClosed(status) && !toolClosed(r.status) {
		e.result(base, run, emit)
	}
	e.sent.put(base)
}

// end is the run's last event.
func (e *aguiEncoder) end(v *schema.View, prefix string, out *frontResult) aguiEvent {
	if out.Verdict == "completed" {
		return aguiEvent{"type": "RUN_FINISHED", "threadId": e.threadID, "runId": e.runID,
			"outcome": aguiEvent{"type": "success"}, "result": aguiEvent{"a2a": out}}
	}
	if interrupted(out) {
		return aguiEvent{"type": "RUN_FINISHED", "threadId": e.threadID, "runId": e.runID,
			"outcome": aguiEvent{"type": "interrupt", "interrupts": aguiInterrupts(v, prefix, e.suffix, out)}, "result": aguiEvent{"a2a": out}}
	}
	if out.Verdict == schema.VerdictCanceled {
		// AG-UI 1.0's own end state for a run that was canceled.
		return aguiEvent{"type": "RUN_FINISHED", "threadId": e.threadID, "runId": e.runID,
			"outcome": aguiEvent{"type": "cancelled"}, "result": aguiEvent{"a2a": out}}
	}
	msg := out.Error
	if msg == "" {
		msg = "turn " + string(out.Verdict)
	}
	return aguiEvent{"type": "RUN_ERROR", "message": msg, "code": string(out.Verdict)}
}

// aguiInterrupts are the AG-UI interrupts of an interrupted outcome: one per
// item, or one for the question; an item that names a call of the view
// points at it (its id with suffix).
func aguiInterrupts(v *schema.View, prefix, suffix string, out *frontResult) []any {
	reason := strings.ReplaceAll(string(out.Verdict), "-", "_")
	q, items := question(out)
	var ints []any
	for i, item := range items {
		in := aguiEvent{"id": aguiInterruptID(v.Task, i), "reason": reason}
		if msg := firstNonEmpty(item.Message, q); msg != "" {
			in["message"] = msg
		}
		if key := toolKeyOf(v, item.ToolCallID); key != "" {
			in["toolCallId"] = toolID(prefix, key) + suffix
		}
		ints = append(ints, in)
	}
	if len(ints) == 0 {
		in := aguiEvent{"id": aguiInterruptID(v.Task, 0), "reason": reason}
		if q != "" {
			in["message"] = q
		}
		ints = append(ints, in)
	}
	return ints
}

// aguiInterruptID names interrupt n of a task; the run that responds to it sends
// it back in RunAgentInput.resume, from which the task is found again
// (aguiInterruptTask).
func aguiInterruptID(task string, n int) string { return "a2a:" + task + ":" + strconv.Itoa(n) }

// aguiInterruptTask returns the task an interrupt id names, or "".
func aguiInterruptTask(id string) string {
	rest, ok := strings.CutPrefix(id, "a2a:")
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

// toolKeyOf returns the key of the view's tool call that an interrupt item
// names by its tool_call_id (or stream key), or "".
func toolKeyOf(v *schema.View, id string) string {
	if id == "" {
		return ""
	}
	for i := range v.ToolCalls {
		if tc := &v.ToolCalls[i]; tc.ToolCallID == id || tc.Key == id {
			return tc.Key
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func aguiErrorMeta() aguiEvent { return aguiEvent{"a2a": aguiEvent{"kind": "error"}} }

// aguiToolMeta carries what the A2A side calls the tool call: its stream key
// and tool_call_id (the AG-UI id is a hash of them).
func aguiToolMeta(it *frontItem) aguiEvent {
	m := aguiEvent{"key": it.tool.Key}
	if it.tool.ToolCallID != "" {
		m["toolCallId"] = it.tool.ToolCallID
	}
	return aguiEvent{"a2a": m}
}

func aguiActivity(it *frontItem, chunks []string) aguiEvent {
	c := aguiEvent{"tool": it.toolName(), "status": string(it.tool.Status), "chunks": chunks}
	if it.tool.ToolCallID != "" {
		c["toolCallId"] = it.tool.ToolCallID
	}
	return c
}

func aguiResultEvent(it *frontItem) aguiEvent {
	return aguiToolResult(it.id, it.tool.Output, it.tool.Status)
}

// aguiToolResult is the TOOL_CALL_RESULT of the call id, closed with status.
func aguiToolResult(id, output string, status schema.ToolStatus) aguiEvent {
	return aguiEvent{"type": "TOOL_CALL_RESULT", "messageId": id + "-result", "toolCallId": id,
		"content": output, "role": "tool", "metadata": aguiEvent{"a2a": aguiEvent{"status": string(status)}}}
}

// AGUIFormat is the relay.Format of FormatAGUI: give it to relay.New with
// relay.WithFormat(FormatAGUI, AGUIFormat) to serve ?format=ag-ui. It
// returns a relay.Encoder.
func AGUIFormat(r *http.Request, task string) (sse.Encoder, error) {
	var in RunAgentInput
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
		if err != nil || len(body) > MaxRequestBytes {
			return nil, fmt.Errorf("relay: the RunAgentInput is unreadable or over %d bytes", MaxRequestBytes)
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, fmt.Errorf("relay: the body is not a RunAgentInput: %v", err)
		}
	}
	q := r.URL.Query()
	in.ThreadID = firstNonEmpty(in.ThreadID, q.Get("threadId"), task)
	in.RunID = firstNonEmpty(in.RunID, q.Get("runId"), task)
	return NewAGUIEncoder(&in, true), nil
}

// NewAGUIEncoder returns the relay.Encoder of the AG-UI run in asks for
// (relay.Handler.AGUI's): RUN_STARTED names in's thread and run, and a
// MESSAGES_SNAPSHOT restates in's messages, then the turn. reconnect makes
// the stream open with that snapshot: the client may hold part of the turn
// from a cut connection.
func NewAGUIEncoder(in *RunAgentInput, reconnect bool) sse.Encoder {
	return newAGUIStream(in.ThreadID, in.RunID, rawMessages(in.Messages), reconnect)
}

func newAGUIStream(threadID, runID string, history []json.RawMessage, reconnect bool) *frontStream {
	return &frontStream{frontFeed: frontFeed{enc: &aguiEncoder{threadID: threadID, runID: runID, history: history, reconnect: reconnect}}}
}

// RefuseAGUIRun responds to the run in asks for when the agent refused its turn
// before it named a task: RUN_STARTED, then RUN_ERROR with code "refused"
// and reason.
func RefuseAGUIRun(w http.ResponseWriter, in *RunAgentInput, reason string) {
	w.Header().Set("Content-Type", "text/event-stream")
	ew := newEventWriter(w)
	_ = writeJSONEvent(ew, RunStarted(in.ThreadID, in.RunID))
	_ = writeJSONEvent(ew, RunError(reason, "refused"))
	_ = ew.Flush()
}

// Turn is what an AG-UI run endpoint sends for the input: the id and text
// of its last user message; or, when it resumes an interrupt whose task
// valid accepts (the first such), that task and the response's text, with
// no id — the response opens a new turn of the task, a message of its own.
// An input that resumes no such interrupt is an error: never a new task
// for a response, whose question would stay open.
func (in *RunAgentInput) Turn(valid func(task string) error) (id, text, task string, err error) {
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if m := &in.Messages[i]; m.Role == "user" {
			id, text = m.ID, m.Text()
			break
		}
	}
	for _, res := range in.Resume {
		if t := aguiInterruptTask(res.InterruptID); t != "" && valid(t) == nil {
			if s := res.Text(); s != "" {
				text = s
			}
			return "", text, t, nil
		}
	}
	if len(in.Resume) > 0 {
		return "", "", "", fmt.Errorf("relay: resume names no interrupt of this relay (want %q)", aguiInterruptID("<task>", 1))
	}
	return id, text, "", nil
}

func (e *aguiEncoder) appendItem(it *frontItem, emit func(aguiEvent)) { e.add(it, emit) }
func (e *aguiEncoder) growTool(key, chunk string, status schema.ToolStatus, send func(aguiEvent)) bool {
	if e.ids == nil || e.finished {
		return false
	}
	r, out, ok := e.sent.growTool(e.ids.tool(key), chunk, status)
	if !ok {
		return false
	}
	id := r.id + e.suffix
	run := e.runOf(r.owner, send)
	emit := func(ev aguiEvent) { send(stamp(ev, run)) }
	patch := make([]any, 0, 2)
	if chunk != "" {
		patch = append(patch, aguiEvent{"op": "add", "path": "/chunks/-", "value": chunk})
	}
	if status != schema.ToolRunning {
		patch = append(patch, aguiEvent{"op": "replace", "path": "/status", "value": string(status)})
	}
	if len(patch) > 0 {
		emit(aguiEvent{"type": "ACTIVITY_DELTA", "messageId": id + "-output", "activityType": aguiActivityType, "patch": patch})
	}
	if toolClosed(status) {
		e.closeSub(key, status, emit)
		emit(aguiToolResult(id, string(out), status))
	}
	return true
}

func (e *aguiEncoder) done() bool         { return e.finished }
func (e *aguiEncoder) restated() int      { return e.restates }
func (e *aguiEncoder) itemIDs() *frontIDs { return e.ids }

// gapsNow: AG-UI shows missing seqs only as gap markers in a call's output.
func (e *aguiEncoder) gapsNow(int64, func(aguiEvent)) {}
