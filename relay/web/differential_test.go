package web

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
)

// differentialCases is how many random op streams both receivers get.
const differentialCases = 1200

// TestDifferential feeds the same random op streams to the Go Receiver and
// the JS one and requires the same views, byte for byte. Each stream comes
// from a seeded random trajectory applied to a real merge.Turn (envelopes
// of every kind, fallbacks, projections, seqs anywhere in int64, stream
// keys whose order differs between UTF-8 and UTF-16), marshalled, then
// shuffled, duplicated, given conflicting copies and mutated lines (some
// that Go's decoder accepts — other key case, unknown fields, repeated
// keys — and some it rejects), under caps that bite.
func TestDifferential(t *testing.T) {
	cases := make([]nodeCase, differentialCases)
	for i := range cases {
		rng := rand.New(rand.NewPCG(uint64(i)+1, 0xd1ff))
		cases[i] = randomCase(t, rng)
	}
	answers := jsReceive(t, cases)
	var ops, invalid int
	for i, c := range cases {
		ops += len(c.Ops)
		for _, r := range answers[i].Results {
			if r == "invalid" {
				invalid++
			}
		}
		want := goReceive(t, c.Task, c.Caps, c.Ops)
		if d := sameJSON(want.Views[0], answers[i].View); d != "" {
			t.Fatalf("case %d: JS view differs from Go's (-go +js):\n%s\ncaps %+v, ops:\n%s", i, d, c.Caps, strings.Join(c.Ops, "\n"))
		}
		if safeNumbers(c) {
			if d := sameJSON(want.Views[0], htmlEscaped(answers[i].Plain)); d != "" {
				t.Fatalf("case %d: JSON.stringify(view()) differs from Go's view (-go +js):\n%s", i, d)
			}
		}
	}
	t.Logf("%d op streams (%d ops, %d invalid in JS) agree", len(cases), ops, invalid)
}

// safeNumbers reports whether every number in the case's ops is exact as a
// JS number, so that JSON.stringify(view()) must equal Go's view too.
func safeNumbers(c nodeCase) bool {
	for _, op := range c.Ops {
		d := json.NewDecoder(strings.NewReader(op))
		d.UseNumber()
		var v map[string]any
		if d.Decode(&v) != nil {
			continue
		}
		for _, f := range []string{"seq", "after", "ordinal"} {
			if n, ok := v[f].(json.Number); ok {
				if i, err := n.Int64(); err == nil && (i > 1<<53-1 || i < -(1<<53-1)) {
					return false
				}
			}
		}
	}
	return true
}

var (
	streamKeys = []string{"call-0", "call-1", "", "ключ", "\U0001F600x", "\uE000y", "a<b>&c", "call-0\u2028"}
	toolNames  = []string{"grep", "search", "ask_colleague", "<script>", "工具"}
	pool       = []string{"alpha ", "béta ", "γάμμα ", "delta\n", "日本語 ", "x", "", "line\n", "<b>&amp;", "\u2028",
		"\x01\x1f", `"q" \ `, "😀", "\ufffd"}
	reasons = []envelope.Reason{envelope.ReasonNoEnvelope, envelope.ReasonBadJSON, envelope.ReasonUnsupportedVersion,
		envelope.ReasonBadField}
)

func words(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(6) {
		b.WriteString(pool[rng.IntN(len(pool))])
	}
	return b.String()
}

// randomCase builds one op stream from a random trajectory.
func randomCase(t *testing.T, rng *rand.Rand) nodeCase {
	t.Helper()
	caps := jsCaps{MaxBlocks: 1000, MaxStreamKeys: 100}
	if rng.IntN(2) == 0 {
		caps.MaxOutputBytes = 6 + rng.IntN(100)
	}
	if rng.IntN(3) == 0 {
		caps.MaxTextBytes = 3 + rng.IntN(20)
	}
	turn := merge.NewTurn("t1", caps.merge())
	var ops []merge.Op
	apply := func(r envelope.Reading) {
		if ch := turn.Apply(r); ch.Result == merge.Applied {
			ops = append(ops, ch.Op)
		}
	}

	var seq int64
	switch rng.IntN(8) {
	case 0:
		seq = math.MinInt64 + rng.Int64N(3)
	case 1:
		seq = math.MaxInt64 - 2000
	case 2:
		seq = 1<<53 - 20 // across the last exact JS number
	default:
		seq = rng.Int64N(2000) - 1000
	}
	members := map[string]int64{}
	for i := range 2 + rng.IntN(50) {
		switch rng.IntN(12) {
		case 0:
			apply(envelope.Reading{Fallback: true, ID: fmt.Sprintf("msg:%d", i), Reason: reasons[rng.IntN(len(reasons))],
				Part: -1, Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, Status: envelope.StatusRunning,
					Payload: envelope.Text{Text: words(rng)}}})
			continue
		case 1:
			key := fmt.Sprintf("ri:b1:call-%d", rng.IntN(3))
			members[key]++
			status := envelope.StatusRunning
			if rng.IntN(3) == 0 {
				status = envelope.StatusDone
			}
			var p envelope.Payload = envelope.ToolCall{Tool: toolNames[rng.IntN(len(toolNames))], ToolCallID: key[6:]}
			if rng.IntN(3) == 0 {
				p = envelope.Text{Text: words(rng)}
			}
			r := reading(key, members[key], status, p)
			r.ID = fmt.Sprintf("%s:%d", key, members[key])
			apply(r)
			continue
		}
		if rng.IntN(5) == 0 {
			seq += int64(1 + rng.IntN(3)) // a gap
		}
		if rng.IntN(6) != 0 {
			seq++ // else a tie with the last seq (a producer bug): ordered by streamKey
		}
		sk := streamKeys[rng.IntN(len(streamKeys))]
		id := ""
		if sk == "" {
			id = streamKeys[rng.IntN(len(streamKeys))]
		}
		tool := toolNames[rng.IntN(len(toolNames))]
		status := envelope.StatusRunning
		switch rng.IntN(10) {
		case 0:
			status = envelope.StatusDone
		case 1:
			status = envelope.StatusAborted
		}
		var p envelope.Payload
		switch rng.IntN(10) {
		case 0:
			p = envelope.Thinking{Text: words(rng)}
		case 1:
			p, status = envelope.Text{Text: words(rng)}, envelope.StatusRunning
		case 2:
			p = envelope.ErrorPayload{Message: words(rng)}
		case 3, 4:
			p = envelope.ToolCall{Tool: tool, ToolCallID: id}
		default:
			p = envelope.ToolOutputAppend{Tool: tool, ToolCallID: id, Chunk: words(rng)}
		}
		r := reading(sk, seq, status, p)
		r.OverSoftLimit = rng.IntN(20) == 0
		apply(r)
	}
	if rng.IntN(2) == 0 {
		ops = append(ops, turn.Seal())
	}

	// Receiver caps: the producer's, or smaller block and key caps, which
	// bite by arrival order (the same order on both sides).
	rcaps := caps
	if rng.IntN(5) == 0 {
		rcaps.MaxBlocks = 1 + rng.IntN(15)
	}
	if rng.IntN(5) == 0 {
		rcaps.MaxStreamKeys = 1 + rng.IntN(4)
	}

	var lines []string
	for _, op := range ops {
		lines = append(lines, marshal(t, op))
		switch rng.IntN(10) {
		case 0:
			lines = append(lines, marshal(t, conflicting(op, rng)))
		case 1:
			lines = append(lines, mutate(rng, marshal(t, op)))
		}
	}
	for range rng.IntN(len(lines)/3 + 1) {
		lines = append(lines, lines[rng.IntN(len(lines))])
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return nodeCase{Task: "t1", Caps: rcaps, Ops: lines}
}

func reading(sk string, seq int64, status envelope.Status, p envelope.Payload) envelope.Reading {
	return envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: p.Kind(), StreamKey: sk, Seq: seq, Status: status,
		Payload: p}}
}

func marshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %+v: %v", v, err)
	}
	return string(b)
}

// conflicting returns op with the same identity and other content.
func conflicting(op merge.Op, rng *rand.Rand) merge.Op {
	if op.Type != merge.OpBlock {
		return op
	}
	b := &op.Block
	switch p := b.Payload.(type) {
	case envelope.Text:
		p.Text += "!"
		b.Payload = p
	case envelope.Thinking:
		p.Text += "!"
		b.Payload = p
	case envelope.ErrorPayload:
		p.Message += "!"
		b.Payload = p
	case envelope.ToolCall:
		p.Tool += "2"
		b.Payload = p
	case envelope.ToolOutputAppend:
		if rng.IntN(2) == 0 {
			p.Chunk += "!" // an evicted chunk is compared by size: still a conflict
		} else {
			p.Chunk = strings.Repeat("?", len(p.Chunk)) // same size: a duplicate once evicted
		}
		b.Payload = p
	}
	if b.Source == merge.SourceEnvelope && rng.IntN(4) == 0 {
		b.OverSoftLimit = !b.OverSoftLimit
	}
	return op
}

// mutations rewrite an op line: some into lines Go's decoder accepts
// (encoding/json matches keys case-insensitively, ignores unknown keys,
// keeps the last of repeated keys), most into lines it rejects.
var mutations = []func(string) string{
	func(s string) string { return strings.Replace(s, `"kind":`, `"KIND":`, 1) },
	func(s string) string { return strings.Replace(s, `"seq":`, `"ſeq":`, 1) },
	func(s string) string { return strings.Replace(s, `"streamKey":`, `"stream\u212aey":`, 1) },
	func(s string) string { return strings.Replace(s, `"task":`, `"Task":`, 1) },
	func(s string) string { return s[:len(s)-1] + `,"extra":[1,{"a":null},"\ud800"],"x":-0.5e-3}` },
	func(s string) string { return s[:len(s)-1] + `,"seq":7}` },
	func(s string) string { return s[:len(s)-1] + `,"reason":null,"after":null}` },
	func(s string) string { return " \t" + s + "\r\n" },
	func(s string) string { return strings.Replace(s, `"text":"`, `"text":"\ud800\u00e9\ud83d\ude00`, 1) },
	// Rejected:
	func(s string) string { return strings.Replace(s, `"seq":`, `"seq":1.0,"_":`, 1) },
	func(s string) string { return strings.Replace(s, `"seq":`, `"seq":"1","_":`, 1) },
	func(s string) string { return s[:len(s)-1] + `,"seq":9223372036854775808}` },
	func(s string) string { return s[:len(s)-1] + `,"seq":1e2}` },
	func(s string) string { return strings.Replace(s, `"type":"block"`, `"type":"Block"`, 1) },
	func(s string) string { return strings.Replace(s, `"task":"t1"`, `"task":"t2"`, 1) },
	func(s string) string { return strings.Replace(s, `"status":"`, `"status":"x`, 1) },
	func(s string) string {
		return strings.Replace(s, `"source":"envelope"`, `"source":"envelope","ordinal":1`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `"source":"fallback"`, `"source":"fallback","streamKey":"k"`, 1)
	},
	func(s string) string { return s[:len(s)-1] + `,"overSoftLimit":1}` },
	func(s string) string { return s[:len(s)-1] + `,"truncated":-1}` },
	func(s string) string { return s[:len(s)-1] + `,"payload":"x"}` },
	func(s string) string { return s[:len(s)-1] + `,"payload":[]}` },
	func(s string) string { return s[:len(s)/2] },
	func(s string) string { return s + "x" },
	func(s string) string { return s[:len(s)-1] + `,}` },
	func(s string) string { return strings.Replace(s, `"seq":`, `"seq":01,"_":`, 1) },
	func(s string) string { return strings.Replace(s, `:"`, ":\"\x01", 1) },
	func(string) string { return `null` },
	func(string) string { return `[]` },
	func(string) string { return `{"type":"seal"}` },
}

func mutate(rng *rand.Rand, s string) string { return mutations[rng.IntN(len(mutations))](s) }
