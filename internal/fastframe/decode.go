// Package fastframe decodes, in one pass, the frame that makes up nearly
// all of an A2A progress stream — an A2A 1.0 status update — for the
// client's fast wire path, and declines every other frame, which the
// client then hands to a2a-go's own decoding: [DecodeV1] and [DecodeV03]
// apply the types and unmarshalling a2a-go's 1.0 and 0.3 transports apply,
// and decline what those fail on, for which [FrameError] gives the error
// a2a-go gives. [A2A] is a2a-go's transport decoding one
// frame, on its own: the oracle the differential tests and FuzzFastVsA2A
// compare all three with ([Compare], [CompareV1], [CompareV03]).
package fastframe

import (
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// Decoder decodes, in one pass, the frame that makes up nearly all of
// a progress stream: an A2A 1.0 status update,
//
//	{"jsonrpc":"2.0","id":"…","result":{"statusUpdate":{…}}}   (JSON-RPC)
//	{"statusUpdate":{…}}                                         (REST)
//
// whose statusUpdate holds taskId, contextId and a status (state,
// timestamp, message); the message holds messageId, contextId, taskId,
// role and parts; each part a text and optional metadata of string values
// (the tfrs envelope among them). Keys match exactly and at most once.
//
// It decides nothing a2a-go would decide differently: anything outside
// that shape — another event, an error, an unknown, repeated or
// differently cased key, a null, a number, a boolean, a non-string
// metadata value, invalid UTF-8, a surrogate escape, bytes after the
// object — makes it decline (ok false), and the frame goes to a2a-go's
// own decoding. So a frame means what a2a-go says it means;
// FuzzFastVsA2A and the differential tests check that the two agree
// wherever this decoder accepts.
//
// A typical accepted frame costs six allocations (BenchmarkFrameDecode):
// one block for the event, its message and first part; one buffer for all
// its strings; the metadata map; the boxed part text and metadata value.
// More parts or metadata keys add theirs.
type Decoder struct {
	// RPC: frames are JSON-RPC responses whose result is the event;
	// otherwise (REST) the frame is the event.
	RPC   bool
	b     []byte
	i     int
	spans []span // the strings of the frame, filled by the pass
	parts []partSpans
	size  int // total raw bytes of the spans

	// count: the pass only counts the spans and parts (nspans, nparts),
	// so that the recording pass of a large frame allocates its scratch
	// once, at its size (see presizeAbove).
	count          bool
	nspans, nparts int
}

// presizeAbove: a frame larger than this is scanned twice, first to count
// its strings and parts. Grown by append, the scratch of a frame of many
// small parts (750 000 parts of {"text":"x"} in 9.3 MiB) was allocated
// about five times over (append grows large slices by 1.25×): 360 of the
// 438 MB one such frame allocated. Counted first, it is allocated once.
// Small frames, nearly all of a stream, keep the single pass.
const presizeAbove = 64 << 10

// keepScratch bounds the scratch a Decoder keeps between frames (spans):
// a stream's one large frame does not pin tens of MiB for the rest of it.
const keepScratch = 4 << 10

// span is a JSON string in the frame: where its raw contents are in the
// frame (a frame is at most a few tens of MiB: 32 bits are plenty) and
// whether they hold escapes. dst is where its value goes once the frame is
// accepted; nil for part texts and metadata, which Decode places itself.
// 24 bytes: a frame of 750 000 one-letter parts holds as many spans.
type span struct {
	off, n uint32
	esc    bool
	dst    *string
}

type partSpans struct {
	text    int32 // index of the text span
	meta    int32 // index of the first metadata key span; values follow keys
	nmeta   int32
	hasMeta bool
	hasText bool
}

// spanOf is the span of raw, a subslice of the frame.
func (d *Decoder) spanOf(raw []byte, esc bool, dst *string) span {
	return span{off: uint32(cap(d.b) - cap(raw)), n: uint32(len(raw)), esc: esc, dst: dst}
}

// statusBlock holds what one accepted frame allocates as structs: one
// object for the garbage collector instead of four.
type statusBlock struct {
	ev   a2a.TaskStatusUpdateEvent
	msg  a2a.Message
	part a2a.Part
	ts   time.Time
	one  [1]*a2a.Part
}

// Decode returns the status update of data, or ok false when the frame is
// not of the shape described above. The event shares nothing with data.
// A Decoder is not safe for concurrent use; reusing one per stream keeps
// its scratch space.
func (d *Decoder) Decode(data []byte) (ev *a2a.TaskStatusUpdateEvent, ok bool) {
	defer d.release()
	if len(data) > presizeAbove {
		d.b, d.i, d.size = data, 0, 0
		d.count, d.nspans, d.nparts = true, 0, 0
		ok := d.frame(&statusBlock{})
		d.count = false
		if !ok {
			return nil, false
		}
		if cap(d.spans) < d.nspans {
			d.spans = make([]span, 0, d.nspans)
		}
		if cap(d.parts) < d.nparts {
			d.parts = make([]partSpans, 0, d.nparts)
		}
	}
	d.b, d.i = data, 0
	d.spans = d.spans[:0]
	d.parts = d.parts[:0]
	d.size = 0
	blk := &statusBlock{}
	if !d.frame(blk) {
		return nil, false
	}
	d.ws()
	if d.i != len(d.b) {
		return nil, false
	}
	// Parts: the first lives in the block.
	var parts a2a.ContentParts
	if blk.msg.Parts != nil || len(d.parts) > 0 {
		switch len(d.parts) {
		case 0:
			parts = a2a.ContentParts{}
		case 1:
			parts = blk.one[:]
			blk.one[0] = &blk.part
		default:
			ps := make([]a2a.Part, len(d.parts))
			parts = make(a2a.ContentParts, len(d.parts))
			parts[0] = &blk.part
			for k := 1; k < len(ps); k++ {
				parts[k] = &ps[k]
			}
		}
		blk.msg.Parts = parts
	}
	// Every string of the frame is copied into one buffer (unescaped ≤
	// raw, so it never grows past d.size and the strings already taken
	// stay where they are).
	var buf []byte
	if d.size > 0 {
		buf = make([]byte, 0, d.size)
	}
	for k := range d.spans {
		if dst := d.spans[k].dst; dst != nil {
			*dst = d.value(&buf, k)
		}
	}
	for k, ps := range d.parts {
		p := parts[k]
		p.Content = a2a.Text(d.value(&buf, int(ps.text)))
		if ps.hasMeta {
			m := make(map[string]any, ps.nmeta)
			for j := 0; j < int(ps.nmeta); j++ {
				key := d.value(&buf, int(ps.meta)+2*j)
				if _, dup := m[key]; dup {
					return nil, false
				}
				m[key] = d.value(&buf, int(ps.meta)+2*j+1)
			}
			p.Metadata = m
		}
	}
	return &blk.ev, true
}

// value appends the value of span k to buf and returns it.
func (d *Decoder) value(buf *[]byte, k int) string {
	sp := d.spans[k]
	if sp.n == 0 {
		return ""
	}
	raw := d.b[sp.off : sp.off+sp.n]
	start := len(*buf)
	if sp.esc {
		*buf = jsonstr.AppendUnescaped(*buf, raw)
	} else {
		*buf = append(*buf, raw...)
	}
	if len(*buf) == start {
		return ""
	}
	return unsafe.String(&(*buf)[start], len(*buf)-start)
}

// release drops scratch that a large frame grew, and the frame.
func (d *Decoder) release() {
	d.b = nil
	if cap(d.spans) > keepScratch {
		d.spans, d.parts = nil, nil
	}
}

func (d *Decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips whitespace and reports the next byte (0 at the end).
func (d *Decoder) next() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// object walks the members of the object at d.i, calling member with each
// key (raw, unescaped keys only) positioned at its value. member returns
// false to decline.
func (d *Decoder) object(member func(key []byte) bool) bool {
	if d.next() != '{' {
		return false
	}
	d.i++
	if d.next() == '}' {
		d.i++
		return true
	}
	for {
		if d.next() != '"' {
			return false
		}
		key, esc, ok := d.str()
		if !ok || esc {
			return false
		}
		if d.next() != ':' {
			return false
		}
		d.i++
		d.ws()
		if !member(key) {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// seen records a key in a bitmask; a repeated key declines.
func seen(mask *uint32, bit uint32) bool {
	if *mask&bit != 0 {
		return false
	}
	*mask |= bit
	return true
}

func (d *Decoder) frame(blk *statusBlock) bool {
	if !d.RPC {
		return d.wrapper(blk)
	}
	var mask uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "jsonrpc":
			return seen(&mask, 1) && d.skipString()
		case "id":
			return seen(&mask, 2) && d.skipString()
		case "result":
			return seen(&mask, 4) && d.wrapper(blk)
		}
		return false
	}) && mask&4 != 0
}

// skipString checks the string at d.i without keeping it.
func (d *Decoder) skipString() bool {
	if d.next() != '"' {
		return false
	}
	_, _, ok := d.str()
	return ok
}

// wrapper is the StreamResponse: exactly one member, statusUpdate.
func (d *Decoder) wrapper(blk *statusBlock) bool {
	var mask uint32
	return d.object(func(key []byte) bool {
		return string(key) == "statusUpdate" && seen(&mask, 1) && d.statusUpdate(blk)
	}) && mask != 0
}

func (d *Decoder) statusUpdate(blk *statusBlock) bool {
	var mask uint32
	ev := &blk.ev
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "taskId":
			return seen(&mask, 1) && d.stringInto((*string)(&ev.TaskID))
		case "contextId":
			return seen(&mask, 2) && d.stringInto(&ev.ContextID)
		case "status":
			return seen(&mask, 4) && d.status(blk)
		}
		return false
	})
}

func (d *Decoder) status(blk *statusBlock) bool {
	var mask uint32
	st := &blk.ev.Status
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "state":
			if !seen(&mask, 1) || d.next() != '"' {
				return false
			}
			raw, esc, ok := d.str()
			if !ok || esc {
				return false
			}
			st.State = taskState(raw)
			return true
		case "timestamp":
			if !seen(&mask, 2) || d.next() != '"' {
				return false
			}
			start := d.i
			if _, _, ok := d.str(); !ok {
				return false
			}
			// time.Time's own UnmarshalJSON on the same bytes: what
			// encoding/json calls for a2a-go, error included.
			if blk.ts.UnmarshalJSON(d.b[start:d.i]) != nil {
				return false
			}
			st.Timestamp = &blk.ts
			return true
		case "message":
			if !seen(&mask, 4) {
				return false
			}
			st.Message = &blk.msg
			return d.message(blk)
		}
		return false
	})
}

func (d *Decoder) message(blk *statusBlock) bool {
	var mask uint32
	m := &blk.msg
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "messageId":
			return seen(&mask, 1) && d.stringInto(&m.ID)
		case "contextId":
			return seen(&mask, 2) && d.stringInto(&m.ContextID)
		case "taskId":
			return seen(&mask, 4) && d.stringInto((*string)(&m.TaskID))
		case "role":
			if !seen(&mask, 8) || d.next() != '"' {
				return false
			}
			raw, esc, ok := d.str()
			if !ok || esc {
				return false
			}
			m.Role = messageRole(raw)
			return true
		case "parts":
			if !seen(&mask, 16) {
				return false
			}
			// Non-nil even when empty, as encoding/json leaves "[]".
			m.Parts = a2a.ContentParts{}
			return d.partList()
		}
		return false
	})
}

func (d *Decoder) partList() bool {
	if d.next() != '[' {
		return false
	}
	d.i++
	if d.next() == ']' {
		d.i++
		return true
	}
	for {
		if !d.part() {
			return false
		}
		switch d.next() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true
		default:
			return false
		}
	}
}

func (d *Decoder) part() bool {
	var mask uint32
	ps := partSpans{}
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "text":
			if !seen(&mask, 1) {
				return false
			}
			ps.text, ps.hasText = int32(len(d.spans)), true
			return d.stringInto(nil)
		case "metadata":
			if !seen(&mask, 2) {
				return false
			}
			ps.meta, ps.hasMeta = int32(len(d.spans)), true
			return d.metadata(&ps)
		}
		return false
	})
	if !ok || !ps.hasText {
		return false
	}
	if d.count {
		d.nparts++
		return true
	}
	d.parts = append(d.parts, ps)
	return true
}

// metadata reads an object of string values: keys and values become
// alternating spans.
func (d *Decoder) metadata(ps *partSpans) bool {
	return d.object(func(key []byte) bool {
		if d.count {
			d.nspans++
		} else {
			d.spans = append(d.spans, d.spanOf(key, false, nil))
		}
		d.size += len(key)
		ps.nmeta++
		return d.stringInto(nil)
	})
}

// stringInto scans the string at d.i as a span whose value goes to dst.
func (d *Decoder) stringInto(dst *string) bool {
	if d.next() != '"' {
		return false
	}
	raw, esc, ok := d.str()
	if !ok {
		return false
	}
	if d.count {
		d.nspans++
	} else {
		d.spans = append(d.spans, d.spanOf(raw, esc, dst))
	}
	d.size += len(raw)
	return true
}

// str scans the JSON string at d.i (its opening quote) and returns its raw
// contents. It declines control characters, bad escapes, surrogate
// escapes (encoding/json's replacement of a lone one is not worth
// matching) and invalid UTF-8 (which encoding/json replaces).
func (d *Decoder) str() (raw []byte, esc bool, ok bool) {
	d.i++
	start := d.i
	b := d.b
	for d.i < len(b) {
		// Runs of plain ASCII, the bulk of every string, in a tight loop.
		for d.i < len(b) && plainASCII[b[d.i]] {
			d.i++
		}
		if d.i == len(b) {
			break
		}
		c := b[d.i]
		switch {
		case c == '"':
			raw = b[start:d.i]
			d.i++
			return raw, esc, true
		case c == '\\':
			esc = true
			if d.i+1 >= len(b) {
				return nil, false, false
			}
			switch b[d.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i += 2
			case 'u':
				if d.i+6 > len(b) {
					return nil, false, false
				}
				r := rune(0)
				for _, h := range b[d.i+2 : d.i+6] {
					v, ok := hexDigit(h)
					if !ok {
						return nil, false, false
					}
					r = r<<4 | v
				}
				if 0xD800 <= r && r < 0xE000 {
					return nil, false, false
				}
				d.i += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, n := utf8.DecodeRune(b[d.i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, false, false
			}
			d.i += n
		}
	}
	return nil, false, false
}

// plainASCII marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func hexDigit(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// taskState is a2a.TaskState's UnmarshalJSON on an unescaped string,
// without allocating for the states A2A names.
func taskState(raw []byte) a2a.TaskState {
	switch string(raw) {
	case "TASK_STATE_UNSPECIFIED":
		return a2a.TaskStateUnspecified
	case string(a2a.TaskStateWorking):
		return a2a.TaskStateWorking
	case string(a2a.TaskStateSubmitted):
		return a2a.TaskStateSubmitted
	case string(a2a.TaskStateCompleted):
		return a2a.TaskStateCompleted
	case string(a2a.TaskStateFailed):
		return a2a.TaskStateFailed
	case string(a2a.TaskStateCanceled):
		return a2a.TaskStateCanceled
	case string(a2a.TaskStateRejected):
		return a2a.TaskStateRejected
	case string(a2a.TaskStateInputRequired):
		return a2a.TaskStateInputRequired
	case string(a2a.TaskStateAuthRequired):
		return a2a.TaskStateAuthRequired
	}
	return a2a.TaskState(raw)
}

// messageRole is a2a.MessageRole's UnmarshalJSON on an unescaped string.
func messageRole(raw []byte) a2a.MessageRole {
	switch string(raw) {
	case "ROLE_UNSPECIFIED":
		return a2a.MessageRoleUnspecified
	case string(a2a.MessageRoleAgent):
		return a2a.MessageRoleAgent
	case string(a2a.MessageRoleUser):
		return a2a.MessageRoleUser
	}
	return a2a.MessageRole(raw)
}
