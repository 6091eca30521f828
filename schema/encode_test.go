package schema

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
)

// The oracle: the encoder as it was before it appended (encoding/json of
// the wire structs, the payload marshalled then compacted into them, the at
// by time.Format). The append encoder must write exactly its bytes.

type oracleBlockOpJSON struct {
	opHeadJSON
	blockJSON
}

func oracleFormatAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	switch {
	case t.Year() < 0:
		t = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	case t.Year() > 9999:
		t = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	}
	return t.Format(atLayout)
}

func oracleBlockJSON(b Block) (*blockJSON, error) {
	p, err := json.Marshal(b.Payload)
	if err != nil {
		return nil, err
	}
	w := &blockJSON{StreamKey: b.Key.StreamKey, Seq: b.Key.Seq, ID: b.Key.ID, Kind: b.Kind, Status: b.Status,
		Payload: p, Source: b.Source, Reason: b.Reason, OverSoftLimit: b.OverSoftLimit, Parent: b.Parent, Truncated: b.Truncated,
		Ordinal: b.Ordinal, At: oracleFormatAt(b.At)}
	if b.Anchored {
		w.After = &b.After
	}
	return w, nil
}

func oracleOp(o Op) ([]byte, error) {
	h := opHeadJSON{Type: o.Type, Task: o.Task, Turn: o.Turn}
	switch o.Type {
	case OpBlock:
		b := o.Block
		if !o.At.IsZero() {
			b.At = o.At
		}
		w, err := oracleBlockJSON(b)
		if err != nil {
			return nil, err
		}
		return json.Marshal(oracleBlockOpJSON{h, *w})
	case OpResult:
		return json.Marshal(resultOpJSON{h, *o.Result})
	}
	return json.Marshal(h)
}

func oracleBlock(b Block) ([]byte, error) {
	w, err := oracleBlockJSON(b)
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// hostile are strings that each escaping rule of encoding/json meets.
var hostile = []string{
	"", "plain", "working…", "quote\" back\\slash /",
	"\x00\x01\x07\x08\x09\x0a\x0b\x0c\x0d\x1b\x1f\x7f", "ESC[31m\x1b[31mred\x1b[0m",
	"<script>alert(1)</script> & &amp;", "line\u2028sep\u2029para", "\u2027\u202a",
	"bad\xffutf8\xc3", "\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 beyond", "trunc\xe2\x82",
	"\ufffd replacement", "emoji 🙂 \U0010ffff", "ſeq K\u212a", "\u0085 nel \u00a0 nbsp",
	string(make([]byte, 70)),
}

// differentialOps are ops of every type, kind, source and optional field,
// each with every hostile string in each string field.
func differentialOps() []Op {
	at := time.Date(2026, 12, 1, 10, 0, 0, 250_000_000, time.FixedZone("CET", 3600))
	base := []Op{
		{Type: OpSeal, Task: "t1", Turn: "m1"},
		{Type: OpSeal},
		{Type: "unknown", Task: "t", Turn: "u"},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{StreamKey: "c1", Seq: 42}, Kind: envelope.KindToolCall,
			Status: envelope.StatusRunning, Payload: envelope.ToolCall{Tool: "search", ToolCallID: "c1"}, Source: SourceEnvelope, At: at}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{StreamKey: "c1", Seq: math.MinInt64}, Kind: envelope.KindToolCall,
			Status: envelope.StatusDone, Payload: envelope.ToolCall{Tool: "search"}, Source: SourceEnvelope, Parent: "p0"}},
		{Type: OpBlock, Task: "t1", Turn: "m1", At: at.Add(time.Nanosecond), Block: Block{Key: Key{StreamKey: "c1", Seq: math.MaxInt64},
			Kind: envelope.KindToolOutputAppend, Status: envelope.StatusDone, Payload: chunk("grep", "a\n"), Source: SourceEnvelope,
			OverSoftLimit: true, Truncated: math.MaxInt64, At: at}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{StreamKey: "c1", Seq: 3}, Kind: envelope.KindToolOutputAppend,
			Status: envelope.StatusRunning, Payload: &envelope.ToolOutputAppend{Tool: "t", Chunk: "c", ToolCallID: "id"}, Source: SourceEnvelope}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{Seq: 1}, Kind: envelope.KindThinking,
			Status: envelope.StatusRunning, Payload: think("hm"), Source: SourceEnvelope, Truncated: -1}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{ID: "msg:m7"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
			Payload: text("working"), Source: SourceFallback, Reason: envelope.ReasonNoEnvelope, Anchored: true, After: 0, Ordinal: 1,
			At: time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{ID: "msg:m8"}, Kind: envelope.KindText, Status: envelope.StatusRunning,
			Payload: &envelope.Text{Text: "ptr"}, Source: SourceFallback, Reason: envelope.ReasonBadJSON, After: 7, Ordinal: math.MinInt64,
			At: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Key: Key{StreamKey: "ri:b1:call-9", Seq: 2, ID: "ri:b1:call-9:2"}, Kind: envelope.KindError,
			Status: envelope.StatusDone, Payload: envelope.ErrorPayload{Message: "boom"}, Source: SourceProjection, Anchored: true,
			After: -42, Ordinal: 2, At: time.Unix(0, 1)}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Kind: envelope.KindError, Payload: &envelope.ErrorPayload{Message: "p"}}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Kind: envelope.KindThinking, Payload: &envelope.Thinking{Text: "p"}}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Kind: envelope.KindToolCall, Payload: &envelope.ToolCall{Tool: "p"}}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Kind: envelope.KindText, Payload: (*envelope.Text)(nil)}},
		{Type: OpBlock, Task: "t1", Turn: "m1", Block: Block{Kind: envelope.KindText, Payload: embeddedText{envelope.Text{Text: "<e>"}, 7}}},
		{Type: OpBlock}, // nothing set: a nil payload
		{Type: OpResult, Task: "t1", Turn: "m1", Result: &Result{State: "TASK_STATE_COMPLETED", Verdict: VerdictCompleted, Reply: "done",
			Counters: Counters{Applied: 3, Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 1}}}},
	}
	var ops []Op
	for _, o := range base {
		ops = append(ops, o)
		for _, s := range hostile {
			ops = append(ops, withStrings(o, s)...)
		}
	}
	return ops
}

// embeddedText is a payload type the encoder does not know: it takes
// encoding/json's path.
type embeddedText struct {
	envelope.Text
	N int `json:"n"`
}

// withStrings returns o with s in each of its string fields in turn.
func withStrings(o Op, s string) []Op {
	set := []func(*Op){
		func(o *Op) { o.Type = OpType(s) },
		func(o *Op) { o.Task = s },
		func(o *Op) { o.Turn = s },
		func(o *Op) { o.Block.Key.StreamKey = s },
		func(o *Op) { o.Block.Key.ID = s },
		func(o *Op) { o.Block.Kind = envelope.Kind(s) },
		func(o *Op) { o.Block.Status = envelope.Status(s) },
		func(o *Op) { o.Block.Source = Source(s) },
		func(o *Op) { o.Block.Reason = envelope.Reason(s) },
		func(o *Op) { o.Block.Parent = s },
		func(o *Op) { o.Block.Payload = setPayload(o.Block.Payload, s) },
	}
	var out []Op
	for _, f := range set {
		v := o
		f(&v)
		if v.Type == OpResult && v.Result == nil {
			continue
		}
		out = append(out, v)
	}
	return out
}

// setPayload puts s in every string of p.
func setPayload(p envelope.Payload, s string) envelope.Payload {
	switch v := p.(type) {
	case envelope.Text:
		return envelope.Text{Text: s}
	case *envelope.Text:
		return &envelope.Text{Text: s}
	case envelope.Thinking:
		return envelope.Thinking{Text: s}
	case envelope.ErrorPayload:
		return envelope.ErrorPayload{Message: s}
	case envelope.ToolCall:
		return envelope.ToolCall{Tool: s, ToolCallID: s}
	case envelope.ToolOutputAppend:
		return envelope.ToolOutputAppend{Tool: s, Chunk: s, ToolCallID: s}
	case *envelope.ToolOutputAppend:
		return &envelope.ToolOutputAppend{Tool: s, Chunk: s, ToolCallID: v.ToolCallID}
	}
	return p
}

// checkEncoder compares Op.MarshalJSON and Block.MarshalJSON with the
// oracle, bytes for bytes, errors included.
func checkEncoder(t *testing.T, o Op) {
	t.Helper()
	want, wantErr := oracleOp(o)
	got, err := o.MarshalJSON()
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Fatalf("Op.MarshalJSON of %#v:\n got %s (%v)\nwant %s (%v)", o, got, err, want, wantErr)
	}
	want, wantErr = oracleBlock(o.Block)
	got, err = o.Block.MarshalJSON()
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Fatalf("Block.MarshalJSON of %#v:\n got %s (%v)\nwant %s (%v)", o.Block, got, err, want, wantErr)
	}
}

// The append encoder writes what encoding/json wrote, for ops of every
// type, kind and source, with every optional field set and unset and every
// escaping rule in every string.
func TestOpEncoderMatchesEncodingJSON(t *testing.T) {
	ops := differentialOps()
	for _, o := range ops {
		checkEncoder(t, o)
	}
	// A block inside another value goes through json.Marshal's own
	// compaction of what MarshalJSON returns: the same bytes.
	got, err := json.Marshal(View{Blocks: []Block{ops[3].Block, ops[8].Block}})
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ Blocks []json.RawMessage }
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	for i, b := range []Block{ops[3].Block, ops[8].Block} {
		want, _ := oracleBlock(b)
		if d := cmp.Diff(string(want), string(back.Blocks[i])); d != "" {
			t.Errorf("block %d in a view (-want +got):\n%s", i, d)
		}
	}
}

// The recorded ops of testdata/a2a-tail, decoded and encoded again, come
// out as encoding/json wrote them.
func TestOpEncoderOnRecordedOps(t *testing.T) {
	ops := recordedOps(t)
	if len(ops) < 10 {
		t.Fatalf("%d recorded ops, want at least 10", len(ops))
	}
	for _, o := range ops {
		checkEncoder(t, o)
	}
}

// recordedOps are the block and seal ops of the a2a-tail captures, their
// placeholder ids and ats made concrete.
func recordedOps(t testing.TB) []Op {
	files, err := filepath.Glob("../testdata/a2a-tail/*.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var ops []Op
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var raw map[string]any
			if json.Unmarshal(sc.Bytes(), &raw) != nil || raw["type"] == "result" {
				continue
			}
			for k, v := range raw {
				switch s, _ := v.(string); {
				case k == "at":
					raw[k] = "2026-12-01T10:00:00.250000000Z"
				case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"):
					raw[k] = "id-1"
				}
			}
			line, _ := json.Marshal(raw)
			var o Op
			if err := o.UnmarshalJSON(line); err != nil {
				t.Fatalf("%s: %s: %v", name, line, err)
			}
			ops = append(ops, o)
		}
		f.Close()
	}
	return ops
}

// FuzzOpEncoder compares the append encoder with encoding/json on block
// ops built from arbitrary strings and numbers, seeded with the recorded
// ops of testdata/a2a-tail and the hostile strings.
func FuzzOpEncoder(f *testing.F) {
	add := func(o Op, s string) {
		var payload string
		switch p := o.Block.Payload.(type) {
		case envelope.Text:
			payload = p.Text
		case envelope.Thinking:
			payload = p.Text
		case envelope.ToolCall:
			payload = p.Tool
		case envelope.ToolOutputAppend:
			payload = p.Chunk
		case envelope.ErrorPayload:
			payload = p.Message
		}
		b := o.Block
		f.Add(string(o.Type), o.Task, o.Turn, b.Key.StreamKey, b.Key.ID, string(b.Kind), string(b.Status), string(b.Source),
			string(b.Reason), b.Parent, payload, s, b.Key.Seq, b.After, b.Ordinal, b.Truncated, b.At.UnixNano(), b.Anchored, b.OverSoftLimit)
	}
	for _, o := range recordedOps(f) {
		add(o, "")
	}
	for _, s := range hostile {
		add(Op{Type: OpBlock, Task: s, Block: Block{Kind: envelope.KindToolOutputAppend, Payload: envelope.ToolOutputAppend{Chunk: s}}}, s)
	}
	f.Fuzz(func(t *testing.T, typ, task, turn, streamKey, id, kind, status, source, reason, parent, p1, p2 string,
		seq, after, ordinal, truncated, at int64, anchored, over bool) {
		var payload envelope.Payload
		switch envelope.Kind(kind) {
		case envelope.KindThinking:
			payload = envelope.Thinking{Text: p1}
		case envelope.KindToolCall:
			payload = envelope.ToolCall{Tool: p1, ToolCallID: p2}
		case envelope.KindToolOutputAppend:
			payload = envelope.ToolOutputAppend{Tool: p2, Chunk: p1, ToolCallID: p2}
		case envelope.KindError:
			payload = envelope.ErrorPayload{Message: p1}
		default:
			payload = envelope.Text{Text: p1}
		}
		o := Op{Type: OpType(typ), Task: task, Turn: turn, Block: Block{Key: Key{StreamKey: streamKey, Seq: seq, ID: id},
			Kind: envelope.Kind(kind), Status: envelope.Status(status), Payload: payload, Source: Source(source),
			Reason: envelope.Reason(reason), OverSoftLimit: over, Parent: parent, Truncated: truncated, Anchored: anchored,
			After: after, Ordinal: ordinal}}
		if at != 0 {
			o.Block.At = time.Unix(0, at)
		}
		if o.Type == OpResult {
			o.Type = OpBlock
		}
		checkEncoder(t, o)
	})
}

// BenchmarkOpMarshal is the encoder's cost for a typical block op: a
// chunk with its at, as a2a-tail -o ndjson writes one per line.
func BenchmarkOpMarshal(b *testing.B) {
	o := Op{Type: OpBlock, Task: "task-0123456789", Turn: "msg-0123456789", Block: Block{
		Key:     Key{StreamKey: "call-1", Seq: 42},
		Kind:    envelope.KindToolOutputAppend,
		Status:  envelope.StatusRunning,
		Payload: envelope.ToolOutputAppend{Tool: "search", Chunk: "found 3 orders for <customer> & more\n", ToolCallID: "call-1"},
		Source:  SourceEnvelope,
		At:      time.Date(2026, 12, 1, 10, 0, 0, 250_000_000, time.UTC),
	}}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := o.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := oracleOp(o); err != nil {
				b.Fatal(err)
			}
		}
	})
}
