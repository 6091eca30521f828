package envelope

import (
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// Parse decodes and validates one envelope given as its JSON text (the spec
// form of metadata["tfrs"]). The error is an [*Error].
func Parse(s string) (Envelope, error) {
	e, _, err := parseString(s)
	return e, err
}

// parseString avoids copying s: the decoder below never writes to its input
// and every string it returns is a fresh copy, so viewing s as bytes is safe.
func parseString(s string) (Envelope, bool, error) {
	return parseBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
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
// Syntax is checked over the whole input, unknown fields included, before any
// field is judged, so a syntax error anywhere is always ReasonBadJSON.
// Duplicate keys: the last one wins, as in encoding/json and JavaScript.
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
	esc   bool   // raw holds escapes
	n     int64
	state uint8
	got   string // the JSON type seen when state is wrongType
}

// text returns a string field's value, for the enum fields (kind, status):
// the interned constant, or a copy of an unknown value.
func (f *field) text() string {
	if f.esc {
		return unescape(f.raw)
	}
	return intern(f.raw)
}

// materialize gives the fields an Envelope keeps their values, all backed by
// one allocation: per envelope that is one object for the garbage
// collector to allocate and mark instead of one per string. Unescaped
// contents are never longer than their raw form, so the buffer never
// grows and every string stays valid.
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
	buf := make([]byte, 0, total)
	for _, f := range fs {
		if f.state != present || len(f.raw) == 0 {
			continue
		}
		start := len(buf)
		if f.esc {
			buf = jsonstr.AppendUnescaped(buf, f.raw)
		} else {
			buf = append(buf, f.raw...)
		}
		// buf's bytes before len(buf) are never written again.
		f.s = unsafe.String(&buf[start], len(buf)-start)
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
	b []byte
	i int
}

// syntaxError is what every malformed input yields.
func (p *parser) syntaxError(what string) *Error {
	return &Error{Reason: ReasonBadJSON, Detail: "invalid JSON at byte " + strconv.Itoa(p.i) + ": " + what}
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// parseBytes is the one decoder behind every read path. It returns the
// envelope, whether its chunk is over the soft limit, and an *Error.
func parseBytes(b []byte) (Envelope, bool, error) {
	if len(b) > MaxEnvelopeBytes {
		return Envelope{}, false, &Error{Reason: ReasonEnvelopeTooLarge,
			Detail: strconv.Itoa(len(b)) + " bytes is over the cap of " + strconv.Itoa(MaxEnvelopeBytes)}
	}
	if !utf8.Valid(b) {
		return Envelope{}, false, &Error{Reason: ReasonBadJSON, Detail: "not valid UTF-8"}
	}
	p := parser{b: b}
	p.ws()
	if p.peek() != '{' {
		return Envelope{}, false, &Error{Reason: ReasonBadJSON, Detail: "not a JSON object"}
	}
	var w decoded
	if err := p.object(&w, false); err != nil {
		return Envelope{}, false, err
	}
	p.ws()
	if p.i != len(p.b) {
		return Envelope{}, false, p.syntaxError("data after the envelope object")
	}
	return w.build()
}

// object decodes the object at p.i into w: the envelope's own fields, or
// with inPayload the payload's.
func (p *parser) object(w *decoded, inPayload bool) *Error {
	p.i++ // '{'
	p.ws()
	if p.peek() == '}' {
		p.i++
		return nil
	}
	for {
		if p.peek() != '"' {
			return p.syntaxError("want an object key")
		}
		raw, esc, err := p.str()
		if err != nil {
			return err
		}
		key := unsafe.String(unsafe.SliceData(raw), len(raw))
		if esc {
			key = unescape(raw)
		}
		p.ws()
		if p.peek() != ':' {
			return p.syntaxError("want ':' after an object key")
		}
		p.i++
		p.ws()
		if err := p.member(w, key, inPayload); err != nil {
			return err
		}
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
			p.ws()
		case '}':
			p.i++
			return nil
		default:
			return p.syntaxError("want ',' or '}' in an object")
		}
	}
}

// member decodes the value of one object member: a field of the envelope, or
// with inPayload of its payload. Other keys are unknown fields, skipped.
func (p *parser) member(w *decoded, key string, inPayload bool) *Error {
	if inPayload {
		switch key {
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
		return p.skip()
	}
	switch key {
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
		return p.payload(w)
	}
	return p.skip()
}

// payload decodes the value of the "payload" key. A repeated key replaces
// the earlier payload entirely (the last one wins).
func (p *parser) payload(w *decoded) *Error {
	w.text, w.tool, w.toolCallID, w.chunk, w.message = field{}, field{}, field{}, field{}, field{}
	switch c := p.peek(); c {
	case '{':
		w.payload = field{state: present}
		return p.object(w, true)
	case 'n':
		w.payload = field{}
	default:
		w.payload = field{state: wrongType, got: typeName(c)}
	}
	return p.skip()
}

// stringField decodes a value that must be a JSON string; null is absent.
func (p *parser) stringField(f *field) *Error {
	switch c := p.peek(); c {
	case '"':
		raw, esc, err := p.str()
		if err != nil {
			return err
		}
		*f = field{state: present, raw: raw, esc: esc}
		return nil
	case 'n':
		*f = field{}
	default:
		*f = field{state: wrongType, got: typeName(c)}
	}
	return p.skip()
}

// intField decodes a value that must be a JSON number with an integral value
// within int64; null is absent.
func (p *parser) intField(f *field) *Error {
	c := p.peek()
	if c != '-' && (c < '0' || c > '9') {
		if c == 'n' {
			*f = field{}
		} else {
			*f = field{state: wrongType, got: typeName(c)}
		}
		return p.skip()
	}
	start := p.i
	if err := p.number(); err != nil {
		return err
	}
	n, state := exactInt(p.b[start:p.i])
	*f = field{n: n, state: state}
	return nil
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

// str scans the JSON string at p.i and returns its raw contents (between the
// quotes) and whether they hold escapes.
func (p *parser) str() (raw []byte, esc bool, err *Error) {
	p.i++ // '"'
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			raw = p.b[start:p.i]
			p.i++
			return raw, esc, nil
		case c == '\\':
			esc = true
			p.i++
			switch p.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				p.i++
				for k := 0; k < 4; k++ {
					if !isHex(p.peek()) {
						return nil, false, p.syntaxError(`bad \u escape`)
					}
					p.i++
				}
			default:
				return nil, false, p.syntaxError("bad escape")
			}
		case c < 0x20:
			return nil, false, p.syntaxError("control character in a string")
		default:
			p.i++
		}
	}
	return nil, false, p.syntaxError("unterminated string")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unescape decodes the raw contents of a JSON string already checked by str.
// Like encoding/json, a lone or mismatched UTF-16 surrogate becomes U+FFFD.
func unescape(raw []byte) string {
	buf := jsonstr.AppendUnescaped(make([]byte, 0, len(raw)), raw)
	// buf is never touched again, so it can become the string without a copy.
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// number scans the JSON number at p.i.
func (p *parser) number() *Error {
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case '1' <= c && c <= '9':
		p.digits()
	default:
		return p.syntaxError("bad number")
	}
	if p.peek() == '.' {
		p.i++
		if n := p.digits(); n == 0 {
			return p.syntaxError("bad number")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if n := p.digits(); n == 0 {
			return p.syntaxError("bad number")
		}
	}
	return nil
}

func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
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

// skip scans and discards the JSON value at p.i. It is iterative, so deep
// nesting in an unknown field cannot exhaust the stack.
func (p *parser) skip() *Error {
	var small [16]byte
	stack := small[:0] // open containers, '{' or '['
	for {
		// A value.
		switch c := p.peek(); {
		case c == '{' || c == '[':
			p.i++
			p.ws()
			if (c == '{' && p.peek() == '}') || (c == '[' && p.peek() == ']') {
				p.i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if err := p.key(); err != nil {
					return err
				}
			}
			p.ws()
			continue
		case c == '"':
			if _, _, err := p.str(); err != nil {
				return err
			}
		case c == '-' || ('0' <= c && c <= '9'):
			if err := p.number(); err != nil {
				return err
			}
		case c == 't':
			if err := p.literal("true"); err != nil {
				return err
			}
		case c == 'f':
			if err := p.literal("false"); err != nil {
				return err
			}
		case c == 'n':
			if err := p.literal("null"); err != nil {
				return err
			}
		default:
			return p.syntaxError("want a value")
		}
		// After a value: close containers until one continues.
		for {
			if len(stack) == 0 {
				return nil
			}
			p.ws()
			top := stack[len(stack)-1]
			c := p.peek()
			if c == ',' {
				p.i++
				p.ws()
				if top == '{' {
					if err := p.key(); err != nil {
						return err
					}
					p.ws()
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				p.i++
				stack = stack[:len(stack)-1]
				continue
			}
			return p.syntaxError("want ',' or the end of a container")
		}
	}
}

// key scans an object key and its colon.
func (p *parser) key() *Error {
	if p.peek() != '"' {
		return p.syntaxError("want an object key")
	}
	if _, _, err := p.str(); err != nil {
		return err
	}
	p.ws()
	if p.peek() != ':' {
		return p.syntaxError("want ':' after an object key")
	}
	p.i++
	return nil
}

func (p *parser) literal(lit string) *Error {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		return p.syntaxError("bad literal")
	}
	p.i += len(lit)
	return nil
}

func typeName(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return "number" // '-', digits; anything else fails in skip
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
