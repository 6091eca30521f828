package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// OpType is the type of an op.
type OpType string

// The op types.
const (
	// OpBlock carries one applied block.
	OpBlock OpType = "block"
	// OpSeal says the turn is sealed.
	OpSeal OpType = "seal"
	// OpResult carries the turn's verdict (see [Result]).
	OpResult OpType = "result"
)

// Op is one change to forward to a front end: self-contained, idempotent for
// a merge.Receiver, and order-free (a Receiver that gets a Turn's ops in any
// order ends with the Turn's view).
//
// Every op names its task and its turn (see merge.Turn for what a turn id is):
// a Receiver keeps one view per turn, so the seqs of a second turn on the
// same task never meet the first turn's.
//
// Its JSON form is flat and stable; NDJSON is one op per line:
//
//	{"type":"block","task":"t1","turn":"m1","streamKey":"call-1","seq":42,"id":"","kind":"tool_call",
//	 "status":"running","payload":{"tool":"search"},"source":"envelope","at":"2026-12-01T10:00:00.250000000Z"}
//	{"type":"block","task":"t1","turn":"m1","streamKey":"","seq":0,"id":"msg:m7","kind":"text",
//	 "status":"running","payload":{"text":"working…"},"source":"fallback",
//	 "reason":"no_envelope","after":42,"ordinal":1}
//	{"type":"block","task":"t1","turn":"m1","streamKey":"ri:b1:call-9","seq":2,"id":"ri:b1:call-9:2",
//	 "kind":"tool_call","status":"done","payload":{"tool":"expense-review","tool_call_id":"call-9"},
//	 "source":"projection","after":42,"ordinal":2}
//	{"type":"seal","task":"t1","turn":"m1"}
//	{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed",
//	 "reply":"done","counters":{"applied":3,…}}
//
// A block op always has type, task, turn, streamKey, seq, id, kind, status,
// payload (the envelope payload, per kind) and source; it has reason,
// overSoftLimit and truncated only when they are set (non-empty, true,
// non-zero), at when it is known, and, for a fallback or a projection,
// ordinal and — when it is anchored — after (see [Block]: seq means nothing
// for a fallback, id is its identity; a projection's seq counts within its
// streamKey only). A seal op has only type, task and turn. A result op has
// type, task, turn and the fields of [Result], flat.
//
// The decoder is strict about values (an unknown type, kind, status, source
// or verdict, a payload that does not fit its kind, a missing turn, an at
// that is not in canonical form: [ErrBadOp], with the reason) and about
// names: keys match exactly and once, and a key the op form does not name
// is an error naming the key ("SEQ", "ſeq", a second "seq", "colour"), so
// that every reader — Go, JavaScript's JSON.parse, Python — sees one op.
// The two fields a2a-tail adds to its result line, exitCode and
// schemaVersion, are known and ignored.
type Op struct {
	// Type is block, seal or result: which of Block and Result is set.
	Type OpType
	// Task is the A2A task id of the turn.
	Task string
	// Turn is the id of the turn the op belongs to; never "" in an op a
	// Turn made.
	Turn string
	// At is, for a block op, when the block was produced: the status
	// timestamp of the event that carried it, else its arrival time; zero
	// when unknown. It is the same time as Block.At (the encoder writes
	// At, or Block.At when At is zero). It is informational: a Receiver
	// never uses it for identity or order, and keeps the first arrival's.
	// Its JSON form is canonical RFC 3339 in UTC with nine fractional
	// digits (see [formatAt]).
	At time.Time
	// Block is the block of an OpBlock; zero otherwise.
	Block Block
	// Result is the verdict of an OpResult; nil otherwise.
	Result *Result
}

// blockJSON is the flat JSON form of a block.
type blockJSON struct {
	StreamKey     string          `json:"streamKey"`
	Seq           int64           `json:"seq"`
	ID            string          `json:"id"`
	Kind          envelope.Kind   `json:"kind"`
	Status        envelope.Status `json:"status"`
	Payload       json.RawMessage `json:"payload"`
	Source        Source          `json:"source"`
	Reason        envelope.Reason `json:"reason,omitempty"`
	OverSoftLimit bool            `json:"overSoftLimit,omitempty"`
	Parent        string          `json:"parent,omitempty"`
	Truncated     int64           `json:"truncated,omitempty"`
	After         *int64          `json:"after,omitempty"`
	Ordinal       int64           `json:"ordinal,omitempty"`
	At            string          `json:"at,omitempty"`
}

type opHeadJSON struct {
	Type OpType `json:"type"`
	Task string `json:"task"`
	Turn string `json:"turn"`
}

type resultOpJSON struct {
	opHeadJSON
	Result
}

// anyOpJSON is what the decoder reads: any op's fields.
type anyOpJSON struct {
	opHeadJSON
	blockJSON
	Result
}

// atLayout is the canonical form of an at: RFC 3339 in UTC with nine
// fractional digits, so that two encoders write one instant as one string
// and strings sort as instants.
const atLayout = "2006-01-02T15:04:05.000000000Z"

// MinAt and MaxAt bound the at of an op (PROTOCOL.md §4.4): the whole
// years inside what Unix nanoseconds in an int64 hold (1677-09-21 to
// 2262-04-11), so that a schema can say it with a pattern and merge's
// "unknown" (math.MinInt64) is outside it. An op's decoder refuses an at
// outside them; merge keeps a block's at only inside them.
var (
	MinAt = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxAt = time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// formatAt returns the canonical JSON form of an op's at: t in UTC, RFC
// 3339 with nine fractional digits ("2026-12-01T10:00:00.250000000Z"); ""
// for the zero time. Years outside 0000–9999 are clamped to that range.
func formatAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return string(appendAt(make([]byte, 0, len(atLayout)), t))
}

// parseAt parses the canonical form of an at; any other form is an error,
// so that every receiver keeps and shows the same string.
func parseAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(atLayout, s)
	if err != nil || t.Format(atLayout) != s {
		return time.Time{}, fmt.Errorf("%w: at %q is not RFC 3339 in UTC with nine fractional digits (2026-12-01T10:00:00.250000000Z)", ErrBadOp, s)
	}
	if t.Before(MinAt) || t.After(MaxAt) { // the zero time too: unknown is no at
		return time.Time{}, fmt.Errorf("%w: at %q is outside the years 1678 to 2261, the times a receiver keeps", ErrBadOp, s)
	}
	return t, nil
}

// ErrBadOp is returned (wrapped) by the JSON decoders for an op or block that
// cannot be decoded.
var ErrBadOp = errors.New("schema: bad op")

func (w *blockJSON) block() (Block, error) {
	b := Block{Key: Key{StreamKey: w.StreamKey, Seq: w.Seq, ID: w.ID}, Kind: w.Kind, Status: w.Status,
		Source: w.Source, Reason: w.Reason, OverSoftLimit: w.OverSoftLimit, Parent: w.Parent, Truncated: w.Truncated, Ordinal: w.Ordinal}
	if w.After != nil {
		b.Anchored, b.After = true, *w.After
	}
	var err error
	if b.At, err = parseAt(w.At); err != nil {
		return Block{}, err
	}
	if b.Payload, err = decodePayload(w.Kind, w.Payload); err != nil {
		return Block{}, err
	}
	e := envelope.Envelope{V: envelope.Version, Kind: b.Kind, StreamKey: b.Key.StreamKey, Status: b.Status, Payload: b.Payload, Parent: b.Parent}
	if err := e.Validate(); err != nil {
		return Block{}, fmt.Errorf("%w: %w", ErrBadOp, err)
	}
	if b.Parent != "" && b.Source != SourceEnvelope {
		return Block{}, fmt.Errorf("%w: %s block %q with a parent (only an envelope nests, PROTOCOL.md §10)", ErrBadOp, w.Source, w.ID)
	}
	// What a producer always writes for a placed block (PROTOCOL.md §4.1),
	// checked as schema/op.schema.json does.
	if b.Source != SourceEnvelope && b.Ordinal < 1 {
		return Block{}, fmt.Errorf("%w: %s block %q without an ordinal", ErrBadOp, w.Source, w.ID)
	}
	if b.Source == SourceFallback && !isFallbackReason(b.Reason) {
		return Block{}, fmt.Errorf("%w: fallback %q with the reason %q (want one of PROTOCOL.md §2.6)", ErrBadOp, w.ID, b.Reason)
	}
	if !b.valid() {
		return Block{}, fmt.Errorf("%w: block %q/%d/%q is not a valid %s block", ErrBadOp, w.StreamKey, w.Seq, w.ID, w.Source)
	}
	return b, nil
}

// decodePayload decodes the payload of kind k into its envelope type.
func decodePayload(k envelope.Kind, raw json.RawMessage) (envelope.Payload, error) {
	switch k {
	case envelope.KindThinking:
		return decodeAs[envelope.Thinking](raw)
	case envelope.KindToolCall:
		return decodeAs[envelope.ToolCall](raw)
	case envelope.KindToolOutputAppend:
		return decodeAs[envelope.ToolOutputAppend](raw)
	case envelope.KindText:
		return decodeAs[envelope.Text](raw)
	case envelope.KindError:
		return decodeAs[envelope.ErrorPayload](raw)
	}
	return nil, fmt.Errorf("%w: kind %q", ErrBadOp, k)
}

// decodeAs decodes raw as a P. It returns the value, not a pointer: a
// Block holds payload values, as a reader gives them.
func decodeAs[P envelope.Payload](raw json.RawMessage) (envelope.Payload, error) {
	var v P
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, decodeError("payload", err)
	}
	if err := checkKeys(raw, payloadKeys[v.Kind()]); err != nil {
		return nil, err
	}
	return v, nil
}

// MarshalJSON encodes the block in the flat form of a block op, without
// type and task.
func (b Block) MarshalJSON() ([]byte, error) {
	dst, err := appendBlockFields(append(make([]byte, 0, encodeSize(&b)), '{'), &b, b.At)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// UnmarshalJSON decodes a block written by MarshalJSON and checks it, as
// [Op.UnmarshalJSON] does (keys exact, once each).
func (b *Block) UnmarshalJSON(data []byte) error {
	var w blockJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return decodeError("", err)
	}
	if err := checkKeys(data, blockKeys); err != nil {
		return err
	}
	v, err := w.block()
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// MarshalJSON encodes the op in its flat form (see [Op]).
func (o Op) MarshalJSON() ([]byte, error) {
	if o.Type == OpResult {
		if o.Result == nil {
			return nil, fmt.Errorf("%w: a result op without a result", ErrBadOp)
		}
		return json.Marshal(resultOpJSON{opHeadJSON{Type: o.Type, Task: o.Task, Turn: o.Turn}, *o.Result})
	}
	return appendOp(make([]byte, 0, len(o.Task)+len(o.Turn)+encodeSize(&o.Block)), &o)
}

// UnmarshalJSON decodes an op and checks it as schema/op.schema.json
// does: an unknown type, kind, status, source or verdict, a payload that
// does not fit its kind, a missing task or turn, an at not in canonical
// form ([formatAt]) or outside the years 1678 to 2261, a fallback or
// projection without its ordinal, a fallback without a fallback reason
// (PROTOCOL.md §2.6), a result without its counters, a key that is not
// exactly one of the op's (or is given twice), a seq that is not an
// integer within int64 is an error wrapping [ErrBadOp] that says which.
func (o *Op) UnmarshalJSON(data []byte) error {
	var w anyOpJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return decodeError("", err)
	}
	if err := checkKeys(data, opKeys); err != nil {
		return err
	}
	switch {
	case w.Task == "":
		return fmt.Errorf("%w: %s op without a task", ErrBadOp, w.Type)
	case w.Turn == "":
		return fmt.Errorf("%w: %s op without a turn", ErrBadOp, w.Type)
	}
	v := Op{Type: w.Type, Task: w.Task, Turn: w.Turn}
	switch w.Type {
	case OpSeal:
	case OpBlock:
		b, err := w.block()
		if err != nil {
			return err
		}
		v.Block, v.At = b, b.At
	case OpResult:
		if err := requireCounters(data); err != nil {
			return err
		}
		r := w.Result
		if err := r.Validate(); err != nil {
			return err
		}
		v.Result = &r
	default:
		return fmt.Errorf("%w: type %q", ErrBadOp, w.Type)
	}
	*o = v
	return nil
}

// decodeError is encoding/json's error for an op form (or, with in, for
// its member in), wrapping [ErrBadOp]; a value of the wrong type is named
// by its JSON path ("seq: number 1.0 is not an int64"), without the Go
// wire structs' names.
func decodeError(in string, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		if in != "" {
			return fmt.Errorf("%w: %s: %w", ErrBadOp, in, err)
		}
		return fmt.Errorf("%w: %w", ErrBadOp, err)
	}
	var path []string
	if in != "" {
		path = append(path, in)
	}
	for _, f := range strings.Split(te.Field, ".") {
		switch f {
		case "opHeadJSON", "blockJSON", "Result": // the embedded wire structs
		default:
			path = append(path, f)
		}
	}
	what := te.Type.String()
	if te.Type.Kind() == reflect.Int64 {
		what = "an int64 (an integer in plain decimal within int64)"
	}
	return fmt.Errorf("%w: %s: %s is not %s", ErrBadOp, strings.Join(path, "."), te.Value, what)
}

// isFallbackReason reports whether r is a reason a fallback can have
// (PROTOCOL.md §2.6): every envelope reason but none and extra_envelope,
// which never makes a fallback.
func isFallbackReason(r envelope.Reason) bool {
	switch r {
	case envelope.ReasonNoEnvelope, envelope.ReasonBadJSON, envelope.ReasonUnsupportedVersion, envelope.ReasonUnknownKind,
		envelope.ReasonBadField, envelope.ReasonChunkTooLarge, envelope.ReasonEnvelopeTooLarge:
		return true
	}
	return false
}

// countersRequired are the counters a result op always carries
// (PROTOCOL.md §4.3): a producer writes them all, zero or not.
var countersRequired = []string{"applied", "duplicates", "conflicts", "late", "gaps", "droppedAfterSeal", "droppedByCap"}

// requireCounters checks that the result op data has its counters, each
// required one present: a result without them would read as a turn with
// nothing applied.
func requireCounters(data []byte) error {
	var w struct {
		Counters map[string]json.RawMessage `json:"counters"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOp, err)
	}
	if w.Counters == nil {
		return fmt.Errorf("%w: result without counters", ErrBadOp)
	}
	for _, k := range countersRequired {
		if _, ok := w.Counters[k]; !ok {
			return fmt.Errorf("%w: result counters without %q", ErrBadOp, k)
		}
	}
	return nil
}

// Keys match exactly. encoding/json (v1) matches an object key to a field
// case-insensitively, with Unicode folding ("SEQ", "ſeq" with U+017F and
// "Kind" with the Kelvin sign are read as seq and kind), and lets a repeated
// key silently override the first: a JavaScript or Python reader of the
// same op would see another op. So once encoding/json has decoded an op, a
// block or a payload (and so checked its syntax), checkKeys walks its bytes
// and refuses, wrapping [ErrBadOp] and naming the key, any key that is not
// exactly one of the object's names and any key given twice — as the
// envelope parser (envelope.Parse) matches keys exactly. With every key
// exact and unique, what encoding/json then decodes is what an exact
// decoder would. Numbers need no such pass: encoding/json reads an int64
// field from its decimal text (strconv.ParseInt), so a seq is exact over
// the whole int64 range and 1.0, 1e3 or 2^63 is an error, never rounded.

// keys is the exact key set of one JSON object of the op forms. A member
// whose value is an object or an array of objects with keys of their own
// names them in sub; any marks a map, whose keys are free (but unique).
type keys struct {
	what  string
	names map[string]*keys
	any   bool
}

// keySet builds a keys for the object what with the given names, every
// one a scalar (add nested sets to names after).
func keySet(what string, names ...string) *keys {
	k := &keys{what: what, names: make(map[string]*keys, len(names))}
	for _, n := range names {
		k.names[n] = nil
	}
	return k
}

// The key sets of the op forms (PROTOCOL.md §4), as the json tags of
// blockJSON, opHeadJSON, Result and the payloads name them.
var (
	fallbackKeys = &keys{what: "counters.fallbacks", any: true}
	counterKeys  = func() *keys {
		k := keySet("counters", "applied", "duplicates", "conflicts", "late", "gaps", "droppedAfterSeal", "droppedByCap", "invalid")
		k.names["fallbacks"] = fallbackKeys
		return k
	}()
	blockKeyNames  = []string{"streamKey", "seq", "id", "kind", "status", "payload", "source", "reason", "overSoftLimit", "parent", "truncated", "after", "ordinal", "at"}
	resultKeyNames = []string{"state", "verdict", "reply", "artifacts", "artifactsTruncated", "interrupt", "error", "context", "counters"}
	blockKeys      = keySet("block", blockKeyNames...)
	opKeys         = func() *keys {
		// exitCode and schemaVersion are a2a-tail's, on its result line
		// (PROTOCOL.md §4): known, and ignored.
		k := keySet("op", append(append([]string{"type", "task", "turn", "exitCode", "schemaVersion"}, blockKeyNames...), resultKeyNames...)...)
		k.names["counters"] = counterKeys
		k.names["artifacts"] = keySet("artifact", "id", "name", "text")
		in := keySet("interrupt", "question", "items")
		in.names["items"] = keySet("interrupt item", "toolCallId", "toolName", "message")
		k.names["interrupt"] = in
		return k
	}()
	payloadKeys = map[envelope.Kind]*keys{
		envelope.KindThinking:         keySet("payload", "text"),
		envelope.KindText:             keySet("payload", "text"),
		envelope.KindError:            keySet("payload", "message"),
		envelope.KindToolCall:         keySet("payload", "tool", "tool_call_id"),
		envelope.KindToolOutputAppend: keySet("payload", "tool", "chunk", "tool_call_id"),
	}
)

// checkKeys checks the keys of the JSON object data against k: keys of
// k's object and of the objects nested in it that k names exactly and
// once; in every other object (a map, or a value the op form does not look
// into, such as a seal's payload or exitCode) any key, but once. data is
// valid JSON (encoding/json has decoded it): the check is one pass of
// internal/jsonstr's Scanner — the strict key policy on the tokenizer the
// envelope and frame readers use — and allocates only for a key with
// escapes. Data that is not an object has no keys to check.
func checkKeys(data []byte, k *keys) error {
	c := keyChecks.Get().(*keyCheck)
	defer c.release()
	c.root = k
	c.sc.Reset(data)
	c.sc.AllowInvalidUTF8() // as encoding/json reads it
	if c.sc.Peek() != '{' {
		return nil
	}
	if !c.value(-1, nil, k) && c.err == nil {
		c.err = fmt.Errorf("%w: %s", ErrBadOp, c.sc.Err())
	}
	return c.err
}

// keyChecks keeps the scratch of checkKeys passes (the stacks of a
// recursive walk, which escape analysis sends to the heap): no allocation
// per op. A pass whose stacks grew past keepKeyCheck entries is not kept.
var keyChecks = sync.Pool{New: func() any { return new(keyCheck) }}

const keepKeyCheck = 1024

// release empties c (it holds no key, error or input) and keeps it for
// the next pass unless it grew large.
func (c *keyCheck) release() {
	clear(c.seen[:cap(c.seen)])
	clear(c.stack[:cap(c.stack)])
	*c = keyCheck{stack: c.stack[:0], seen: c.seen[:0]}
	if cap(c.seen) <= keepKeyCheck && cap(c.stack) <= keepKeyCheck {
		keyChecks.Put(c)
	}
}

// keyCheck is one checkKeys pass.
type keyCheck struct {
	sc    jsonstr.Scanner
	root  *keys
	stack []container // the open objects and arrays, outermost first
	seen  [][]byte    // the keys of the open objects, outermost first
	err   error
}

// container is an open object or array, for naming it in an error.
type container struct {
	up   int    // index of the enclosing one in the stack; -1 for none
	k    *keys  // an object's key set; nil for any keys, and for an array
	from []byte // the key of the member it is the value of, in an object
	obj  bool
}

// what names the open container n for an error: its key set's name, or
// its parent's name and its key.
func (c *keyCheck) what(n int) string {
	switch f := c.stack[n]; {
	case f.k != nil:
		return f.k.what
	case f.up < 0:
		return c.root.what
	case c.stack[f.up].obj:
		return c.what(f.up) + "." + string(f.from)
	default:
		return c.what(f.up)
	}
}

// value checks the value at the cursor, the value of the member from of
// the open container up: an object's keys against k (nil: any, but once),
// an array's elements' against k.
func (c *keyCheck) value(up int, from []byte, k *keys) bool {
	var ok bool
	switch c.sc.Peek() {
	case '{':
		n, start := len(c.stack), len(c.seen)
		c.stack = append(c.stack, container{up: up, k: k, from: from, obj: true})
		ok = c.sc.Object(func(key []byte, f jsonstr.Flags) bool {
			if f&(jsonstr.Escaped|jsonstr.InvalidUTF8) != 0 { // as encoding/json reads it
				var s string
				if err := json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s); err != nil {
					c.err = fmt.Errorf("%w: %w", ErrBadOp, err)
					return false
				}
				key = []byte(s)
			}
			for _, prev := range c.seen[start:] {
				if bytes.Equal(prev, key) {
					c.err = fmt.Errorf("%w: %s: duplicate key %q", ErrBadOp, c.what(n), key)
					return false
				}
			}
			c.seen = append(c.seen, key)
			var sub *keys
			if k != nil {
				s, known := k.names[string(key)]
				if !known && !k.any {
					c.err = unknownKey(k, key)
					return false
				}
				sub = s
			}
			return c.value(n, key, sub)
		})
		c.seen = c.seen[:start]
	case '[':
		n := len(c.stack)
		c.stack = append(c.stack, container{up: up, from: from})
		ok = c.sc.Array(func() bool { return c.value(n, nil, k) })
	default:
		return c.sc.Skip()
	}
	c.stack = c.stack[:len(c.stack)-1]
	return ok
}

// unknownKey is the error for a key k does not name.
func unknownKey(k *keys, key []byte) error {
	for name := range k.names {
		if strings.EqualFold(name, string(key)) {
			return fmt.Errorf("%w: %s: unknown key %q (keys match exactly: %q)", ErrBadOp, k.what, key, name)
		}
	}
	return fmt.Errorf("%w: %s: unknown key %q", ErrBadOp, k.what, key)
}
