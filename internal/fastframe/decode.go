// Package fastframe decodes, in one pass, the frame that makes up nearly
// all of an A2A progress stream — an A2A 1.0 status update — for the
// client's HTTP streaming path (internal/fastpath). [Decoder.Read] hands
// the client a plain progress frame as a [Progress] — its state, ids,
// timestamp and the bytes of its tfrs string, with no a2a-go message
// built; the client parses the envelope — any other status update as
// a2a-go's event ([Decoder.Decode]), and a plain artifact update (text
// parts) as a2a-go's event too; it declines every other frame, which
// the client then hands to a2a-go's own decoding: [DecodeV1] and
// [DecodeV03] apply the types and unmarshalling a2a-go's 1.0 and 0.3
// transports apply, and decline what those fail on, for which
// [FrameError] gives the error a2a-go gives. The oracle — a2a-go's
// transport decoding one frame — and the differential tests and
// FuzzFastVsA2A that compare them with it are the client's tests
// (client/fastframe_*_test.go): they drive real callees through the
// client, which this package, below every public one, cannot import.
package fastframe

import (
	"time"

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
// [Decoder.Read] also accepts an artifactUpdate of the same simplicity
// (see Read).
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
// An accepted frame that is built into a2a-go's event costs one block for
// the event, its message and first part; one allocation per string (see
// fill); the metadata map; the boxed part text and metadata value
// (BenchmarkFrameDecode). A plain progress frame read by Read costs two.
type Decoder struct {
	// RPC: frames are JSON-RPC responses whose result is the event;
	// otherwise (REST) the frame is the event.
	RPC   bool
	b     []byte // the frame
	sc    jsonstr.Scanner
	spans []span // the strings of the frame, filled by the pass
	parts []partSpans

	// blk: the fields scan read, other than strings; art instead when the
	// frame is an artifact update (isArt).
	blk   statusBlock
	art   artifactBlock
	isArt bool
	// ids: the last task and context ids of a Progress, so that a stream's
	// frames, which all name the same, share one copy of each.
	taskID, contextID string
	// esc: the decoded contents of the last tfrs value the scan read, for
	// a Progress (which has exactly one).
	esc []byte
	// prog is what Read returns for a plain progress frame.
	prog Progress

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
// whether they hold escapes. dst names the field of a statusBlock its
// value goes to once the frame is accepted; noField for part texts and
// metadata, which Decode places itself. 12 bytes: a frame of 750 000
// one-letter parts holds as many spans.
type span struct {
	off, n uint32
	esc    bool
	dst    field
}

// field names a string field of a statusBlock or an artifactBlock.
type field uint8

const (
	noField field = iota
	evTaskID
	evContextID
	msgID
	msgContextID
	msgTaskID
	artTaskID
	artContextID
	artID
	artName
	artDescription
)

// fieldOf returns the string field f of the status update's block sb or
// the artifact update's ab (the other is nil).
func fieldOf(sb *statusBlock, ab *artifactBlock, f field) *string {
	switch f {
	case evTaskID:
		return (*string)(&sb.ev.TaskID)
	case evContextID:
		return &sb.ev.ContextID
	case msgID:
		return &sb.msg.ID
	case msgContextID:
		return &sb.msg.ContextID
	case msgTaskID:
		return (*string)(&sb.msg.TaskID)
	case artTaskID:
		return (*string)(&ab.ev.TaskID)
	case artContextID:
		return &ab.ev.ContextID
	case artID:
		return (*string)(&ab.art.ID)
	case artName:
		return &ab.art.Name
	case artDescription:
		return &ab.art.Description
	}
	return nil
}

type partSpans struct {
	text    int32 // index of the text span
	meta    int32 // index of the first metadata key span; values follow keys
	nmeta   int32
	hasMeta bool
	hasText bool
}

// spanOf is the span of raw, a subslice of the frame.
func (d *Decoder) spanOf(raw []byte, esc bool, dst field) span {
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

// artifactBlock is statusBlock for an artifact update.
type artifactBlock struct {
	ev   a2a.TaskArtifactUpdateEvent
	art  a2a.Artifact
	part a2a.Part
	one  [1]*a2a.Part
}

// Decode returns the status update of data, or ok false when the frame is
// not of the shape described above. The event shares nothing with data.
// A Decoder is not safe for concurrent use; reusing one per stream keeps
// its scratch space.
func (d *Decoder) Decode(data []byte) (ev *a2a.TaskStatusUpdateEvent, ok bool) {
	d.release() // what the last Progress kept for its Event
	defer d.release()
	if !d.scan(data) || d.isArt {
		return nil, false
	}
	return d.build()
}

// Read is Decode for the client's stream: a plain progress frame — a
// working (or submitted) status update whose message is one part carrying
// a string in metadata["tfrs"] — is returned as a [*Progress], which holds
// what the client reads of it and builds no a2a-go message; any other
// accepted status update as Decode returns it. Read also accepts an
// artifact update of the same simplicity — taskId, contextId, append,
// lastChunk, and an artifact of artifactId, name, description and text
// parts — which a2a-go's own decoding reads at a tenth of the speed (its
// nested unmarshallers validate the same bytes once per level: a stream of
// large artifacts was bound by it). ok false: declined, as by Decode.
func (d *Decoder) Read(data []byte) (ev a2a.Event, ok bool) {
	d.release() // what the last Progress kept for its Event
	if !d.scan(data) {
		d.release()
		return nil, false
	}
	if d.isArt {
		defer d.release()
		return d.buildArtifact()
	}
	if p := d.progress(); p != nil {
		return p, true // the scan is kept for p.Event until the next call
	}
	defer d.release()
	return d.build()
}

// scan checks data in one pass and records its strings (d.spans, d.parts)
// and its other fields (d.blk).
func (d *Decoder) scan(data []byte) bool {
	if len(data) > presizeAbove {
		d.b = data
		d.sc.Reset(data)
		d.count, d.nspans, d.nparts = true, 0, 0
		d.resetBlocks()
		ok := d.frame(&d.blk)
		d.count = false
		if !ok {
			return false
		}
		if cap(d.spans) < d.nspans {
			d.spans = make([]span, 0, d.nspans)
		}
		if cap(d.parts) < d.nparts {
			d.parts = make([]partSpans, 0, d.nparts)
		}
	}
	d.b = data
	d.sc.Reset(data)
	d.spans = d.spans[:0]
	d.parts = d.parts[:0]
	d.resetBlocks()
	return d.frame(&d.blk) && d.sc.Done()
}

// build makes the a2a-go event of the status update scan accepted.
func (d *Decoder) build() (*a2a.TaskStatusUpdateEvent, bool) {
	blk := new(statusBlock)
	*blk = d.blk
	if blk.ev.Status.Message != nil {
		blk.ev.Status.Message = &blk.msg
	}
	if blk.ev.Status.Timestamp != nil {
		blk.ev.Status.Timestamp = &blk.ts
	}
	if blk.msg.Parts != nil || len(d.parts) > 0 {
		blk.msg.Parts = d.partsIn(&blk.one, &blk.part)
	}
	if !d.fill(blk.msg.Parts, blk, nil) {
		return nil, false
	}
	return &blk.ev, true
}

// buildArtifact makes the a2a-go event of the artifact update scan
// accepted.
func (d *Decoder) buildArtifact() (*a2a.TaskArtifactUpdateEvent, bool) {
	blk := new(artifactBlock)
	*blk = d.art
	blk.ev.Artifact = &blk.art
	if blk.art.Parts != nil || len(d.parts) > 0 {
		blk.art.Parts = d.partsIn(&blk.one, &blk.part)
	}
	if !d.fill(blk.art.Parts, nil, blk) {
		return nil, false
	}
	return &blk.ev, true
}

// partsIn makes the parts of the frame, the first of them first (it lives
// in the event's block); non-nil even when empty, as encoding/json leaves
// "[]".
func (d *Decoder) partsIn(one *[1]*a2a.Part, first *a2a.Part) a2a.ContentParts {
	switch len(d.parts) {
	case 0:
		return a2a.ContentParts{}
	case 1:
		one[0] = first
		return one[:]
	}
	ps := make([]a2a.Part, len(d.parts))
	parts := make(a2a.ContentParts, len(d.parts))
	parts[0] = first
	for k := 1; k < len(ps); k++ {
		parts[k] = &ps[k]
	}
	return parts
}

// fill sets the strings of the frame: each span's field in sb or ab (see
// fieldOf), and the texts and metadata of parts. It declines a part whose
// metadata repeats a key.
//
// Each string is an allocation of its own. Joined into one (one object for
// the garbage collector), a kept string would hold its whole frame alive:
// a caller that keeps a two-byte text of a status update and drops its
// 1 MiB metadata, or some parts of an artifact under its byte budget,
// would hold memory it does not count (32 kept texts or ids of 1 MiB
// frames held 32 MiB: TestReadKeepsNoFrame). A plain progress frame, nearly
// all of a stream, is not built here (Progress).
func (d *Decoder) fill(parts a2a.ContentParts, sb *statusBlock, ab *artifactBlock) bool {
	own := make([]string, len(d.spans))
	for k := range d.spans {
		sp := &d.spans[k]
		raw := d.b[sp.off : sp.off+sp.n]
		if !sp.esc {
			own[k] = string(raw)
			continue
		}
		var one jsonstr.Joined
		one.Grow(len(raw))
		one.Add(raw, jsonstr.Escaped)
		own[k] = one.String()
	}
	for k := range d.spans {
		if dst := d.spans[k].dst; dst != noField {
			*fieldOf(sb, ab, dst) = own[k]
		}
	}
	for k, ps := range d.parts {
		p := parts[k]
		p.Content = a2a.Text(own[ps.text])
		if ps.hasMeta {
			m := make(map[string]any, ps.nmeta)
			for j := 0; j < int(ps.nmeta); j++ {
				key := own[int(ps.meta)+2*j]
				if _, dup := m[key]; dup {
					return false
				}
				m[key] = own[int(ps.meta)+2*j+1]
			}
			p.Metadata = m
		}
	}
	return true
}

// resetBlocks clears what the last scan read; the artifact block only
// when an artifact update used it (a progress frame, nearly every frame
// of a stream, does not pay for it).
func (d *Decoder) resetBlocks() {
	d.blk = statusBlock{}
	if d.isArt {
		d.art, d.isArt = artifactBlock{}, false
	}
}

// release drops scratch that a large frame grew, and the frame.
func (d *Decoder) release() {
	d.b = nil
	d.sc.Reset(nil)
	d.resetBlocks()
	if cap(d.spans) > keepScratch {
		d.spans, d.parts = nil, nil
	}
	if cap(d.esc) > keepScratch<<4 {
		d.esc = nil
	}
}

// object walks the members of the object at the cursor, calling member
// with each key (unescaped keys only: an escaped one declines) positioned
// at its value. member returns false to decline.
func (d *Decoder) object(member func(key []byte) bool) bool {
	return d.sc.Object(func(key []byte, f jsonstr.Flags) bool {
		return f == 0 && member(key)
	})
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

// skipString checks the string at the cursor without keeping it.
func (d *Decoder) skipString() bool {
	_, _, ok := d.str()
	return ok
}

// wrapper is the StreamResponse: exactly one member, statusUpdate or
// artifactUpdate.
func (d *Decoder) wrapper(blk *statusBlock) bool {
	var mask uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "statusUpdate":
			return seen(&mask, 1) && d.statusUpdate(blk)
		case "artifactUpdate":
			d.isArt = true
			return seen(&mask, 1) && d.artifactUpdate()
		}
		return false
	}) && mask != 0
}

// artifactUpdate reads an artifact update into d.art; the artifact must be
// there (a2a-go would leave it nil: its own decoding says what that means).
func (d *Decoder) artifactUpdate() bool {
	var mask uint32
	ev := &d.art.ev
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "taskId":
			return seen(&mask, 1) && d.stringInto(artTaskID)
		case "contextId":
			return seen(&mask, 2) && d.stringInto(artContextID)
		case "append":
			return seen(&mask, 4) && d.boolean(&ev.Append)
		case "lastChunk":
			return seen(&mask, 8) && d.boolean(&ev.LastChunk)
		case "artifact":
			return seen(&mask, 16) && d.artifact()
		}
		return false
	}) && mask&16 != 0
}

func (d *Decoder) artifact() bool {
	var mask uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "artifactId":
			return seen(&mask, 1) && d.stringInto(artID)
		case "name":
			return seen(&mask, 2) && d.stringInto(artName)
		case "description":
			return seen(&mask, 4) && d.stringInto(artDescription)
		case "parts":
			if !seen(&mask, 8) {
				return false
			}
			d.art.art.Parts = a2a.ContentParts{} // as for a message's
			return d.partList()
		}
		return false
	})
}

// boolean reads true or false (null, as anything else, declines).
func (d *Decoder) boolean(dst *bool) bool {
	c := d.sc.Peek()
	*dst = c == 't'
	return (c == 't' || c == 'f') && d.sc.Skip()
}

func (d *Decoder) statusUpdate(blk *statusBlock) bool {
	var mask uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "taskId":
			return seen(&mask, 1) && d.stringInto(evTaskID)
		case "contextId":
			return seen(&mask, 2) && d.stringInto(evContextID)
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
			if !seen(&mask, 1) {
				return false
			}
			raw, esc, ok := d.str()
			if !ok || esc {
				return false
			}
			st.State = taskState(raw)
			return true
		case "timestamp":
			if !seen(&mask, 2) {
				return false
			}
			start := d.sc.Pos()
			if _, _, ok := d.str(); !ok {
				return false
			}
			// time.Time's own UnmarshalJSON on the same bytes: what
			// encoding/json calls for a2a-go, error included.
			if blk.ts.UnmarshalJSON(d.b[start:d.sc.Pos()]) != nil {
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
			return seen(&mask, 1) && d.stringInto(msgID)
		case "contextId":
			return seen(&mask, 2) && d.stringInto(msgContextID)
		case "taskId":
			return seen(&mask, 4) && d.stringInto(msgTaskID)
		case "role":
			if !seen(&mask, 8) {
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
			m.Parts = a2a.ContentParts{} // non-nil: see partsIn
			return d.partList()
		}
		return false
	})
}

func (d *Decoder) partList() bool {
	return d.sc.Array(d.part)
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
			return d.stringInto(noField)
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
			d.spans = append(d.spans, d.spanOf(key, false, noField))
		}
		ps.nmeta++
		if d.count || d.isArt || string(key) != tfrs {
			return d.stringInto(noField)
		}
		// A status update's envelope: decoded in the same pass, for
		// Progress (an artifact update's metadata is built by fill).
		if d.sc.Peek() != '"' {
			return false
		}
		out, raw, f, ok := d.sc.StringTo(d.esc[:0])
		if !ok || f&jsonstr.Surrogate != 0 {
			return false
		}
		d.esc = out
		d.spans = append(d.spans, d.spanOf(raw, f&jsonstr.Escaped != 0, noField))
		return true
	})
}

// stringInto scans the string at the cursor as a span whose value goes to dst.
func (d *Decoder) stringInto(dst field) bool {
	raw, esc, ok := d.str()
	if !ok {
		return false
	}
	if d.count {
		d.nspans++
	} else {
		d.spans = append(d.spans, d.spanOf(raw, esc, dst))
	}
	return true
}

// str reads the JSON string at the cursor and returns its raw contents.
// It declines what is not a string and what the Scanner refuses (control
// characters, bad escapes, invalid UTF-8, which encoding/json replaces)
// and surrogate escapes (encoding/json's replacement of a lone one is not
// worth matching).
func (d *Decoder) str() (raw []byte, esc bool, ok bool) {
	if d.sc.Peek() != '"' {
		return nil, false, false
	}
	raw, f, ok := d.sc.String()
	if !ok || f&jsonstr.Surrogate != 0 {
		return nil, false, false
	}
	return raw, f&jsonstr.Escaped != 0, true
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
