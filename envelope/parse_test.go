package envelope

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sentinels maps each reason to the error value errors.Is must match: the
// reason itself.
var sentinels = map[Reason]error{
	ReasonNoEnvelope:         ReasonNoEnvelope,
	ReasonBadJSON:            ReasonBadJSON,
	ReasonUnsupportedVersion: ReasonUnsupportedVersion,
	ReasonUnknownKind:        ReasonUnknownKind,
	ReasonBadField:           ReasonBadField,
	ReasonChunkTooLarge:      ReasonChunkTooLarge,
	ReasonEnvelopeTooLarge:   ReasonEnvelopeTooLarge,
	ReasonExtraEnvelope:      ReasonExtraEnvelope,
}

// textEnv is a valid text envelope around the given members, for cases that
// vary one field.
func textEnv(members string) string {
	return `{"v":1,"kind":"text","status":"running","payload":{"text":"hi"},` + members + `}`
}

func chunkEnv(n int) string {
	return `{"v":1,"kind":"tool_output_append","seq":1,"status":"running","payload":{"tool":"sh","chunk":"` +
		strings.Repeat("x", n) + `"}}`
}

func chunkOf(n int) Envelope {
	return Envelope{V: 1, Kind: KindToolOutputAppend, Seq: 1, Status: StatusRunning,
		Payload: ToolOutputAppend{Tool: "sh", Chunk: strings.Repeat("x", n)}}
}

func textSeq(seq int64) Envelope {
	return Envelope{V: 1, Kind: KindText, Seq: seq, Status: StatusRunning, Payload: Text{Text: "hi"}}
}

type parseCase struct {
	name string
	in   string
	// For a valid envelope:
	want     Envelope
	wantSoft bool
	// For a rejected one:
	reason Reason
	field  string
	// lossy marks cases that do not survive json.Unmarshal into a
	// map[string]any (numbers become float64, invalid UTF-8 becomes U+FFFD),
	// so the object form cannot mirror them.
	lossy bool
}

var parseCases = []parseCase{
	// Valid envelopes, one per kind.
	{name: "tool_call", in: `{"v":1,"kind":"tool_call","streamKey":"call-7","seq":42,"status":"running","payload":{"tool":"ask_colleague","tool_call_id":"call-7"}}`,
		want: Envelope{V: 1, Kind: KindToolCall, StreamKey: "call-7", Seq: 42, Status: StatusRunning, Payload: ToolCall{Tool: "ask_colleague", ToolCallID: "call-7"}}},
	{name: "tool_call without tool_call_id", in: `{"v":1,"kind":"tool_call","seq":1,"status":"done","payload":{"tool":"t"}}`,
		want: Envelope{V: 1, Kind: KindToolCall, Seq: 1, Status: StatusDone, Payload: ToolCall{Tool: "t"}}},
	{name: "tool_call_id null", in: `{"v":1,"kind":"tool_call","seq":1,"status":"aborted","payload":{"tool":"t","tool_call_id":null}}`,
		want: Envelope{V: 1, Kind: KindToolCall, Seq: 1, Status: StatusAborted, Payload: ToolCall{Tool: "t"}}},
	{name: "thinking", in: `{"v":1,"kind":"thinking","seq":2,"status":"running","payload":{"text":"hmm"}}`,
		want: Envelope{V: 1, Kind: KindThinking, Seq: 2, Status: StatusRunning, Payload: Thinking{Text: "hmm"}}},
	{name: "text", in: textEnv(`"seq":3`), want: textSeq(3)},
	{name: "error", in: `{"v":1,"kind":"error","seq":4,"status":"running","payload":{"message":"boom"}}`,
		want: Envelope{V: 1, Kind: KindError, Seq: 4, Status: StatusRunning, Payload: ErrorPayload{Message: "boom"}}},
	{name: "tool_output_append", in: `{"v":1,"kind":"tool_output_append","streamKey":"c","seq":5,"status":"running","payload":{"tool":"sh","chunk":"line\n","tool_call_id":"c"}}`,
		want: Envelope{V: 1, Kind: KindToolOutputAppend, StreamKey: "c", Seq: 5, Status: StatusRunning, Payload: ToolOutputAppend{Tool: "sh", Chunk: "line\n", ToolCallID: "c"}}},
	{name: "empty text", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":""}}`,
		want: Envelope{V: 1, Kind: KindText, Seq: 1, Status: StatusRunning, Payload: Text{}}},
	{name: "whitespace everywhere", in: " \n{ \"v\" : 1 ,\t\"kind\" :\"text\", \"seq\":3,\r\n\"status\":\"running\",\"payload\" : { \"text\" : \"hi\" } } \n",
		want: textSeq(3)},
	{name: "escapes and unicode", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"\"q\" \\ \/ \b\f\n\r\t \u00e9 é 日本 \ud83d\ude00 😀 \u2028"}}`,
		want: Envelope{V: 1, Kind: KindText, Seq: 1, Status: StatusRunning, Payload: Text{Text: "\"q\" \\ / \b\f\n\r\t é é 日本 😀 😀 \u2028"}}},
	{name: "lone surrogate becomes U+FFFD", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"a\ud83db\udc00"}}`,
		want: Envelope{V: 1, Kind: KindText, Seq: 1, Status: StatusRunning, Payload: Text{Text: "a\uFFFDb\uFFFD"}}},
	{name: "escaped key", in: `{"v":1,"kind":"text","\u0073eq":7,"status":"running","payload":{"text":"hi"}}`, want: textSeq(7)},
	{name: "escaped enum values", in: `{"v":1,"kind":"t\u0065xt","seq":7,"status":"runnin\u0067","payload":{"text":"hi"}}`, want: textSeq(7)},

	// v
	{name: "v missing", in: `{"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},
	{name: "v null", in: `{"v":null,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},
	{name: "v=0", in: `{"v":0,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},
	{name: "v=-1", in: `{"v":-1,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},
	{name: "v=2", in: `{"v":2,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonUnsupportedVersion, field: "v"},
	{name: "v beyond int64 is a newer version", in: `{"v":1e20,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonUnsupportedVersion, field: "v"},
	{name: "v below int64 is no version", in: `{"v":-99999999999999999999,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},
	{name: "v=2 is judged before the rest", in: `{"v":2,"kind":"hologram","seq":"x","payload":[]}`, reason: ReasonUnsupportedVersion, field: "v"},
	{name: `v="1"`, in: `{"v":"1","kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},
	{name: "v=1.5", in: `{"v":1.5,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},
	{name: "v=1.0 is 1", in: `{"v":1.0,"kind":"text","seq":3,"status":"running","payload":{"text":"hi"}}`, want: textSeq(3)},
	{name: "v=true", in: `{"v":true,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "v"},

	// seq
	{name: "seq missing", in: textEnv(`"x":1`), reason: ReasonBadField, field: "seq"},
	{name: "seq null", in: textEnv(`"seq":null`), reason: ReasonBadField, field: "seq"},
	{name: "seq 1.5", in: textEnv(`"seq":1.5`), reason: ReasonBadField, field: "seq"},
	{name: `seq "3"`, in: textEnv(`"seq":"3"`), reason: ReasonBadField, field: "seq"},
	{name: "seq true", in: textEnv(`"seq":true`), reason: ReasonBadField, field: "seq"},
	{name: "seq object", in: textEnv(`"seq":{"n":1}`), reason: ReasonBadField, field: "seq"},
	{name: "seq 2^63", in: textEnv(`"seq":9223372036854775808`), reason: ReasonBadField, field: "seq"},
	{name: "seq -2^63-1", in: textEnv(`"seq":-9223372036854775809`), reason: ReasonBadField, field: "seq"},
	{name: "seq 1e19", in: textEnv(`"seq":1e19`), reason: ReasonBadField, field: "seq"},
	{name: "seq 1e400", in: textEnv(`"seq":1e400`), reason: ReasonBadField, field: "seq"},
	{name: "seq 1e-400 is not an integer", in: textEnv(`"seq":1e-400`), reason: ReasonBadField, field: "seq", lossy: true},
	{name: "seq 42 plus a tiny fraction", in: textEnv(`"seq":42.0000000000000000001`), reason: ReasonBadField, field: "seq", lossy: true},
	{name: "seq negative is valid", in: textEnv(`"seq":-5`), want: textSeq(-5)},
	{name: "seq 0", in: textEnv(`"seq":0`), want: textSeq(0)},
	{name: "seq -0", in: textEnv(`"seq":-0`), want: textSeq(0)},
	{name: "seq 42.0 is 42", in: textEnv(`"seq":42.0`), want: textSeq(42)},
	{name: "seq 4.2e1 is 42", in: textEnv(`"seq":4.2e1`), want: textSeq(42)},
	{name: "seq 420E-1 is 42", in: textEnv(`"seq":420E-1`), want: textSeq(42)},
	{name: "seq 0.42e+2 is 42", in: textEnv(`"seq":0.42e+2`), want: textSeq(42)},
	{name: "seq 0e999999999999 is 0", in: textEnv(`"seq":0e999999999999`), want: textSeq(0)},
	{name: "seq max int64", in: textEnv(`"seq":9223372036854775807`), want: textSeq(math.MaxInt64), lossy: true},
	{name: "seq min int64", in: textEnv(`"seq":-9223372036854775808`), want: textSeq(math.MinInt64), lossy: true},
	{name: "seq max int64 as a fraction", in: textEnv(`"seq":9223372036854775807.000`), want: textSeq(math.MaxInt64), lossy: true},
	{name: "seq 2^53+1 exactly", in: textEnv(`"seq":9007199254740993.0`), want: textSeq(1<<53 + 1), lossy: true},
	{name: "seq duplicate, the last wins", in: textEnv(`"seq":1,"seq":2`), want: textSeq(2)},

	// Keys match exactly: encoding/json would read all of these as seq.
	{name: "SEQ is not seq", in: textEnv(`"SEQ":3`), reason: ReasonBadField, field: "seq"},
	{name: "Seq after seq is an unknown field", in: textEnv(`"seq":1,"Seq":5`), want: textSeq(1)},
	{name: "long s (U+017F) is not s", in: textEnv(`"ſeq":3`), reason: ReasonBadField, field: "seq"},
	{name: "Kind is not kind", in: `{"v":1,"Kind":"text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "kind"},
	{name: "payload Text is not text", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{"Text":"hi"}}`, reason: ReasonBadField, field: "payload.text"},

	// kind
	{name: "kind missing", in: `{"v":1,"seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "kind"},
	{name: "kind unknown", in: `{"v":1,"kind":"hologram","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonUnknownKind, field: "kind"},
	{name: "kind wrong case", in: `{"v":1,"kind":"Text","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonUnknownKind, field: "kind"},
	{name: "kind empty", in: `{"v":1,"kind":"","seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonUnknownKind, field: "kind"},
	{name: "kind a number", in: `{"v":1,"kind":3,"seq":1,"status":"running","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "kind"},

	// status
	{name: "status missing", in: `{"v":1,"kind":"text","seq":1,"payload":{"text":"hi"}}`, reason: ReasonBadField, field: "status"},
	{name: "status unknown", in: `{"v":1,"kind":"text","seq":1,"status":"paused","payload":{"text":"hi"}}`, reason: ReasonBadField, field: "status"},
	{name: "status a bool", in: `{"v":1,"kind":"text","seq":1,"status":true,"payload":{"text":"hi"}}`, reason: ReasonBadField, field: "status"},

	// streamKey
	{name: "streamKey empty is the default stream", in: textEnv(`"seq":3,"streamKey":""`), want: textSeq(3)},
	{name: "streamKey null is the default stream", in: textEnv(`"seq":3,"streamKey":null`), want: textSeq(3)},
	{name: "streamKey a number", in: textEnv(`"seq":3,"streamKey":7`), reason: ReasonBadField, field: "streamKey"},

	// payload
	{name: "payload missing", in: `{"v":1,"kind":"text","seq":1,"status":"running"}`, reason: ReasonBadField, field: "payload"},
	{name: "payload null", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":null}`, reason: ReasonBadField, field: "payload"},
	{name: "payload an array", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":[{"text":"hi"}]}`, reason: ReasonBadField, field: "payload"},
	{name: "payload a string", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":"{\"text\":\"hi\"}"}`, reason: ReasonBadField, field: "payload"},
	{name: "payload a number", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":1}`, reason: ReasonBadField, field: "payload"},
	{name: "payload replaced by a later null", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"},"payload":null}`, reason: ReasonBadField, field: "payload"},
	{name: "payload empty object", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{}}`, reason: ReasonBadField, field: "payload.text"},
	{name: "tool_call without tool", in: `{"v":1,"kind":"tool_call","seq":1,"status":"running","payload":{"tool_call_id":"c"}}`, reason: ReasonBadField, field: "payload.tool"},
	{name: "tool_call with empty tool", in: `{"v":1,"kind":"tool_call","seq":1,"status":"running","payload":{"tool":""}}`, reason: ReasonBadField, field: "payload.tool"},
	{name: "tool_call tool a number", in: `{"v":1,"kind":"tool_call","seq":1,"status":"running","payload":{"tool":5}}`, reason: ReasonBadField, field: "payload.tool"},
	{name: "tool_call tool_call_id a number", in: `{"v":1,"kind":"tool_call","seq":1,"status":"running","payload":{"tool":"t","tool_call_id":5}}`, reason: ReasonBadField, field: "payload.tool_call_id"},
	{name: "text payload text an object", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":{}}}`, reason: ReasonBadField, field: "payload.text"},
	{name: "thinking without text", in: `{"v":1,"kind":"thinking","seq":1,"status":"running","payload":{"message":"x"}}`, reason: ReasonBadField, field: "payload.text"},
	{name: "error without message", in: `{"v":1,"kind":"error","seq":1,"status":"running","payload":{"text":"x"}}`, reason: ReasonBadField, field: "payload.message"},
	{name: "error message a bool", in: `{"v":1,"kind":"error","seq":1,"status":"running","payload":{"message":false}}`, reason: ReasonBadField, field: "payload.message"},
	{name: "tool_output_append without chunk", in: `{"v":1,"kind":"tool_output_append","seq":1,"status":"running","payload":{"tool":"sh"}}`, reason: ReasonBadField, field: "payload.chunk"},
	{name: "tool_output_append chunk an array", in: `{"v":1,"kind":"tool_output_append","seq":1,"status":"running","payload":{"tool":"sh","chunk":["a"]}}`, reason: ReasonBadField, field: "payload.chunk"},
	{name: "tool_output_append without tool", in: `{"v":1,"kind":"tool_output_append","seq":1,"status":"running","payload":{"chunk":"a"}}`, reason: ReasonBadField, field: "payload.tool"},

	// Forward compatibility.
	{name: "unknown fields ignored", in: `{"v":1,"trace":{"id":[1,2,{"x":null}],"deep":[[[]]]},"kind":"text","seq":3,"status":"running","payload":{"text":"hi","lang":"en","extra":{"a":[true,false,-1.5e3]}},"zz":"\u00e9"}`,
		want: textSeq(3)},
	{name: "fields of other kinds in the payload ignored", in: `{"v":1,"kind":"text","seq":3,"status":"running","payload":{"text":"hi","tool":5,"chunk":null}}`,
		want: textSeq(3)},

	// Bad JSON.
	{name: "empty", in: ``, reason: ReasonBadJSON},
	{name: "only spaces", in: "  \n", reason: ReasonBadJSON},
	{name: "a number", in: `5`, reason: ReasonBadJSON},
	{name: "an array", in: `[{"v":1}]`, reason: ReasonBadJSON},
	{name: "a JSON string", in: `"{\"v\":1}"`, reason: ReasonBadJSON},
	{name: "null", in: `null`, reason: ReasonBadJSON},
	{name: "truncated", in: `{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"hi"`, reason: ReasonBadJSON},
	{name: "trailing comma", in: textEnv(`"seq":1,`), reason: ReasonBadJSON},
	{name: "trailing data", in: textEnv(`"seq":1`) + `{}`, reason: ReasonBadJSON},
	{name: "single quotes", in: `{'v':1}`, reason: ReasonBadJSON},
	{name: "unquoted key", in: `{v:1}`, reason: ReasonBadJSON},
	{name: "NaN", in: textEnv(`"seq":NaN`), reason: ReasonBadJSON},
	{name: "leading zero", in: textEnv(`"seq":01`), reason: ReasonBadJSON},
	{name: "leading plus", in: textEnv(`"seq":+1`), reason: ReasonBadJSON},
	{name: "bare dot", in: textEnv(`"seq":1.`), reason: ReasonBadJSON},
	{name: "bare exponent", in: textEnv(`"seq":1e`), reason: ReasonBadJSON},
	{name: "bad escape", in: textEnv(`"seq":1,"x":"\x41"`), reason: ReasonBadJSON},
	{name: "short unicode escape", in: textEnv(`"seq":1,"x":"\u12"`), reason: ReasonBadJSON},
	{name: "control character in a string", in: textEnv("\"seq\":1,\"x\":\"a\tb\""), reason: ReasonBadJSON},
	{name: "syntax error in an unknown field", in: textEnv(`"seq":1,"x":[1,,2]`), reason: ReasonBadJSON},
	{name: "bad literal in an unknown field", in: textEnv(`"seq":1,"x":tru`), reason: ReasonBadJSON},
	{name: "unclosed unknown object", in: `{"v":1,"x":{"a":1`, reason: ReasonBadJSON},
	{name: "mismatched brackets", in: textEnv(`"seq":1,"x":[1}`), reason: ReasonBadJSON},
	{name: "syntax error beats v=2", in: `{"v":2,"x":}`, reason: ReasonBadJSON},
	{name: "invalid UTF-8 in a string", in: "{\"v\":1,\"kind\":\"text\",\"seq\":1,\"status\":\"running\",\"payload\":{\"text\":\"\xff\xfe\"}}", reason: ReasonBadJSON, lossy: true},
	{name: "invalid UTF-8 in an unknown key", in: textEnv("\"seq\":1,\"\xc3\":1"), reason: ReasonBadJSON, lossy: true},
	{name: "deeply nested unknown field", in: textEnv(`"seq":1,"x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000)), want: textSeq(1)},

	// The nesting extension (PROTOCOL.md §10): parent.
	{name: "parent on a nested tool call", in: `{"v":1,"kind":"tool_call","streamKey":"fw:call-7:c1","seq":9,"status":"running","parent":"call-7","payload":{"tool":"search","tool_call_id":"c1"}}`,
		want: Envelope{V: 1, Kind: KindToolCall, StreamKey: "fw:call-7:c1", Seq: 9, Status: StatusRunning, Parent: "call-7", Payload: ToolCall{Tool: "search", ToolCallID: "c1"}}},
	{name: "parent on a default-stream text", in: textEnv(`"seq":3,"parent":"call-7"`),
		want: Envelope{V: 1, Kind: KindText, Seq: 3, Status: StatusRunning, Parent: "call-7", Payload: Text{Text: "hi"}}},
	{name: "parent with escapes", in: textEnv(`"seq":3,"parent":"c\u0061ll"`),
		want: Envelope{V: 1, Kind: KindText, Seq: 3, Status: StatusRunning, Parent: "call", Payload: Text{Text: "hi"}}},
	{name: "parent null is absent", in: textEnv(`"seq":3,"parent":null`), want: textSeq(3)},
	{name: "parent empty is top level", in: textEnv(`"seq":3,"parent":""`), want: textSeq(3)},
	{name: "parent not a string", in: textEnv(`"seq":3,"parent":7`), reason: ReasonBadField, field: "parent"},
	{name: "parent an object", in: textEnv(`"seq":3,"parent":{"key":"call-7"}`), reason: ReasonBadField, field: "parent"},
	{name: "parent is its own streamKey", in: `{"v":1,"kind":"tool_call","streamKey":"c1","seq":9,"status":"running","parent":"c1","payload":{"tool":"search"}}`,
		reason: ReasonBadField, field: "parent"},
	{name: "parent is its own tool_call_id", in: `{"v":1,"kind":"tool_output_append","seq":9,"status":"running","parent":"c1","payload":{"tool":"sh","chunk":"x","tool_call_id":"c1"}}`,
		reason: ReasonBadField, field: "parent"},
	{name: "Parent is an unknown field", in: textEnv(`"seq":3,"Parent":7`), want: textSeq(3)},

	// Sizes.
	{name: "chunk 64 KiB+1 is dropped", in: chunkEnv(HardChunkLimit + 1), reason: ReasonChunkTooLarge, field: "payload.chunk"},
	{name: "chunk of exactly 64 KiB is accepted, over soft", in: chunkEnv(HardChunkLimit), want: chunkOf(HardChunkLimit), wantSoft: true},
	{name: "chunk 8 KiB+1 is accepted and flagged", in: chunkEnv(SoftChunkLimit + 1), want: chunkOf(SoftChunkLimit + 1), wantSoft: true},
	{name: "chunk of exactly 8 KiB is not flagged", in: chunkEnv(SoftChunkLimit), want: chunkOf(SoftChunkLimit)},
	{name: "chunk limit counts decoded bytes", in: `{"v":1,"kind":"tool_output_append","seq":1,"status":"running","payload":{"tool":"sh","chunk":"` +
		strings.Repeat(`\u0078`, HardChunkLimit) + `"}}`, want: chunkOf(HardChunkLimit), wantSoft: true},
	{name: "envelope over MaxEnvelopeBytes", in: textEnv(`"seq":1,"pad":"` + strings.Repeat("x", MaxEnvelopeBytes) + `"`), reason: ReasonEnvelopeTooLarge},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got, soft, err := parseString(tc.in)
			checkResult(t, tc, got, soft, err)
			// UnmarshalJSON reads bytes, Parse a string: one decoder, one
			// outcome.
			var got2 Envelope
			err2 := got2.UnmarshalJSON([]byte(tc.in))
			if diff := cmp.Diff(got, got2); diff != "" || ReasonOf(err) != ReasonOf(err2) {
				t.Errorf("UnmarshalJSON differs from Parse (-Parse +UnmarshalJSON):\n%s%v", diff, err2)
			}
		})
	}
}

// checkResult asserts an outcome of reading against a case.
func checkResult(t *testing.T, tc parseCase, got Envelope, soft bool, err error) {
	t.Helper()
	if tc.reason == ReasonNone {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("envelope (-want +got):\n%s", diff)
		}
		if soft != tc.wantSoft {
			t.Errorf("over soft limit = %v, want %v", soft, tc.wantSoft)
		}
		return
	}
	checkError(t, err, tc.reason, tc.field)
	if diff := cmp.Diff(Envelope{}, got); diff != "" {
		t.Errorf("a rejected envelope must be the zero value (-want +got):\n%s", diff)
	}
}

// checkError asserts the reason, the field, the sentinel and the message of
// an error.
func checkError(t *testing.T, err error, reason Reason, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", reason)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Reason != reason {
		t.Errorf("Reason = %q, want %q (%v)", e.Reason, reason, err)
	}
	if ReasonOf(err) != reason {
		t.Errorf("ReasonOf = %q, want %q", ReasonOf(err), reason)
	}
	if e.Field != field {
		t.Errorf("Field = %q, want %q (%v)", e.Field, field, err)
	}
	if !errors.Is(err, sentinels[reason]) {
		t.Errorf("errors.Is(%v, sentinel of %s) = false", err, reason)
	}
	for r, s := range sentinels {
		if r != reason && errors.Is(err, s) {
			t.Errorf("errors.Is(%v, sentinel of %s) = true, want only %s", err, r, reason)
		}
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "envelope: ") || !strings.Contains(msg, string(reason)) {
		t.Errorf("Error() = %q, want the prefix and the reason %q", msg, reason)
	}
	if field != "" && !strings.Contains(msg, field+": ") {
		t.Errorf("Error() = %q, want it to name the field %q", msg, field)
	}
	if len(msg) > 400 {
		t.Errorf("Error() is %d bytes long; it must not echo the input", len(msg))
	}
}

func TestErrorString(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a reason", ReasonBadJSON, "bad_json"},
		{"field and detail", fieldError("seq", "must be an integer, got a fraction"), "envelope: seq: must be an integer, got a fraction (bad_field)"},
		{"wrapped", &Error{Reason: ReasonBadJSON, Err: errors.New("eof")}, "envelope: bad_json: eof"},
		{"detail and wrapped", &Error{Reason: ReasonBadJSON, Detail: "object form cannot be encoded", Err: errors.New("x")}, "envelope: object form cannot be encoded: x (bad_json)"},
		{"a long value is cut on a rune boundary", func() *Error {
			_, err := Parse(`{"v":1,"kind":"` + strings.Repeat("a", 63) + `é"}`)
			return err.(*Error)
		}(),
			`envelope: kind: "` + strings.Repeat("a", 63) + `…" is not a v1 kind (unknown_kind)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("Error() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorIs(t *testing.T) {
	inner := errors.New("inner")
	err := &Error{Reason: ReasonBadJSON, Detail: "d", Err: inner}
	if !errors.Is(err, ReasonBadJSON) || !errors.Is(err, inner) {
		t.Errorf("errors.Is must match the reason and the wrapped error")
	}
	// A detailed error is not a sentinel: it must not match another detailed one.
	if errors.Is(fieldError("seq", "x"), fieldError("seq", "x")) {
		t.Errorf("two detailed errors must not match each other")
	}
	if got := ReasonOf(errors.Join(errors.New("x"), err)); got != ReasonBadJSON {
		t.Errorf("ReasonOf(errors.Join) = %q, want bad_json", got)
	}
	if got := ReasonOf(wrapErr{err}); got != ReasonBadJSON {
		t.Errorf("ReasonOf(wrapped) = %q, want bad_json", got)
	}
	if got := ReasonOf(errors.New("plain")); got != ReasonNone {
		t.Errorf("ReasonOf(plain) = %q, want none", got)
	}
}

type wrapErr struct{ err error }

func (w wrapErr) Error() string { return "wrapped: " + w.err.Error() }
func (w wrapErr) Unwrap() error { return w.err }

func TestUnmarshalJSON(t *testing.T) {
	var e Envelope
	if err := e.UnmarshalJSON([]byte(parseCases[0].in)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(parseCases[0].want, e); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	err := e.UnmarshalJSON([]byte(`{"v":2}`))
	checkError(t, err, ReasonUnsupportedVersion, "v")
	if diff := cmp.Diff(parseCases[0].want, e); diff != "" {
		t.Errorf("a failed UnmarshalJSON must leave the envelope alone (-want +got):\n%s", diff)
	}
}
