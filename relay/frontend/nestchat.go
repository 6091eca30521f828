package frontend

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/internal/textcut"
	"github.com/tfrs/a2a-progress/schema"
)

// subagentView is a remote call's progress as the caller's useChat tool part
// shows it: the JSON form of the call's outputs on a ChatStream. Each
// preliminary output is the whole view so far (the AI SDK replaces the
// last one); the final output of a call that completed or was interrupted
// is the view with its verdict. Its size is bounded (maxSubagentViewBytes):
// the oldest items give way first (Omitted counts them) and a call shows
// the tail of its output.
type subagentView struct {
	// SchemaVersion is subagentViewVersion.
	SchemaVersion int `json:"schemaVersion"`
	// Task and Turn name the callee's turn ("" before its first op).
	Task string `json:"task"`
	Turn string `json:"turn"`
	// Verdict is "" while the callee works, then its verdict: completed,
	// input-required, auth-required, failed, rejected, canceled or
	// incomplete.
	Verdict schema.Verdict `json:"verdict,omitempty"`
	// Items are the callee's blocks and tool calls in view order.
	Items []subagentItem `json:"items"`
	// Omitted counts the oldest items left out to keep the view within
	// maxSubagentViewBytes.
	Omitted int `json:"omitted,omitempty"`
	// Gaps counts the seqs the callee's turn misses.
	Gaps int64 `json:"gaps,omitempty"`
	// Reply is a completed call's reply; Error the reason of a call that
	// did not complete; Interrupt what an interrupted one asks.
	Reply     string            `json:"reply,omitempty"`
	Error     string            `json:"error,omitempty"`
	Interrupt *schema.Interrupt `json:"interrupt,omitempty"`
}

// subagentItem is one item of a subagentView.
type subagentItem struct {
	// ID is stable for the item across outputs (a function of the task,
	// the turn and the block).
	ID string `json:"id"`
	// Kind is "thinking", "text", "error" or "tool".
	Kind string `json:"kind"`
	// Text is a thinking, text or error block's text.
	Text string `json:"text,omitempty"`
	// Tool, ToolCallID and Status describe a tool call (status running,
	// done, aborted or unfinished).
	Tool       string            `json:"tool,omitempty"`
	ToolCallID string            `json:"toolCallId,omitempty"`
	Status     schema.ToolStatus `json:"status,omitempty"`
	// Output is the tail of a call's output, at most maxSubagentOutputBytes;
	// OutputBytes the size of the whole.
	Output      string `json:"output,omitempty"`
	OutputBytes int64  `json:"outputBytes,omitempty"`
	// Parent is the ID of the tool item this item belongs under, and Depth
	// how deep it nests (PROTOCOL.md §10.3); both omitted at the top level.
	Parent string `json:"parent,omitempty"`
	Depth  int    `json:"depth,omitempty"`
}

// subagentViewVersion is the version of subagentView's JSON form
// (schema/subagent-view.schema.json): 2 since items carry their place in a
// chain's tree.
const subagentViewVersion = 2

// The bounds of a subagentView: its JSON size, and the output tail of each
// of its calls.
const (
	maxSubagentViewBytes   = 64 << 10
	maxSubagentOutputBytes = 2 << 10
)

// ChatToolOptions pace a nested call's preliminary outputs. A preliminary
// output restates the whole view, so they are coalesced: after one of n
// bytes, the next waits max(Interval, n / BytesPerSecond), and the latest
// state is always sent (when it changed, once the wait is over, and at the
// end). Zero fields take the defaults.
type ChatToolOptions struct {
	// Interval is the shortest time between two preliminary outputs
	// (default 200 ms).
	Interval time.Duration
	// BytesPerSecond bounds the preliminary output bytes per second
	// (default 256 KiB/s).
	BytesPerSecond int
	// OnUpdate, when set, sees each update of the call's stream (progress,
	// reconnect notices, the result) before it is applied, on NestTool's
	// goroutine: to show the same progress in a log or a terminal too.
	OnUpdate func(client.Update)
}

// ErrChatStreamFull is returned by [ChatStream.Write] once the stream holds
// MaxChatStreamBytes.
var ErrChatStreamFull = errors.New("relay: the chat stream is over its byte bound")

// MaxChatStreamBytes bounds what a ChatStream keeps for resume: its parts,
// with each tool call's outputs kept as the latest only.
const MaxChatStreamBytes = 8 << 20

// maxChatFollowerParts bounds the parts queued for one reader of a
// ChatStream; a reader that falls that far behind is ended (its client
// resumes).
const maxChatFollowerParts = 512

// ChatStream is one assistant message an orchestrator streams to useChat as
// a UI message stream (FormatAISDK's protocol), with the remote A2A calls it
// makes shown as preliminary outputs of their tool parts. It is safe for
// concurrent use: the orchestrator's own parts (Write) and every nested call
// (NestTool, one goroutine each) write into one message.
//
// It keeps the message so far — every part, but of each tool call only its
// latest output — so that a reader that comes later gets the message
// without the history of preliminary outputs: Serve responds to the POST that
// started the turn and useChat's resume GET alike, and a page reload during
// the turn shows the tool part once. Run the turn outside the request's
// context (a reload cancels the request, not the turn), and Close the stream
// when the turn's last part (finish or error) is written.
type ChatStream struct {
	mu        sync.Mutex
	log       [][]byte
	bytes     int
	outputs   map[string]int // tool call id → index in log of its output
	followers map[*chatFollower]struct{}
	closed    bool
	// tap, in tests, sees each part written.
	tap func(part map[string]any)
}

type chatFollower struct {
	parts chan []byte
	// cut: the follower fell behind and was dropped.
	cut bool
}

// NewChatStream returns an empty message stream; its first part should be
// {"type":"start","messageId":…}.
func NewChatStream() *ChatStream {
	return &ChatStream{outputs: map[string]int{}, followers: map[*chatFollower]struct{}{}}
}

// Write adds one part (a UI message stream part as a JSON object) to the
// message and sends it to the readers.
func (c *ChatStream) Write(part map[string]any) error {
	data, err := appendJSON(nil, part)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("relay: the chat stream is closed")
	}
	if c.tap != nil {
		c.tap(part)
	}
	id, _ := part["toolCallId"].(string)
	typ, _ := part["type"].(string)
	if i, ok := c.outputs[id]; ok && (typ == "tool-output-available" || typ == "tool-output-error") {
		c.bytes += len(data) - len(c.log[i])
		c.log[i] = data
	} else {
		if c.bytes+len(data) > MaxChatStreamBytes {
			return ErrChatStreamFull
		}
		if typ == "tool-output-available" || typ == "tool-output-error" {
			c.outputs[id] = len(c.log)
		}
		c.log = append(c.log, data)
		c.bytes += len(data)
	}
	for f := range c.followers {
		select {
		case f.parts <- data:
		default:
			f.cut = true
			delete(c.followers, f)
			close(f.parts)
		}
	}
	return nil
}

// Close ends the message: readers get "[DONE]" after the last part.
func (c *ChatStream) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	for f := range c.followers {
		delete(c.followers, f)
		close(f.parts)
	}
}

// Serve streams the message to one reader: its first part (start), a
// reset-step — a reader that resumes drops the parts it held of the
// message, so nothing shows twice — the rest of the message so far, then
// live parts until Close ("data: [DONE]") or the request ends.
func (c *ChatStream) Serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	held := append([][]byte(nil), c.log...)
	f := &chatFollower{parts: make(chan []byte, maxChatFollowerParts)}
	if c.closed {
		close(f.parts)
	} else {
		c.followers[f] = struct{}{}
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.followers, f)
		c.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set(aisdkHeader, aisdkHeaderValue)
	ew := newEventWriter(w)
	for i, data := range held {
		_ = ew.Event("", "", data)
		if i == 0 {
			_ = ew.Event("", "", []byte(`{"type":"reset-step"}`))
		}
	}
	if ew.Flush() != nil {
		return
	}
	for {
		select {
		case data, ok := <-f.parts:
			if !ok {
				c.mu.Lock()
				cut := f.cut
				c.mu.Unlock()
				if !cut {
					_ = ew.Event("", "", []byte("[DONE]"))
					_ = ew.Flush()
				}
				return
			}
			if ew.Event("", "", data) != nil || ew.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// NestTool runs s to its end as the remote call behind the message's tool
// call toolCallID (whose tool-input-start and tool-input-available the
// orchestrator wrote): it iterates s.Updates (s must not be iterated
// elsewhere) and writes the callee's subagentView as preliminary outputs of
// the call, paced by opts, then the final output: the view with its verdict
// for a completed or interrupted call, tool-output-error with the reason
// for a failed, rejected, canceled or incomplete one. The error is the
// stream's write error, if any; the callee's failure is in the result.
func (c *ChatStream) NestTool(toolCallID string, s *client.Stream, opts ChatToolOptions) (SubagentEnd, error) {
	t := c.startTool(toolCallID, opts)
	for u, uerr := range s.Updates() {
		if uerr != nil {
			continue
		}
		if opts.OnUpdate != nil {
			opts.OnUpdate(u)
		}
		if err := t.Update(u); err != nil {
			return t.End(err)
		}
	}
	_, serr := s.Outcome()
	return t.End(serr)
}

// chatTool is one nested call of a ChatStream, for an orchestrator that
// iterates the callee's stream itself: Update with each update, then End.
// Update and End are used by one goroutine.
type chatTool struct {
	c    *ChatStream
	id   string
	opts ChatToolOptions
	// now and after are the clock (time.Now, time.AfterFunc; a test's
	// own in tests).
	now   func() time.Time
	after func(time.Duration, func()) stopper

	mu      sync.Mutex
	feed    frontFeed
	enc     *chatToolEncoder
	last    time.Time
	wait    time.Duration
	timer   stopper
	ended   bool
	err     error
	scratch []byte
}

// startTool returns the nested call behind the tool call toolCallID.
func (c *ChatStream) startTool(toolCallID string, opts ChatToolOptions) *chatTool {
	if opts.Interval <= 0 {
		opts.Interval = 200 * time.Millisecond
	}
	if opts.BytesPerSecond <= 0 {
		opts.BytesPerSecond = 256 << 10
	}
	t := &chatTool{c: c, id: toolCallID, opts: opts, now: time.Now, enc: &chatToolEncoder{},
		after: func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }}
	t.feed.enc = t.enc
	return t
}

// Update applies what u changes in the callee's view and sends the view
// when the pace allows (else once it does).
func (t *chatTool) Update(u client.Update) error {
	op, ok := u.Op()
	if !ok {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return t.err
	}
	t.feed.apply(&op, func(map[string]any) {})
	if t.enc.dirty && !t.enc.finished {
		t.paceLocked()
	}
	return t.err
}

// paceLocked sends the view now if the wait is over, else arms the timer
// that sends the latest view once it is.
func (t *chatTool) paceLocked() {
	now := t.now()
	if due := t.last.Add(t.wait); now.Before(due) {
		if t.timer == nil {
			t.timer = t.after(due.Sub(now), t.flush)
		}
		return
	}
	t.sendLocked(true)
}

// flush sends the view the timer waited for.
func (t *chatTool) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer = nil
	if !t.ended && t.enc.dirty {
		t.sendLocked(true)
	}
}

// sendLocked writes the view as an output of the call.
func (t *chatTool) sendLocked(preliminary bool) {
	data, err := t.enc.marshal(t.scratch[:0])
	if err != nil {
		t.err = err
		return
	}
	t.scratch = data
	part := map[string]any{"type": "tool-output-available", "toolCallId": t.id, "output": json.RawMessage(data)}
	if preliminary {
		part["preliminary"] = true
	}
	if err := t.c.Write(part); err != nil && t.err == nil {
		t.err = err
	}
	t.enc.dirty = false
	t.last = t.now()
	t.wait = max(t.opts.Interval, time.Duration(len(data))*time.Second/time.Duration(t.opts.BytesPerSecond))
}

// End writes the call's final output: from the callee's verdict when its
// result op arrived, else as incomplete with err as the reason.
func (t *chatTool) End(err error) (SubagentEnd, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	var res SubagentEnd
	out := t.feed.recvResult()
	if out == nil {
		msg := "the remote agent's turn did not end"
		if err != nil {
			msg = client.Reason(err)
		}
		out = &schema.Result{Verdict: schema.VerdictIncomplete, Error: msg}
		if t.feed.recv != nil && !t.enc.finished {
			t.feed.render(func(map[string]any) {})
		}
		t.enc.settle(out)
	}
	res.Result = *out
	if interrupted(out) && t.enc.view.Task != "" {
		res.Suspended = suspended(t.enc.view.Task, t.id, "", nil, out)
	}
	if t.ended {
		return res, t.err
	}
	t.ended = true
	switch {
	case out.Verdict == schema.VerdictCompleted || interrupted(out):
		t.sendLocked(false)
	default:
		if t.enc.dirty {
			// The last state, then the error that ends the call.
			t.sendLocked(true)
		}
		msg := firstNonEmpty(out.Error, "turn "+string(out.Verdict))
		part := map[string]any{"type": "tool-output-error", "toolCallId": t.id, "errorText": msg}
		// The AI SDK drops a failed part's output, but keeps its
		// toolMetadata: the final view goes there, so the progress that
		// explains the failure stays in the message (and in a reload).
		if data, err := t.enc.marshal(t.scratch[:0]); err == nil {
			t.scratch = data
			part["toolMetadata"] = map[string]any{"a2a": json.RawMessage(data)}
		}
		if err := t.c.Write(part); err != nil && t.err == nil {
			t.err = err
		}
	}
	return res, t.err
}

// stopper is a timer that can be stopped (*time.Timer).
type stopper interface{ Stop() bool }

// recvResult is the result of the feed's latest turn, or nil.
func (s *frontFeed) recvResult() *schema.Result {
	if s.recv == nil {
		return nil
	}
	return s.recv.Result()
}

// chatToolEncoder keeps a subagentView of the callee's turn, told by a
// frontFeed: an item appended or a call grown in O(1) amortised (an output
// tail is at most maxSubagentOutputBytes), a render in O(items). It emits
// nothing itself: chatTool sends the view at its pace.
type chatToolEncoder struct {
	view     subagentView
	index    map[string]int
	ids      *frontIDs
	finished bool
	// dirty: the view changed since it was last sent.
	dirty bool
}

func (e *chatToolEncoder) sync(v *schema.View, out *frontResult, _ func(map[string]any)) {
	if e.finished {
		return
	}
	e.ids = e.ids.forTurn(frontPrefix(v.Task, v.Turn))
	e.view.Task, e.view.Turn, e.view.Gaps = v.Task, v.Turn, v.Counters.Gaps
	e.view.Items = e.view.Items[:0]
	clear(e.index)
	for _, it := range frontItems(v, e.ids, nil) {
		e.appendItem(&it, nil)
	}
	if out != nil {
		e.settle(out)
	}
	e.dirty = true
}

// settle records the verdict.
func (e *chatToolEncoder) settle(out *frontResult) {
	e.finished = true
	e.view.Verdict, e.view.Reply, e.view.Error, e.view.Interrupt = out.Verdict, out.Reply, out.Error, out.Interrupt
	e.dirty = true
}

func (e *chatToolEncoder) appendItem(it *frontItem, _ func(map[string]any)) {
	item := subagentItem{ID: it.id, Text: it.text}
	switch it.kind {
	case itemThinking:
		item.Kind = "thinking"
	case itemText, itemReply:
		item.Kind = "text"
	case itemError:
		item.Kind = "error"
	case itemTool:
		item.Kind, item.Tool, item.ToolCallID, item.Status = "tool", it.toolName(), it.tool.ToolCallID, it.tool.Status
		item.Output, item.OutputBytes = outputTail(it.tool.Output), it.tool.Bytes
		if it.owner != "" {
			// Two levels of a chain may share a tool_call_id (each agent
			// names its own calls); the forwarded key is the turn's own.
			item.ToolCallID = it.tool.Key
		}
	}
	if it.owner != "" {
		item.Parent, item.Depth = e.ids.tool(it.owner), it.depth
	}
	if e.index == nil {
		e.index = map[string]int{}
	}
	e.index[item.ID] = len(e.view.Items)
	e.view.Items = append(e.view.Items, item)
	e.dirty = true
}

func (e *chatToolEncoder) growTool(key, chunk string, status schema.ToolStatus, _ func(map[string]any)) bool {
	if e.ids == nil || e.finished {
		return false
	}
	i, ok := e.index[e.ids.tool(key)]
	if !ok || e.view.Items[i].Status != schema.ToolRunning {
		return false
	}
	item := &e.view.Items[i]
	item.Output = outputTail(item.Output + chunk)
	item.OutputBytes += int64(len(chunk))
	item.Status = status
	e.dirty = true
	return true
}

func (e *chatToolEncoder) gapsNow(n int64, _ func(map[string]any)) {
	e.view.Gaps = n
	e.dirty = true
}

func (e *chatToolEncoder) done() bool { return e.finished }

// restated: a render rebuilds the view the tool part sends at its pace,
// never more than its pace allows.
func (e *chatToolEncoder) restated() int      { return 0 }
func (e *chatToolEncoder) itemIDs() *frontIDs { return e.ids }

// marshal appends the view's JSON to dst: the newest items that fit
// maxSubagentViewBytes (an estimate per item, checked on the result).
func (e *chatToolEncoder) marshal(dst []byte) ([]byte, error) {
	v := e.view
	v.SchemaVersion = subagentViewVersion
	budget := maxSubagentViewBytes - 512 - len(v.Reply) - len(v.Error)
	if v.Interrupt != nil {
		budget -= len(v.Interrupt.Question) + 256*len(v.Interrupt.Items)
	}
	first := len(v.Items)
	for first > 0 {
		it := &v.Items[first-1]
		n := 2*(len(it.Text)+len(it.Output)) + len(it.ID) + len(it.Tool) + len(it.ToolCallID) + len(it.Parent) + 112
		if n > budget {
			break
		}
		budget -= n
		first--
	}
	v.Omitted, v.Items = first, v.Items[first:]
	if v.Items == nil {
		v.Items = []subagentItem{}
	}
	data, err := json.Marshal(&v)
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}

// outputTail is the last maxSubagentOutputBytes of out, cut at a rune
// boundary.
func outputTail(out string) string {
	if len(out) <= maxSubagentOutputBytes {
		return out
	}
	return out[textcut.After(out, len(out)-maxSubagentOutputBytes):]
}
