package frontend

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/maphash"
	"strconv"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// The AG-UI and AI SDK encoders (agui.go, aisdk.go) share one model of a
// turn: its view cut into display items in view order, each with an id that
// is a function of the turn and the block only — so that a reconnect, another
// replica or a resynchronisation names the same item the same way, and a
// client that already holds it replaces it instead of adding a second one.

// frontResult is the settled end of a turn as the front-end encoders render
// it: the result op's schema.Result (PROTOCOL.md §4.3).
type frontResult = schema.Result

// interrupted reports whether a verdict is an interrupt (the turn waits for
// the caller), not an end.
func interrupted(o *frontResult) bool {
	return o.Verdict == schema.VerdictInputRequired || o.Verdict == schema.VerdictAuthRequired
}

// question returns an interrupt's question and items.
func question(o *frontResult) (string, []schema.InterruptItem) {
	if o.Interrupt == nil {
		return "", nil
	}
	return o.Interrupt.Question, o.Interrupt.Items
}

type itemKind uint8

const (
	itemThinking itemKind = iota + 1
	itemText
	itemError
	itemTool
	itemReply
)

// frontItem is one display item of a turn: a thinking, text or error block,
// a tool call, or the reply of a completed turn.
type frontItem struct {
	kind itemKind
	id   string
	// text is the block's text (thinking, text, error) or the reply.
	text string
	// block is the item's block (nil for a tool call with no tool_call
	// block, and for the reply).
	block *schema.Block
	// tool is the item's tool call.
	tool *schema.ToolCall
	// owner is the key of the tool call the item belongs under (PROTOCOL.md
	// §10.3): a call's parent when its depth is at least 1, a block's
	// parent when that is a call of the view; "" at the top level. depth
	// is the item's: its call's depth, or one more than its owner's.
	owner string
	depth int
}

// toolName is the name a front end shows for a tool call; both protocols
// require a non-empty one, and a call seen only through a close has none.
func (it *frontItem) toolName() string {
	if it.tool.Tool != "" {
		return it.tool.Tool
	}
	return "tool"
}

// toolClosed reports whether a tool call has its final status.
func toolClosed(s schema.ToolStatus) bool {
	return s == schema.ToolDone || s == schema.ToolAborted || s == schema.ToolUnfinished
}

// frontPrefix is the prefix of every id of one turn's items: "a2a-" and 12
// hex digits of a hash of the task and the turn (PROTOCOL.md §3.3). Peer-chosen ids (task,
// turn, stream keys) may be long or contain anything; hashed, they make ids
// that are short, safe in any protocol field, and the same on every replica.
func frontPrefix(task, turn string) string {
	h := sha256.Sum256([]byte(task + "\x00" + turn))
	return "a2a-" + hex.EncodeToString(h[:6])
}

func frontID(prefix, tag string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return prefix + "-" + tag + "-" + hex.EncodeToString(h.Sum(nil)[:6])
}

func blockID(prefix string, b *schema.Block) string {
	return frontID(prefix, "b", b.Key.StreamKey, strconv.FormatInt(b.Key.Seq, 10), b.Key.ID)
}

func toolID(prefix, key string) string { return frontID(prefix, "t", key) }

// frontIDs names the items of one turn, remembering each name: an encoder
// renders the view again and again, and hashing every block each time would
// cost more than the rest of a render. It holds one entry per block and tool
// call of the turn, as bounded as the turn (merge.Caps).
type frontIDs struct {
	prefix string
	blocks map[schema.Key]string
	tools  map[string]string
}

// forTurn returns ids for the turn with prefix, reusing ids when it is the
// same turn.
func (ids *frontIDs) forTurn(prefix string) *frontIDs {
	if ids == nil || ids.prefix != prefix {
		return &frontIDs{prefix: prefix, blocks: map[schema.Key]string{}, tools: map[string]string{}}
	}
	return ids
}

func (ids *frontIDs) block(b *schema.Block) string {
	id, ok := ids.blocks[b.Key]
	if !ok {
		id = blockID(ids.prefix, b)
		ids.blocks[b.Key] = id
	}
	return id
}

func (ids *frontIDs) tool(key string) string {
	id, ok := ids.tools[key]
	if !ok {
		id = toolID(ids.prefix, key)
		ids.tools[key] = id
	}
	return id
}

// frontItems cuts a view into display items in view order (PROTOCOL.md
// §4.5, §6.2, §6.5). Thinking, text and error blocks are items where they
// stand; a tool call stands where its
// first tool_call block stands, or — seen only through output or a close —
// before the first envelope block with a higher seq than its first chunk.
// The reply of a completed turn comes last.
func frontItems(v *schema.View, ids *frontIDs, out *frontResult) []frontItem {
	items := make([]frontItem, 0, len(v.Blocks)+2)
	tools := make(map[string]*schema.ToolCall, len(v.ToolCalls))
	var loose []*schema.ToolCall // calls with no tool_call block, by FirstSeq
	hasStart := make(map[string]bool, len(v.ToolCalls))
	for i := range v.Blocks {
		if b := &v.Blocks[i]; b.Kind == envelope.KindToolCall {
			hasStart[b.ToolKey()] = true
		}
	}
	for i := range v.ToolCalls {
		tc := &v.ToolCalls[i]
		tools[tc.Key] = tc
		if !hasStart[tc.Key] {
			loose = append(loose, tc)
		}
	}
	placed := make(map[string]bool, len(v.ToolCalls))
	addTool := func(tc *schema.ToolCall, b *schema.Block) {
		placed[tc.Key] = true
		it := frontItem{kind: itemTool, id: ids.tool(tc.Key), tool: tc, block: b, depth: tc.Depth}
		if tc.Depth > 0 {
			it.owner = tc.Parent
		}
		items = append(items, it)
	}
	// addBlock places a block under its parent when that is a call.
	addBlock := func(kind itemKind, text string, b *schema.Block) {
		it := frontItem{kind: kind, id: ids.block(b), text: text, block: b}
		if p := tools[b.Parent]; b.Parent != "" && p != nil {
			it.owner, it.depth = p.Key, p.Depth+1
		}
		items = append(items, it)
	}
	for i := range v.Blocks {
		b := &v.Blocks[i]
		if b.Source == schema.SourceEnvelope {
			for len(loose) > 0 && loose[0].FirstSeq < b.Key.Seq {
				if !placed[loose[0].Key] {
					addTool(loose[0], nil)
				}
				loose = loose[1:]
			}
		}
		switch p := b.Payload.(type) {
		case envelope.ToolCall:
			if tc := tools[b.ToolKey()]; tc != nil && !placed[tc.Key] {
				addTool(tc, b)
			}
		case envelope.Thinking:
			addBlock(itemThinking, p.Text, b)
		case envelope.Text:
			addBlock(itemText, p.Text, b)
		case envelope.ErrorPayload:
			addBlock(itemError, p.Message, b)
		}
	}
	for _, tc := range loose {
		if !placed[tc.Key] {
			addTool(tc, nil)
		}
	}
	if out != nil && out.Verdict == "completed" && out.Reply != "" {
		items = append(items, frontItem{kind: itemReply, id: ids.prefix + "-reply", text: out.Reply})
	}
	return items
}

// sentItem is what an encoder told its client about one item: enough to
// decide whether a later view only extends it. Output is remembered by
// length and a running hash (only running calls' output is kept, in
// frontSent, within maxKeptOutputBytes).
type sentItem struct {
	id   string
	kind itemKind
	// owner is the key of the call the item was sent under (frontItem).
	owner  string
	name   string
	status schema.ToolStatus
	outLen int
	// outHash is the hash of the output sent (frontSeed); it takes appended
	// chunks without the output before them.
	outHash maphash.Hash
}

// maxKeptOutputBytes bounds the tool output one front-end subscriber keeps
// (the outputs of its running calls, for the AI SDK's preliminary outputs
// and both formats' final results). A call whose output would pass it is
// no longer kept: its next change re-renders the view instead — slower,
// never wrong.
const maxKeptOutputBytes = 1 << 20

// frontSent is the per-stream record both encoders keep of what they sent:
// the items in the order sent, an index by item id, and the outputs of the
// running calls. It holds one record (about 150 bytes and the id) per item
// of the turn — at most merge.DefaultMaxBlocks — and at most
// maxKeptOutputBytes of output.
type frontSent struct {
	items []sentItem
	index map[string]int
	// outputs are the outputs of running calls as sent, by item id; bytes
	// is their total size.
	outputs map[string][]byte
	bytes   int
}

// reset forgets everything sent: the client is about to get the view anew.
func (s *frontSent) reset() {
	s.items = s.items[:0]
	clear(s.index)
	clear(s.outputs)
	s.bytes = 0
}

// put records that the client now holds item it in full: a new item after
// those it holds, or a new state of one it holds.
func (s *frontSent) put(it *frontItem) {
	r := s.record(it)
	if p := s.lookup(r.id); p != nil {
		*p = r
	} else {
		if s.index == nil {
			s.index = map[string]int{}
		}
		s.index[r.id] = len(s.items)
		s.items = append(s.items, r)
	}
	if it.kind == itemTool {
		s.keepOutput(r.id, it.tool.Status, it.tool.Output)
	}
}

// lookup returns the record of the sent item id, or nil.
func (s *frontSent) lookup(id string) *sentItem {
	if i, ok := s.index[id]; ok {
		return &s.items[i]
	}
	return nil
}

// keepOutput remembers a call's output as sent while the call runs, and
// forgets it once the call closed or when it would pass maxKeptOutputBytes.
func (s *frontSent) keepOutput(id string, status schema.ToolStatus, out string) {
	s.bytes -= len(s.outputs[id])
	delete(s.outputs, id)
	if toolClosed(status) || s.bytes+len(out) > maxKeptOutputBytes {
		return
	}
	if s.outputs == nil {
		s.outputs = map[string][]byte{}
	}
	s.outputs[id] = []byte(out)
	s.bytes += len(out)
}

// growTool applies the next chunk (possibly "") and status of the sent
// running call id, as the view would show them, and returns its whole
// output; ok is false when that cannot be done without the view: the call
// is not sent, not running, past the output cap, or its output is not kept.
// It costs O(len(chunk)) amortised; the output it returns shares the kept
// bytes and is valid until the next change to the record.
func (s *frontSent) growTool(id, chunk string, status schema.ToolStatus) (r *sentItem, out []byte, ok bool) {
	r = s.runningTool(id, len(chunk))
	if r == nil {
		return nil, nil, false
	}
	kept, isKept := s.outputs[id]
	if !isKept || len(kept) != r.outLen {
		return nil, nil, false
	}
	out = append(kept, chunk...)
	r.grow(chunk)
	r.status = status
	s.bytes += len(chunk)
	switch {
	case toolClosed(status) || s.bytes > maxKeptOutputBytes:
		s.bytes -= len(out)
		delete(s.outputs, id)
	default:
		s.outputs[id] = out
	}
	return r, out, true
}

// frontSeed seeds the output hashes; a hash is only ever compared within
// one process.
var frontSeed = maphash.MakeSeed()

func (s *frontSent) sum(out string) uint64 { return maphash.String(frontSeed, out) }

// extends reports whether the items already sent are, id for id, the head
// of items, with the same tool names and places in the tree: then the new view only adds items at
// the end and grows or closes calls. Anything else — a late block that lands
// before what was sent, a call renamed by a late tool_call block, an item moved under a call that came late — needs a
// resynchronisation.
func (s *frontSent) extends(items []frontItem) bool {
	if len(s.items) > len(items) {
		return false
	}
	for i := range s.items {
		it := &items[i]
		if s.items[i].id != it.id || s.items[i].owner != it.owner {
			return false
		}
		if it.kind == itemTool {
			r := &s.items[i]
			if r.name != it.toolName() {
				return false
			}
			// Output after the close (a queue that flushed late) changes a
			// result the client holds as final: restate it.
			if toolClosed(r.status) {
				if _, same, _ := s.outputChange(r, it.tool.Output); !same {
					return false
				}
			}
		}
	}
	return true
}

// record returns the sent record of an item as the client now holds it in
// full.
func (s *frontSent) record(it *frontItem) sentItem {
	r := sentItem{id: it.id, kind: it.kind, owner: it.owner}
	r.outHash.SetSeed(frontSeed)
	if it.kind == itemTool {
		r.name = it.toolName()
		r.status = it.tool.Status
		r.outLen = len(it.tool.Output)
		r.outHash.WriteString(it.tool.Output)
	}
	return r
}

// outputChange reports how a sent call's output relates to the view's: same
// (nothing to send), appended (the new tail is what is missing), or changed
// (a late chunk, a gap filled, the head cut by the output cap: send it
// whole).
func (s *frontSent) outputChange(r *sentItem, out string) (tail string, same, appended bool) {
	if len(out) == r.outLen && s.sum(out) == r.outHash.Sum64() {
		return "", true, false
	}
	if len(out) > r.outLen && s.sum(out[:r.outLen]) == r.outHash.Sum64() {
		return out[r.outLen:], false, true
	}
	return "", false, false
}

// runningTool returns the record of the sent tool call id when it is still
// running and its output may grow by n bytes within the output cap; nil
// otherwise.
func (s *frontSent) runningTool(id string, n int) *sentItem {
	r := s.lookup(id)
	if r == nil || r.kind != itemTool || r.status != schema.ToolRunning || r.outLen+n > merge.DefaultMaxOutputBytes {
		return nil
	}
	return r
}

// grow records that chunk was appended to a sent call's output.
func (r *sentItem) grow(chunk string) {
	r.outLen += len(chunk)
	r.outHash.WriteString(chunk)
}
