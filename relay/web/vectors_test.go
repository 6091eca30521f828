package web

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

var update = flag.Bool("update", false, "rewrite the golden op vectors in testdata/ops/")

// vectorDir holds the golden vectors that the Go and the JS receivers both
// pass. Each vector NAME is three files:
//
//   - NAME.ops.ndjson: the op stream, one op per line, in arrival order
//     (lines a receiver must reject included);
//   - NAME.views.ndjson: the view of each turn, in turn order (the order in
//     which a first op of each arrived), exactly as Go's json.Marshal
//     writes a schema.View; with no turn, the receiver's empty view;
//   - NAME.json: what the vector shows, the receiving task, the caps a
//     receiver is built with, what Apply says of each op, the turn ids, and
//     the latest turn's result (the result op's schema.Result, or null).
const vectorDir = "testdata/ops"

type vectorMeta struct {
	Description string          `json:"description"`
	Task        string          `json:"task"`
	Caps        jsCaps          `json:"caps"`
	Effects     []string        `json:"effects"`
	Turns       []string        `json:"turns"`
	Result      json.RawMessage `json:"result"`
}

type vector struct {
	name string
	meta vectorMeta
	ops  []string
	// turnView, when set, is the producing Turn's view, which the receiver
	// must rebuild (but for the counters that describe arrival).
	turnView *schema.View
}

// producer applies readings to a real merge.Turn and keeps its ops. The
// n-th reading is produced at start + n × 250 ms.
type producer struct {
	t     testing.TB
	tn    *merge.Turn
	ops   []schema.Op
	start time.Time
	n     int
}

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func newProducer(t testing.TB, caps merge.Caps) *producer {
	return newTurnProducer(t, "msg-1", t0, caps)
}

func newTurnProducer(t testing.TB, turn string, start time.Time, caps merge.Caps) *producer {
	return &producer{t: t, tn: merge.NewTurn("t1", turn, caps), start: start}
}

func (p *producer) apply(r envelope.Reading) *producer {
	p.n++
	if ch := p.tn.ApplyAt(r, p.start.Add(time.Duration(p.n)*250*time.Millisecond)); ch.Effect == merge.Applied {
		p.ops = append(p.ops, ch.Op)
	} else {
		p.t.Fatalf("producer: %v for %+v", ch.Effect, r)
	}
	return p
}

func (p *producer) env(sk string, seq int64, status envelope.Status, pl envelope.Payload) *producer {
	return p.apply(reading(sk, seq, status, pl))
}

func (p *producer) run(sk string, seq int64, pl envelope.Payload) *producer {
	return p.env(sk, seq, envelope.StatusRunning, pl)
}

func (p *producer) fallback(id, text string, reason envelope.Reason) *producer {
	return p.apply(envelope.Reading{Fallback: true, ID: id, Reason: reason, Part: -1,
		Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: text}}})
}

func (p *producer) proj(key string, seq int64, status envelope.Status, pl envelope.Payload) *producer {
	r := reading(key, seq, status, pl)
	r.ID = key + ":" + string(rune('0'+seq))
	return p.apply(r)
}

func (p *producer) seal() *producer {
	p.ops = append(p.ops, p.tn.Seal())
	return p
}

func (p *producer) result(r schema.Result) *producer {
	p.ops = append(p.ops, p.tn.ResultOp(r))
	return p
}

func (p *producer) lines() []string {
	out := make([]string, len(p.ops))
	for i, op := range p.ops {
		out[i] = marshal(p.t, op)
	}
	return out
}

// vector is the producer's ops in order, to be received with the
// producer's caps.
func (p *producer) vector(name, description string, caps merge.Caps) vector {
	v := p.tn.View()
	return vector{name: name, meta: vectorMeta{Description: description, Task: "t1", Caps: toJSCaps(caps)},
		ops: p.lines(), turnView: &v}
}

func toJSCaps(c merge.Caps) jsCaps {
	return jsCaps{MaxBlocks: c.MaxBlocks, MaxStreamKeys: c.MaxStreamKeys, MaxOutputBytes: c.MaxOutputBytes,
		MaxTextBytes: c.MaxTextBytes}
}

func shuffled(seed uint64, lines []string) []string {
	out := append([]string(nil), lines...)
	rand.New(rand.NewPCG(seed, 0x90de)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

var (
	grep = envelope.ToolCall{Tool: "grep", ToolCallID: "call-1"}
	ask  = envelope.ToolCall{Tool: "ask_colleague"}
)

func text(s string) envelope.Text { return envelope.Text{Text: s} }
func chunk(tool, s string) envelope.ToolOutputAppend {
	return envelope.ToolOutputAppend{Tool: tool, Chunk: s}
}

// basic is a plain turn: text, two tool calls with output, a close each.
func basic(t testing.TB) *producer {
	return newProducer(t, merge.Caps{}).
		run("", 1, text("Looking into it")).
		run("c1", 2, grep).
		run("c1", 3, chunk("grep", "main.go:12: func main()\n")).
		run("c1", 4, chunk("grep", "main.go:40: // <TODO> & more\n")).
		run("c2", 5, ask).
		env("c1", 6, envelope.StatusDone, grep).
		run("", 7, envelope.Thinking{Text: "the colleague is slow"}).
		run("c2", 8, chunk("ask_colleague", "partial answer")).
		env("c2", 9, envelope.StatusDone, ask).
		run("", 10, text("Done."))
}

// vectors builds every golden vector.
func vectors(t testing.TB) []vector {
	var vs []vector
	add := func(v vector) { vs = append(vs, v) }

	add(basic(t).seal().vector("in-order", "A turn's ops in the order the turn made them.", merge.Caps{}))

	v := basic(t).seal().vector("shuffled", "The same ops in a random order: the same view.", merge.Caps{})
	v.ops = shuffled(1, v.ops)
	add(v)

	v = basic(t).seal().vector("duplicated", "Every op twice, shuffled: the copies are duplicates and change nothing.", merge.Caps{})
	v.ops = shuffled(2, append(v.ops, v.ops...))
	add(v)

	p := basic(t).seal()
	v = p.vector("conflicting", "Copies with the same identity and other content after the originals: "+
		"conflicts, counted, the first arrival stays.", merge.Caps{})
	for _, op := range p.ops {
		if op.Type != schema.OpBlock || op.Block.Key.Seq%3 != 0 {
			continue
		}
		c := op
		switch pl := c.Block.Payload.(type) {
		case envelope.ToolOutputAppend:
			pl.Chunk = "rewritten\n"
			c.Block.Payload = pl
		default:
			c.Block.Status = envelope.StatusAborted
		}
		v.ops = append(v.ops, marshal(t, c))
	}
	add(v)

	p = newProducer(t, merge.Caps{}).
		fallback("msg:m0", "before any envelope", envelope.ReasonNoEnvelope).
		run("", 10, text("ten")).
		fallback("msg:m1", "after ten, first", envelope.ReasonBadJSON).
		fallback("msg:m2", "after ten, second", envelope.ReasonNoEnvelope).
		run("", 12, text("twelve")).
		fallback("sha256:ab12", "after twelve", envelope.ReasonUnsupportedVersion).
		seal()
	v = p.vector("fallbacks", "Fallbacks are placed by the anchor and ordinal their op carries: an unanchored one "+
		"first, then after their anchor seq by ordinal; counted by reason.", merge.Caps{})
	v.ops = shuffled(3, v.ops)
	add(v)

	const m1, m2 = "ri:b1:call-1", "ri:b1:call-2"
	p = newProducer(t, merge.Caps{}).
		run("", 100, text("thinking")).
		proj(m1, 1, envelope.StatusRunning, envelope.ToolCall{Tool: "expense-review", ToolCallID: "call-1"}).
		run("c", 101, envelope.ToolCall{Tool: "grep"}).
		proj(m2, 1, envelope.StatusRunning, envelope.ToolCall{Tool: "audit", ToolCallID: "call-2"}).
		proj(m1, 2, envelope.StatusRunning, text("awaiting input")).
		env("c", 103, envelope.StatusDone, envelope.ToolCall{Tool: "grep"}).
		proj(m1, 3, envelope.StatusDone, envelope.ToolCall{Tool: "expense-review", ToolCallID: "call-1"}).
		proj(m2, 2, envelope.StatusAborted, envelope.ErrorPayload{Message: "TIMED_OUT"}).
		seal()
	v = p.vector("projections", "Projection blocks (a seq space per member key) beside envelope seqs: placed by "+
		"arrival, no gaps, nothing late, one tool call per member key.", merge.Caps{})
	v.ops = shuffled(4, v.ops)
	add(v)

	p = newProducer(t, merge.Caps{}).
		run("c1", 1, grep).
		run("c1", 2, chunk("grep", "one\n")).
		run("c1", 5, chunk("grep", "two, no newline")).
		run("", 6, text("between")).
		run("c1", 7, chunk("grep", "three\n")).
		run("c1", 9, chunk("grep", "four\n")).
		seal()
	v = p.vector("gaps", "Missing seqs: a gap marker line between two chunks where the turn misses seqs (after a "+
		"newline of its own when the output does not end with one); seqs of other streams are not gaps.", merge.Caps{})
	v.ops = shuffled(5, v.ops)
	add(v)

	caps := merge.Caps{MaxOutputBytes: 10}
	p = newProducer(t, caps).
		run("c1", 1, grep).
		run("c1", 2, chunk("grep", "aaaa\n")).
		run("c1", 3, chunk("grep", "ééé\n")).
		run("c1", 4, chunk("grep", "日本\n")).
		run("c2", 5, ask).
		run("c2", 6, chunk("ask_colleague", "short")).
		seal()
	v = p.vector("output-cap", "MaxOutputBytes 10: each call keeps its newest bytes, cut at a character "+
		"boundary; truncated counts the rest.", caps)
	v.ops = shuffled(6, v.ops)
	add(v)

	caps = merge.Caps{MaxTextBytes: 5}
	p = newProducer(t, caps).
		run("", 1, text("short")).
		run("", 2, text("a longer text")).
		run("", 3, envelope.Thinking{Text: "ééé"}).
		run("", 4, envelope.ErrorPayload{Message: "日本語"}).
		fallback("msg:f", "a long fallback", envelope.ReasonNoEnvelope).
		seal()
	add(p.vector("text-cap", "MaxTextBytes 5: texts keep their head, cut at a character boundary; truncated "+
		"counts the bytes cut.", caps))

	v = basic(t).seal().vector("max-blocks", "A receiver with MaxBlocks 4: later new blocks are dropped by the cap; "+
		"a copy of a kept block is still a duplicate.", merge.Caps{})
	v.meta.Caps = jsCaps{MaxBlocks: 4}
	v.ops = append(v.ops, v.ops[0], v.ops[1])
	v.turnView = nil
	add(v)

	v = basic(t).seal().vector("max-stream-keys", "A receiver with MaxStreamKeys 1: the second tool call's key is "+
		"refused, its blocks dropped by the cap.", merge.Caps{})
	v.meta.Caps = jsCaps{MaxStreamKeys: 1}
	v.turnView = nil
	add(v)

	p = newProducer(t, merge.Caps{}).run("c1", 1, grep).run("", 2, text("x"))
	long := strings.Repeat("é", envelope.MaxIdentBytes/2) + "x" // 1025 bytes
	v = p.vector("ident-too-long", "Identifiers over 1024 bytes (streamKey, id, tool, tool_call_id) drop the block "+
		"by the cap; 1024 bytes are fine.", merge.Caps{})
	for i, edit := range []func(*schema.Op){
		func(o *schema.Op) { o.Block.Key.StreamKey = long },
		func(o *schema.Op) { o.Block.Payload = envelope.ToolCall{Tool: long} },
		func(o *schema.Op) { o.Block.Payload = envelope.ToolCall{Tool: "t", ToolCallID: long} },
		func(o *schema.Op) { o.Block.Key.StreamKey = long[2:] },
	} {
		op := p.ops[0]
		op.Block.Key.Seq = int64(10 + i)
		edit(&op)
		v.ops = append(v.ops, marshal(t, op))
	}
	fb := newProducer(t, merge.Caps{}).fallback("msg:1", "x", envelope.ReasonNoEnvelope).ops[0]
	fb.Block.Key.ID = long
	v.ops = append(v.ops, marshal(t, fb))
	v.turnView = nil
	add(v)

	p = newProducer(t, merge.Caps{}).
		run("c1", 1, grep).
		run("c2", 2, ask).
		run("c3", 3, envelope.ToolCall{Tool: "fetch"}).
		run("c3", 4, chunk("fetch", "downloading…")).
		env("c1", 5, envelope.StatusDone, text("grep finished")).
		env("c2", 6, envelope.StatusAborted, envelope.ErrorPayload{Message: "timeout"}).
		run("", 7, text("giving up on fetch")).
		seal()
	v = p.vector("unfinished", "The seal freezes the turn: a call still running becomes unfinished; a done or "+
		"aborted block of any kind closes its call.", merge.Caps{})
	v.ops = shuffled(7, v.ops)
	add(v)

	v = basic(t).vector("unsealed", "No seal yet: running calls stay running.", merge.Caps{})
	add(v)

	caps = merge.Caps{MaxOutputBytes: 10}
	p = newProducer(t, caps).
		run("c1", 1, grep).
		run("c1", 2, chunk("grep", "aaaa\n")).
		run("c1", 3, chunk("grep", "ééé\n")).
		run("c1", 4, chunk("grep", "日本\n")).
		env("c1", 5, envelope.StatusDone, chunk("grep", "end\n")).
		seal()
	rcv := merge.NewReceiver("t1", caps)
	for _, op := range p.ops {
		rcv.Apply(op)
	}
	v = vector{name: "snapshot-stubs", meta: vectorMeta{Description: "A relay's snapshot of a turn (Go Receiver.Ops): " +
		"a chunk whose text the output cap dropped comes as its stub, chunk \"\" and its size in truncated; a " +
		"receiver counts it, names and closes the call by it, and knows its seq. The snapshot's ops shuffled.",
		Task: "t1", Caps: toJSCaps(caps)}}
	for _, op := range rcv.Ops("msg-1") {
		v.ops = append(v.ops, marshal(t, op))
	}
	v.ops = shuffled(14, v.ops)
	add(v)

	for _, v := range turnVectors(t) {
		add(v)
	}
	add(invalidVector(t))
	add(int64Vector(t))
	add(orderVector(t))
	for _, v := range nestedVectors(t) {
		add(v)
	}
	return vs
}

// under nests the next block of p under the call parent (PROTOCOL.md §10).
func (p *producer) under(parent, sk string, seq int64, status envelope.Status, pl envelope.Payload) *producer {
	r := reading(sk, seq, status, pl)
	r.Envelope.Parent = parent
	return p.apply(r)
}

// chain is B's turn as A sees it: B's own ask_colleague call, and under it
// what C did — text, a tool call with output, and a call C itself
// forwarded from D (two levels down).
func chain(t testing.TB) *producer {
	const c1, d1 = "fw:ask:call-1", "fw:ask:fw%3Acall-1%3Acall-9"
	search := envelope.ToolCall{Tool: "search", ToolCallID: "call-1"}
	lookup := envelope.ToolCall{Tool: "lookup", ToolCallID: "call-9"}
	return newProducer(t, merge.Caps{}).
		run("", 1, text("Asking a colleague")).
		run("ask", 2, envelope.ToolCall{Tool: "ask_colleague", ToolCallID: "ask"}).
		under("ask", "", 3, envelope.StatusRunning, envelope.Thinking{Text: "C thinks"}).
		under("ask", c1, 4, envelope.StatusRunning, search).
		under("ask", c1, 5, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "search", ToolCallID: "call-1", Chunk: "hit 1\n"}).
		under(c1, d1, 6, envelope.StatusRunning, lookup).
		under(c1, d1, 7, envelope.StatusDone, lookup).
		under("ask", c1, 8, envelope.StatusDone, search).
		under("ask", "", 9, envelope.StatusRunning, text("C: found it")).
		env("ask", 10, envelope.StatusDone, envelope.ToolCall{Tool: "ask_colleague", ToolCallID: "ask"}).
		run("", 11, text("Done."))
}

// nestedVectors are the vectors of the nesting extension (PROTOCOL.md §10).
func nestedVectors(t testing.TB) []vector {
	var vs []vector
	v := chain(t).seal().vector("nested", "The nesting extension: a sub-agent's blocks forwarded under the call "+
		"that asked it carry parent; each call's depth is its chain of parents (C's call under B's ask, D's under "+
		"C's). Shuffled and duplicated: the same tree.", merge.Caps{})
	v.ops = shuffled(21, append(v.ops, v.ops[3:6]...))
	vs = append(vs, v)

	p := chain(t).seal()
	v = p.vector("nested-conflict", "A copy of a forwarded block with another parent is a conflict: the parent "+
		"is content, the first arrival stays.", merge.Caps{})
	c := p.ops[3]
	c.Block.Parent = "elsewhere"
	v.ops = append(v.ops, marshal(t, c))
	vs = append(vs, v)

	p = newProducer(t, merge.Caps{}).run("k0", 1, envelope.ToolCall{Tool: "t"})
	for i := 1; i <= merge.MaxDepth+1; i++ {
		p.under(fmt.Sprintf("k%d", i-1), fmt.Sprintf("k%d", i), int64(i+1), envelope.StatusRunning, envelope.ToolCall{Tool: "t"})
	}
	p.under("a", "b", 20, envelope.StatusRunning, envelope.ToolCall{Tool: "t"}).
		under("b", "a", 21, envelope.StatusRunning, envelope.ToolCall{Tool: "t"}).
		under("gone", "o", 22, envelope.StatusRunning, envelope.ToolCall{Tool: "t"}).
		under("k0", "", 23, envelope.StatusRunning, text("under k0"))
	v = p.seal().vector("nested-depth", "Depth is capped at MaxDepth (8): the ninth level, a loop and a parent that "+
		"is no call are shown at the top level (no depth).", merge.Caps{})
	v.ops = shuffled(22, v.ops)
	v.ops = append(v.ops,
		`{"type":"block","task":"t1","turn":"msg-1","streamKey":"","seq":0,"id":"msg:x","kind":"text","status":"running","payload":{"text":"x"},"source":"fallback","reason":"no_envelope","ordinal":9,"parent":"k0"}`,
		`{"type":"block","task":"t1","turn":"msg-1","streamKey":"self","seq":30,"id":"","kind":"tool_call","status":"running","payload":{"tool":"t"},"source":"envelope","parent":"self"}`,
		`{"type":"block","task":"t1","turn":"msg-1","streamKey":"","seq":31,"id":"","kind":"tool_call","status":"running","payload":{"tool":"t","tool_call_id":"own"},"source":"envelope","parent":"own"}`,
		`{"type":"block","task":"t1","turn":"msg-1","streamKey":"","seq":32,"id":"","kind":"text","status":"running","payload":{"text":"x"},"source":"envelope","parent":7}`,
	)
	vs = append(vs, v)
	return vs
}

// invalidVector is a stream of lines Go's Op decoder rejects, each
// counted as invalid, beside odd lines it accepts.
func invalidVector(t testing.TB) vector {
	p := newProducer(t, merge.Caps{}).run("c1", 1, grep).fallback("msg:1", "x", envelope.ReasonNoEnvelope)
	v := p.vector("invalid", "Lines a receiver rejects (counted as invalid, never thrown) — among them keys in other case or "+
		"Unicode folding (ſ, K), unknown keys and repeated keys, at any depth — and lines it accepts though they "+
		"look odd: a null payload of a text block, lone surrogates (read as U+FFFD), white space around the op, "+
		"a2a-tail's exitCode and schemaVersion beside a result.", merge.Caps{})
	v.turnView = nil
	manual := []string{
		// Accepted:
		`{"type":"block","task":"t1","streamKey":"c1","seq":2,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"out\n"},"source":"envelope","exitCode":{"nested":[1,2,{"x":null}]}}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":4,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"last\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":5,"id":"","kind":"text","status":"running","payload":null,"source":"envelope","reason":null,"truncated":-0}`,
		`{"type":"block","task":"t1","streamKey":"","seq":6,"id":"","kind":"text","status":"running","payload":{"text":"lone \ud800 and pair \ud83d\ude00 and \u00e9"},"source":"envelope"}`,
		`  {"type":"block","task":"t1","streamKey":"","seq":0,"id":"msg:2","kind":"text","status":"running","payload":{"text":"unanchored"},"source":"fallback","reason":"no_envelope","after":null,"ordinal":2}` + "\t",
		// Rejected: keys that are not exactly the op form's, or repeated.
		`{"TYPE":"block","Task":"t1","TURN":"msg-1","ſtreamKey":"c1","ſeq":2,"id":"","KIND":"tool_output_append","status":"running","payload":{"TOOL":"grep","chunk":"out\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","ſeq":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"long s\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","stream` + "\u212a" + `ey":"c1","seq":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"Kelvin\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","SEQ":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"upper\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"unknown\n"},"source":"envelope","extra":1}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"unknown in payload\n","Chunk":"x"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":3,"seq":4,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"repeated\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","s\u0065q":3,"seq":4,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"repeated by escape\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"more\n"},"payload":{"tool":"grep","chunk":"repeated payload\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"repeated in payload\n","chunk":"x"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":3,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"repeated deep\n"},"source":"envelope","exitCode":[{"a":1,"a":1}]}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"ok","counters":{"applied":1,"duplicates":0,"conflicts":0,"fallbacks":{"bad_json":1}},"counters":{"late":2,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"ok","counters":{"applied":1,"duplicates":0,"conflicts":0,"late":2,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0,"fallbacks":{"bad_json":1,"bad_json":2}}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"ok","counters":{"applied":1,"duplicates":0,"conflicts":0,"late":2,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0,"Invalid":1}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"ok","artifacts":[{"id":"a","name":"n","text":"t","mime":"text/plain"}],"counters":{"applied":1,"duplicates":0,"conflicts":0,"late":2,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_INPUT_REQUIRED","verdict":"input-required","interrupt":{"question":"?","items":[{"toolCallID":"c"}]},"counters":{"applied":1,"duplicates":0,"conflicts":0,"late":2,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		// Rejected: 2^53+1, exact as text, but not in plain integer form.
		`{"type":"block","task":"t1","streamKey":"c1","seq":9007199254740993.0,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"float\n"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c1","seq":9.007199254740993e15,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"grep","chunk":"exponent\n"},"source":"envelope"}`,
		// Rejected: the rest.
		``,
		`{"type":"block"`,
		`null`,
		`[]`,
		`"block"`,
		`{"type":"seal","task":"t2"}`,
		`{"type":"rewind","task":"t1"}`,
		`{"type":"Block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7.0,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7e0,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":"7","id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":07,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":9223372036854775808,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"video","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"paused","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":3},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":"a","source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"rumour"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"x","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","overSoftLimit":"yes"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","truncated":-1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope"}x`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a` + "\x01" + `"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c9","seq":7,"id":"","kind":"tool_call","status":"running","payload":{},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":0,"id":"m","kind":"thinking","status":"running","payload":{"text":"a"},"source":"fallback","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":0,"id":"m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback"}`,
		`{"type":"block","task":"t1","streamKey":"k","seq":0,"id":"m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":1,"id":"p","kind":"text","status":"running","payload":{"text":"a"},"source":"projection","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"k","seq":1,"id":"p","kind":"tool_output_append","status":"running","payload":{"tool":"t","chunk":"a"},"source":"projection","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"k","seq":1,"id":"p","kind":"text","status":"running","payload":{"text":"a"},"source":"projection","reason":"bad_json","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"c9","seq":7,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"t","chunk":"` + strings.Repeat("x", envelope.HardChunkLimit+1) + `"},"source":"envelope"}`,
		`{"type":"block","task":"t1","streamKey":"c9","seq":7,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"t","chunk":"text"},"source":"envelope","truncated":3}`,
		`{"type":"block","task":"t1","streamKey":"c9","seq":7,"id":"","kind":"tool_output_append","status":"running","payload":{"tool":"t","chunk":""},"source":"envelope","truncated":65537}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2026-12-01T10:00:00.25Z"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2026-12-01T10:00:00.000000000+00:00"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2026-02-29T10:00:00.000000000Z"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2026-12-01T24:00:00.000000000Z"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":1764583200}`,
		`{"type":"seal","task":"t1","turn":""}`,
		`{"type":"seal","task":"t1","turn":"` + strings.Repeat("é", envelope.MaxIdentBytes/2) + `x"}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_FAILED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"done","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"incomplete","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_FAILED","verdict":"failed","reply":"hi","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","interrupt":{"question":"?"},"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":-1,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0,"fallbacks":{"\u0085 ":1}}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0,"fallbacks":{"no_envelope":-1}}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","artifacts":{},"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":[]}`,
		`{"type":"block","task":"t1","streamKey":"","seq":0,"id":"m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":0,"id":"m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","reason":"","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":0,"id":"m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","reason":"gremlins","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":0,"id":"m","kind":"text","status":"running","payload":{"text":"a"},"source":"fallback","reason":"__proto__","ordinal":1}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"1677-12-31T23:59:59.999999999Z"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"0001-01-01T00:00:00.000000000Z"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":7,"id":"","kind":"text","status":"running","payload":{"text":"a"},"source":"envelope","at":"2262-01-01T00:00:00.000000000Z"}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed"}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":null}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`,
		`{"type":"result","task":"t1","state":"TASK_STATE_COMPLETED","verdict":"completed","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0},"counters":null}`,
	}
	for _, line := range manual {
		// Every line has the turn, but for the ones that test it.
		if !strings.Contains(line, `"turn"`) {
			line = strings.Replace(line, `"task":"t1",`, `"task":"t1","turn":"msg-1",`, 1)
		}
		v.ops = append(v.ops, line)
	}
	v.ops = append(v.ops,
		`{"type":"seal","task":"t1"}`,
		`{"type":"block","task":"t1","streamKey":"","seq":8,"id":"","kind":"text","status":"running","payload":{"text":"no turn"},"source":"envelope"}`,
		// Accepted: a2a-tail's result line (exitCode, schemaVersion), a null
		// fallback count (zero), an artifact without a name.
		`{"type":"result","task":"t1","turn":"msg-1","state":"TASK_STATE_COMPLETED","verdict":"completed","reply":"ok","counters":{"applied":1,"duplicates":0,"conflicts":0,"late":2,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0,"fallbacks":{"bad_json":1,"no_envelope":null}},"artifacts":[{"id":"a","text":"t"}],"exitCode":0,"schemaVersion":1}`,
	)
	return v
}

// int64Vector has seqs where a JS number is no longer exact, and at both
// ends of int64.
func int64Vector(t testing.TB) vector {
	p := newProducer(t, merge.Caps{}).
		run("", math.MinInt64, text("the lowest seq")).
		run("c1", math.MinInt64+2, grep).
		fallback("msg:a", "anchored at the lowest seq + 2", envelope.ReasonNoEnvelope).
		run("c1", 1<<53, chunk("grep", "at 2^53\n")).
		run("c1", 1<<53+1, chunk("grep", "at 2^53+1\n")).
		run("c1", 1<<53+3, chunk("grep", "at 2^53+3\n")).
		fallback("msg:b", "anchored at 2^53+3", envelope.ReasonNoEnvelope).
		run("", math.MaxInt64, text("the highest seq")).
		seal()
	v := p.vector("int64-seqs", "Seqs past 2^53 and at both ends of int64: order and gap counts are exact; the gap "+
		"count saturates at the int64 maximum.", merge.Caps{})
	v.ops = shuffled(8, v.ops)
	return v
}

// orderVector has ties that only the UTF-8 byte order of stream keys
// breaks, and text a web page must not read as markup.
func orderVector(t testing.TB) vector {
	p := newProducer(t, merge.Caps{}).
		run("\uE000", 5, envelope.ToolCall{Tool: "private-use"}).
		run("\U0001F600", 5, envelope.ToolCall{Tool: "emoji"}).
		run("z", 5, envelope.ToolCall{Tool: "<script>alert(1)</script>"}).
		run("", 5, text("a & b <i>\u2028\u2029</i> \x00\x1f\x7f")).
		run("Z", 5, chunk("zeta", "out")).
		seal()
	v := p.vector("string-order", "Ties at one seq are ordered by streamKey as UTF-8 bytes (code points), not UTF-16 "+
		"units; markup and control characters in text are data.", merge.Caps{})
	v.ops = shuffled(9, v.ops)
	return v
}

// receiveVector is what the Go Receiver makes of a vector.
func receiveVector(t testing.TB, v vector) received {
	return goReceive(t, v.meta.Task, v.meta.Caps, v.ops)
}

func vectorFiles(t testing.TB, v vector) map[string][]byte {
	t.Helper()
	r := receiveVector(t, v)
	m := v.meta
	m.Effects, m.Result = r.Effects, json.RawMessage(r.Result)
	m.Turns = []string{}
	for _, view := range r.Views {
		var head struct{ Turn string }
		if err := json.Unmarshal([]byte(view), &head); err != nil {
			t.Fatal(err)
		}
		if head.Turn != "" {
			m.Turns = append(m.Turns, head.Turn)
		}
	}
	meta, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		v.name + ".json":         append(meta, '\n'),
		v.name + ".ops.ndjson":   []byte(strings.Join(v.ops, "\n") + "\n"),
		v.name + ".views.ndjson": []byte(strings.Join(r.Views, "\n") + "\n"),
	}
}

// TestVectors checks the golden vectors against the generator and the Go
// Receiver (go test -update rewrites them). The JS Receiver is checked
// against the same files by receiver.test.mjs.
func TestVectors(t *testing.T) {
	if !*update {
		t.Parallel() // -update rewrites the files the other tests read: alone, first
	}
	vs := vectors(t)
	if *update {
		if err := os.MkdirAll(vectorDir, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(vectorDir, "*"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]bool{}
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			if v.turnView != nil {
				got := receiveVector(t, v)
				var rv schema.View
				if err := json.Unmarshal([]byte(got.Views[0]), &rv); err != nil {
					t.Fatal(err)
				}
				// The JSON has [] for no blocks or tool calls, which decodes
				// as an empty list where the Turn's view has nil.
				if d := cmp.Diff(transportFree(*v.turnView), transportFree(rv), cmpopts.EquateEmpty()); d != "" {
					t.Errorf("the receiver does not rebuild the producing turn's view (-turn +receiver):\n%s", d)
				}
			}
			for name, b := range vectorFiles(t, v) {
				want[name] = true
				path := filepath.Join(vectorDir, name)
				if *update {
					if err := os.WriteFile(path, b, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./relay/web -run TestVectors -update writes it)", err)
				}
				if !bytes.Equal(b, got) {
					t.Errorf("%s differs from what the generator and the Go Receiver make now (-want +file):\n%s\n"+
						"(go test ./relay/web -run TestVectors -update rewrites it)", path, cmp.Diff(string(b), string(got)))
				}
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join(vectorDir, "*"))
	for _, f := range files {
		if !want[filepath.Base(f)] {
			t.Errorf("%s is no vector the generator makes (go test -update removes it)", f)
		}
	}
}

// transportFree zeroes the counters that describe arrivals rather than
// content.
func transportFree(v schema.View) schema.View {
	c := &v.Counters
	c.Duplicates, c.Conflicts, c.Late, c.DroppedAfterSeal, c.DroppedByCap, c.Invalid = 0, 0, 0, 0, 0, 0
	return v
}

// question is the first turn of a task that asks the caller a question:
// its seqs start at 1.
func question(t testing.TB) *producer {
	return newTurnProducer(t, "msg-q", t0, merge.Caps{}).
		run("", 1, text("Checking the expense")).
		run("c1", 2, envelope.ToolCall{Tool: "expense-review", ToolCallID: "call-9"}).
		run("c1", 3, chunk("expense-review", "amount: 1200 EUR\n")).
		seal().
		result(schema.Result{State: "TASK_STATE_INPUT_REQUIRED", Verdict: schema.VerdictInputRequired,
			Interrupt: &schema.Interrupt{Question: "Approve 1200 EUR?", Items: []schema.InterruptItem{
				{ToolCallID: "call-9", ToolName: "expense-review", Message: "Approve 1200 EUR?"}}},
			Context: "ctx-1"})
}

// answer is the second turn on the same task, after the caller answered:
// its seqs start at 1 again, on the same stream key.
func answer(t testing.TB) *producer {
	return newTurnProducer(t, "msg-a", t0.Add(time.Minute), merge.Caps{}).
		run("c1", 1, envelope.ToolCall{Tool: "expense-review", ToolCallID: "call-9"}).
		run("c1", 2, chunk("expense-review", "approved\n")).
		env("c1", 3, envelope.StatusDone, envelope.ToolCall{Tool: "expense-review", ToolCallID: "call-9"}).
		run("", 4, text("Booked.")).
		seal().
		result(schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "Booked.",
			Artifacts: []schema.Artifact{{ID: "a1", Name: "receipt", Text: "1200 EUR <approved>"}}, Context: "ctx-1"})
}

// turnVectors are the vectors of turns, results and times.
func turnVectors(t testing.TB) []vector {
	var vs []vector
	q, a := question(t), answer(t)
	v := vector{name: "two-turns", meta: vectorMeta{Description: "An interrupt answered on the same task: the second " +
		"turn's seqs start at 1 again on the same stream key, and make a view of their own (nothing of it is a " +
		"duplicate or conflict of the first); each turn's ops shuffled, the second turn's after the first's. The " +
		"result is the latest turn's.", Task: "t1"},
		ops: append(shuffled(10, q.lines()), shuffled(11, a.lines())...)}
	vs = append(vs, v)
	v = vector{name: "two-turns-interleaved", meta: vectorMeta{Description: "The two turns' ops interleaved at random: " +
		"turns are ordered by the first arrival of one of their ops, whichever turn that is.", Task: "t1"},
		ops: shuffled(12, append(q.lines(), a.lines()...))}
	vs = append(vs, v)

	for _, r := range []schema.Result{
		{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "All done.",
			Artifacts:          []schema.Artifact{{ID: "a1", Text: "report"}, {ID: "a2", Name: "log", Text: "line 1\nline 2"}},
			ArtifactsTruncated: true},
		{State: "TASK_STATE_FAILED", Verdict: schema.VerdictFailed, Error: "upstream returned 502"},
		{State: "TASK_STATE_REJECTED", Verdict: schema.VerdictRejected, Error: "not my job"},
		{State: "TASK_STATE_CANCELED", Verdict: schema.VerdictCanceled},
		{State: "TASK_STATE_INPUT_REQUIRED", Verdict: schema.VerdictInputRequired,
			Interrupt: &schema.Interrupt{Question: "Which account?"}},
		{State: "TASK_STATE_AUTH_REQUIRED", Verdict: schema.VerdictAuthRequired,
			Interrupt: &schema.Interrupt{Question: "Sign in", Items: []schema.InterruptItem{{ToolCallID: "c1", ToolName: "grep"}}}},
		{State: "TASK_STATE_WORKING", Verdict: schema.VerdictIncomplete, Error: "stream cut; the task could not be resolved"},
	} {
		p := newProducer(t, merge.Caps{}).
			run("c1", 1, grep).
			run("c1", 2, chunk("grep", "hit\n")).
			run("", 3, text("thinking about it"))
		desc := "A result op of verdict " + string(r.Verdict) + " after the seal; its counters are the producing turn's."
		if r.Verdict != schema.VerdictIncomplete {
			p.seal()
		} else {
			desc = "An incomplete turn: the result op without a seal (the task may still be running), so its calls " +
				"stay running."
		}
		p.result(r)
		v := p.vector("result-"+string(r.Verdict), desc, merge.Caps{})
		v.ops = shuffled(13, v.ops)
		vs = append(vs, v)
	}

	p := newProducer(t, merge.Caps{}).run("", 1, text("x")).seal().
		result(schema.Result{State: "TASK_STATE_COMPLETED", Verdict: schema.VerdictCompleted, Reply: "first"})
	v = p.vector("result-conflict", "A seal twice is a duplicate; the same result twice a duplicate; another result "+
		"for the turn a conflict, and the first stands.", merge.Caps{})
	other := *p.ops[2].Result
	other.Reply = "second"
	v.ops = append(v.ops, v.ops[1], v.ops[2], marshal(t, schema.Op{Type: schema.OpResult, Task: "t1", Turn: "msg-1", Result: &other}))
	vs = append(vs, v)

	p = newProducer(t, merge.Caps{}).
		run("c1", 1, grep).
		fallback("msg:f", "a fallback", envelope.ReasonNoEnvelope).
		run("", 2, text("y"))
	v = p.vector("at-first-arrival", "at is informational: a copy with another at is a duplicate, and the first "+
		"arrival's at stays (here the copies, stamped an hour later, arrive first).", merge.Caps{})
	var early []string
	for _, op := range p.ops {
		op.At = op.Block.At.Add(time.Hour)
		early = append(early, marshal(t, op))
	}
	v.ops = append(early, v.ops...)
	v.turnView = nil
	vs = append(vs, v)

	var lines []string
	for i := range merge.MaxReceiverTurns + 1 {
		p := newTurnProducer(t, "msg-"+string(rune('a'+i)), t0, merge.Caps{}).run("", 1, text(string(rune('a'+i))))
		lines = append(lines, p.lines()...)
	}
	lines = append(lines, lines[0], lines[1])
	vs = append(vs, vector{name: "evicted-turns", meta: vectorMeta{Description: "One turn more than a receiver keeps " +
		"(16): the oldest is evicted, and its later ops are refused (dropped_cap) instead of opening it again; the " +
		"others are kept.", Task: "t1"}, ops: lines})
	return vs
}
