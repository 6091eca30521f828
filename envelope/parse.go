package envelope

import (
	"math"
	"strconv"

	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// Parse decodes and validates one envelope given as its JSON text (the spec
// form of metadata["tfrs"]). The error is an [*Error].
func Parse(s string) (Envelope, error) {
	e, _, err := parseString(s)
	return e, err
}

// parseString reads s in place: the scanner never writes to its input and
// every string an Envelope keeps is a fresh copy.
func parseString(s string) (Envelope, bool, error) {
	var sc jsonstr.Scanner
	sc.ResetString(s)
	return parse(&sc, len(s))
}

// parseBytes is parseString for bytes.
func parseBytes(b []byte) (Envelope, bool, error) {
	var sc jsonstr.Scanner
	sc.Reset(b)
	return parse(&sc, len(b))
}

// The envelope is decoded by hand rather than with encoding/json:
//
//   - encoding/json matches object keys case-insensitively, with Unicode
//     folding: "SEQ", "Seq" and even "ſeq" (U+017F) are read as seq, and an
//     unknown extra field "Seq" placed after "seq" silently overrides it. A
//     JavaScript or Python reader of the same envelope sees a different seq.
//     Keys here match exactly; any other spelling is an unknown field.
//   - encoding/json reads JSON numbers through float64, so seq
//     9007199254740993.0 would be ...992 and 1e-400 would be 0. Here the
//     decimal text is judged exactly.
//   - encoding/json costs about as much as the rest of a caller's per-event
//     work; this single pass allocates only the strings it returns
//     (BENCHMARKS.md, envelope).
//
// The tokens are internal/jsonstr's Scanner, the one tokenizer of the
// repository's exact readers; this file is the envelope's lenient key
// policy on it (PROTOCOL.md §2.2): an unknown key is skipped, and of a
// repeated key the last one wins, as in encoding/json and JavaScript.
// Syntax is checked over the whole input, unknown fields included, before
// any field is judged, so a syntax error anywhere is always ReasonBadJSON;
// invalid UTF-8 anywhere is named as such.
//
// FuzzParse (fuzz_test.go) checks this parser against encoding/json as its
// oracle, decoding into a map (exact keys) with json.Number (exact
// numbers): whatever Parse accepts is valid JSON and means what the oracle
// reads; a valid JSON object is never called bad JSON. Switch to
// encoding/json/v2 once it is in the standard library without
// GOEXPERIMENT: it matches keys exactly and can keep a number's text,
// which removes the first two reasons; keep this parser only if
// BENCHMARKS.md still shows v2 costing a large share of the per-event work
// with the same rules.

// states of a decoded field.
const (
	absent     uint8 = iota // missing or null
	present                 // well-typed
	wrongType               // another JSON type; field.got names it
	notInteger              // a number that is not an integer
	outOfRange              // an integer outside int64
)

// field is one decoded scalar of the envelope or its payload.
type field struct {
	s     string // set by materialize for the fields an Envelope keeps
	raw   []byte // a string's contents in the input, between the quotes
	f     jsonstr.Flags
	n     int64
	state uint8
	got   string // the JSON type seen when state is wrongType
}

// text returns a string field's value, for the enum fields (kind, status):
// the interned constant, or a copy of an unknown value.
func (f *field) text() string {
	if f.f&jsonstr.Escaped != 0 {
		return string(jsonstr.AppendUnescaped(nil, f.raw))
	}
	return intern(f.raw)
}

// materialize gives the fields an Envelope keeps their values, all slices
// of one string: per envelope that is one object for the garbage
// collector to allocate and mark instead of one per string.
func materialize(fs ...*field) {
	total := 0
	for _, f := range fs {
		if f.state == present {
			total += len(f.raw)
		}
	}
	if total == 0 {
		return
	}
	var j jsonstr.Joined
	j.Grow(total)
	var at [4][2]int // build passes at most four fields
	for k, f := range fs {
		if f.state == present {
			at[k][0], at[k][1] = j.Add(f.raw, f.f)
		}
	}
	all := j.String()
	for k, f := range fs {
		if f.state == present {
			f.s = all[at[k][0]:at[k][1]]
		}
	}
}

// decoded is the envelope as the parser read it, before validation.
type decoded struct {
	v, kind, streamKey, seq, status field
	parent                          field
	payload                         field // s and n unused
	text, tool, toolCallID, chunk   field
	message                         field
}

type parser struct {
	*jsonstr.Scanner
	w         *decoded
	inPayload bool
}

// parse is the one decoder behind every read path: n bytes at sc. It
// returns the envelope, whether its chunk is over the soft limit, and an
// *Error.
func parse(sc *jsonstr.Scanner, n int) (Envelope, bool, error) {
	if n > MaxEnvelopeBytes {
		return Envelope{}, false, &Error{Reason: ReasonEnvelopeTooLarge,
			Detail: strconv.Itoa(n) + " bytes is over the cap of " + strconv.Itoa(MaxEnvelopeBytes)}
	}
	var w decoded
	p := parser{sc, &w, false}
	if sc.Peek() != '{' {
		if !sc.ValidUTF8() {
			return Envelope{}, false, errNotUTF8
		}
		return Envelope{}, false, &Error{Reason: ReasonBadJSON, Detail: "not a JSON object"}
	}
	ok := sc.Object(p.member)
	if ok && !sc.Done() {
		ok = sc.Fail("data after the envelope object")
	}
	if !ok {
		// Invalid UTF-8 anywhere is named first, as it was checked
		// before the syntax (a successful scan implies valid UTF-8).
		if !sc.ValidUTF8() {
			return Envelope{}, false, errNotUTF8
		}
		return Envelope{}, false, &Error{Reason: ReasonBadJSON, Detail: sc.Err()}
	}
	return w.build()
}

var errNotUTF8 = &Error{Reason: ReasonBadJSON, Detail: "not valid UTF-8"}

// member decodes the value of one member of the envelope, or with
// inPayload of its payload. Other keys are unknown fields, skipped.
func (p parser) member(key []byte, f jsonstr.Flags) bool {
	w := p.w
	if f&jsonstr.Escaped != 0 {
		key = jsonstr.AppendUnescaped(nil, key)
	}
	if p.inPayload {
		switch string(key) { // no allocation
		case "text":
			return p.stringField(&w.text)
		case "tool":
			return p.stringField(&w.tool)
		case "tool_call_id":
			return p.stringField(&w.toolCallID)
		case "chunk":
			return p.stringField(&w.chunk)
		case "message":
			return p.stringField(&w.message)
		}
		return p.Skip()
	}
	switch string(key) {
	case "v":
		return p.intField(&w.v)
	case "seq":
		return p.intField(&w.seq)
	case "kind":
		return p.stringField(&w.kind)
	case "status":
		return p.stringField(&w.status)
	case "streamKey":
		return p.stringField(&w.streamKey)
	case "parent":
		return p.stringField(&w.parent)
	case "payload":
		return p.payload()
	}
	return p.Skip()
}

// payload decodes the value of the "payload" key. A repeated key replaces
// the earlier payload entirely (the last one wins).
func (p parser) payload() bool {
	w := p.w
	w.text, w.tool, w.toolCallID, w.chunk, w.message = field{}, field{}, field{}, field{}, field{}
	switch c := p.Peek(); c {
	case '{':
		w.payload = field{state: present}
		in := p
		in.inPayload = true
		return p.Object(in.member)
	case 'n':
		w.payload = field{}
	default:
		w.payload = field{state: wrongType, got: jsonstr.TypeName(c)}
	}
	return p.Skip()
}

// stringField decodes a value that must be a JSON string; null is absent.
func (p parser) stringField(f *field) bool {
	switch c := p.Peek(); c {
	case '"':
		raw, fl, ok := p.String()
		*f = field{state: present, raw: raw, f: fl}
		return ok
	case 'n':
		*f = field{}
	default:
		*f = field{state: wrongType, got: jsonstr.TypeName(c)}
	}
	return p.Skip()
}

// intField decodes a value that must be a JSON number with an integral value
// within int64; null is absent.
func (p parser) intField(f *field) bool {
	c := p.Peek()
	if c != '-' && (c < '0' || c > '9') {
		if c == 'n' {
			*f = field{}
		} else {
			*f = field{state: wrongType, got: jsonstr.TypeName(c)}
		}
		return p.Skip()
	}
	num, ok := p.Number()
	if !ok {
		return false
	}
	n, state := exactInt(num)
	*f = field{n: n, state: state}
	return true
}

// intern returns the interned constant for the enum literals, and a copy of
// raw otherwise. The switch on string(raw) does not allocate.
func intern(raw []byte) string {
	switch string(raw) {
	case "thinking":
		return string(KindThinking)
	case "tool_call":
		return string(KindToolCall)
	case "tool_output_append":
		return string(KindToolOutputAppend)
	case "text":
		return string(KindText)
	case "error":
		return string(KindError)
	case "running":
		return string(StatusRunning)
	case "done":
		return string(StatusDone)
	case "aborted":
		return string(StatusAborted)
	}
	return string(raw)
}

// exactInt judges a syntactically valid JSON number by its exact decimal
// value: an integer within int64 is present (42, 42.0, 4.2e1, -0), anything
// else is notInteger (1.5, 1e-400) or outOfRange (2^63, 1e19; then the
// int64 is the bound on its side, MaxInt64 or MinInt64).
func exactInt(num []byte) (int64, uint8) {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	end := 0
	for end < len(num) && num[end] >= '0' && num[end] <= '9' {
		end++
	}
	ip := num[:end]
	var fp []byte
	rest := num[end:]
	if len(rest) > 0 && rest[0] == '.' {
		k := 1
		for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
			k++
		}
		fp, rest = rest[1:k], rest[k:]
	}
	exp := 0
	if len(rest) > 0 { // 'e' or 'E'
		rest = rest[1:]
		eneg := rest[0] == '-'
		if rest[0] == '-' || rest[0] == '+' {
			rest = rest[1:]
		}
		for _, c := range rest {
			if exp < 1e8 { // saturate: an envelope has at most 1 MiB of digits
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// The value is D × 10^(point−nd), where D is the digit string ip+fp of
	// length nd and point is where the decimal point falls in it.
	nd := len(ip) + len(fp)
	digit := func(k int) byte {
		if k < len(ip) {
			return ip[k] - '0'
		}
		return fp[k-len(ip)] - '0'
	}
	lead := 0
	for lead < nd && digit(lead) == 0 {
		lead++
	}
	if lead == nd {
		return 0, present // zero, whatever the sign and exponent
	}
	point := len(ip) + exp
	for k := max(point, lead); k < nd; k++ {
		if digit(k) != 0 {
			return 0, notInteger
		}
	}
	if point-lead > 19 { // int64 has at most 19 digits
		return saturate(neg), outOfRange
	}
	var u uint64 // 19 decimal digits always fit a uint64
	for k := lead; k < point; k++ {
		var d byte
		if k < nd {
			d = digit(k)
		}
		u = u*10 + uint64(d)
	}
	switch {
	case !neg && u <= 1<<63-1:
		return int64(u), present
	case neg && u <= 1<<63:
		return int64(-u), present // -(1<<63) wraps to itself, as wanted
	}
	return saturate(neg), outOfRange
}

// saturate is the int64 bound on the side of an out-of-range integer: its
// sign is all that build needs (a huge v is still a newer version).
func saturate(neg bool) int64 {
	if neg {
		return math.MinInt64
	}
	return math.MaxInt64
}

// build validates w and turns it into an Envelope. The version is judged
// first: it decides how everything else would be read.
func (w *decoded) build() (Envelope, bool, error) {
	switch w.v.state {
	case outOfRange:
		// An integer beyond int64 is still an integer: > 1 is a newer
		// version, as the spec says, and < 1 is no version at all.
		if w.v.n > 0 {
			return Envelope{}, false, &Error{Reason: ReasonUnsupportedVersion, Field: "v",
				Detail: "version beyond int64 is newer than 1"}
		}
		return Envelope{}, false, fieldError("v", "must be >= 1, got a negative integer beyond int64")
	case present:
		if w.v.n < 1 {
			return Envelope{}, false, fieldError("v", "must be >= 1, got "+strconv.FormatInt(w.v.n, 10))
		}
		if w.v.n > Version {
			return Envelope{}, false, &Error{Reason: ReasonUnsupportedVersion, Field: "v",
				Detail: "version " + strconv.FormatInt(w.v.n, 10) + " is newer than 1"}
		}
	default:
		return Envelope{}, false, intError("v", w.v)
	}
	if err := stringError("kind", w.kind, true); err != nil {
		return Envelope{}, false, err
	}
	kind := Kind(w.kind.text())
	if !kind.valid() {
		return Envelope{}, false, &Error{Reason: ReasonUnknownKind, Field: "kind", Detail: quote(string(kind)) + " is not a v1 kind"}
	}
	if err := stringError("streamKey", w.streamKey, false); err != nil {
		return Envelope{}, false, err
	}
	if w.seq.state != present {
		return Envelope{}, false, intError("seq", w.seq)
	}
	if err := stringError("parent", w.parent, false); err != nil {
		return Envelope{}, false, err
	}
	if err := stringError("status", w.status, true); err != nil {
		return Envelope{}, false, err
	}
	status := Status(w.status.text())
	if !status.Valid() {
		return Envelope{}, false, fieldError("status", quote(string(status))+" is not running, done or aborted")
	}
	switch w.payload.state {
	case absent:
		return Envelope{}, false, fieldError("payload", "required (an object)")
	case wrongType:
		return Envelope{}, false, fieldError("payload", "must be a JSON object, got "+w.payload.got)
	}
	switch kind {
	case KindThinking, KindText:
		materialize(&w.streamKey, &w.parent, &w.text)
	case KindError:
		materialize(&w.streamKey, &w.parent, &w.message)
	case KindToolCall:
		materialize(&w.streamKey, &w.parent, &w.tool, &w.toolCallID)
	case KindToolOutputAppend:
		// The chunk gets a buffer of its own: a consumer that caps output
		// (package merge) drops old chunks but keeps their keys, which
		// must not hold the chunk's bytes alive.
		materialize(&w.streamKey, &w.parent, &w.tool, &w.toolCallID)
		materialize(&w.chunk)
	}
	p, err := w.buildPayload(kind)
	if err != nil {
		return Envelope{}, false, err
	}
	e := Envelope{V: int(w.v.n), Kind: kind, StreamKey: w.streamKey.s, Seq: w.seq.n, Status: status, Payload: p, Parent: w.parent.s}
	if err := checkParent(e); err != nil {
		return Envelope{}, false, err
	}
	return e, len(w.chunk.s) > SoftChunkLimit, nil
}

func (w *decoded) buildPayload(k Kind) (Payload, error) {
	// Field names are whole literals: building "payload."+name on every
	// call cost three allocations per envelope.
	req := func(name string, f field) error {
		if f.state == absent {
			return fieldError(name, "required for kind "+string(k))
		}
		return stringError(name, f, true)
	}
	var p Payload
	var err error
	switch k {
	case KindThinking:
		err = req("payload.text", w.text)
		p = Thinking{Text: w.text.s}
	case KindText:
		err = req("payload.text", w.text)
		p = Text{Text: w.text.s}
	case KindError:
		err = req("payload.message", w.message)
		p = ErrorPayload{Message: w.message.s}
	case KindToolCall:
		if err = req("payload.tool", w.tool); err == nil {
			err = stringError("payload.tool_call_id", w.toolCallID, false)
		}
		p = ToolCall{Tool: w.tool.s, ToolCallID: w.toolCallID.s}
	case KindToolOutputAppend:
		if err = req("payload.tool", w.tool); err == nil {
			if err = req("payload.chunk", w.chunk); err == nil {
				err = stringError("payload.tool_call_id", w.toolCallID, false)
			}
		}
		p = ToolOutputAppend{Tool: w.tool.s, Chunk: w.chunk.s, ToolCallID: w.toolCallID.s}
	}
	if err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// stringError judges a field that must be a string (required or not).
func stringError(name string, f field, required bool) error {
	switch {
	case f.state == wrongType:
		return fieldError(name, "must be a JSON string, got "+f.got)
	case f.state == absent && required:
		return fieldError(name, "required")
	}
	return nil
}

func intError(name string, f field) error {
	switch f.state {
	case absent:
		return fieldError(name, "required")
	case notInteger:
		return fieldError(name, "must be an integer, got a fraction")
	case outOfRange:
		return fieldError(name, "out of int64 range")
	default:
		return fieldError(name, "must be a JSON number, got "+f.got)
	}
}
