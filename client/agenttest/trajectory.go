package agenttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
)

// A Knob changes how [Trajectory] generates a script.
type Knob func(*trajectoryConfig)

type trajectoryConfig struct {
	name       string
	start      int64
	reorder    int
	duplicate  int
	skip       int
	plain      int
	oversize   bool
	final      a2a.TaskState
	finalSet   bool
	pauseEvery time.Duration
}

// Reorder swaps n pairs of adjacent envelope updates (spread evenly), so
// that n envelopes arrive before the one with the previous seq.
func Reorder(n int) Knob { return func(c *trajectoryConfig) { c.reorder = n } }

// Duplicate delivers n envelope updates (spread evenly) twice.
func Duplicate(n int) Knob { return func(c *trajectoryConfig) { c.duplicate = n } }

// SkipSeqs leaves n gaps in the seq numbering (spread evenly), as a
// callee's bounded queue does when it drops updates.
func SkipSeqs(n int) Knob { return func(c *trajectoryConfig) { c.skip = n } }

// PlainText inserts n plain-text (pre-upgrade) working updates, spread
// evenly between the envelope updates.
func PlainText(n int) Knob { return func(c *trajectoryConfig) { c.plain = n } }

// Oversize inserts, in the middle, one tool_output_append envelope whose
// chunk is [envelope.HardChunkLimit]+1 bytes. [envelope.NewPart] refuses it,
// so it is sent as a Raw step (the spec form, a JSON string under "tfrs");
// a reader must drop it and fall back to its text. It takes a seq of its
// own, which is therefore a gap for the reader.
func Oversize() Knob { return func(c *trajectoryConfig) { c.oversize = true } }

// EndIn sets the Final state ("" for a silent cut).
func EndIn(state a2a.TaskState) Knob {
	return func(c *trajectoryConfig) { c.final, c.finalSet = state, true }
}

// PauseEvery pauses d before every step.
func PauseEvery(d time.Duration) Knob { return func(c *trajectoryConfig) { c.pauseEvery = d } }

// StartSeq sets the first seq (default 1).
func StartSeq(seq int64) Knob { return func(c *trajectoryConfig) { c.start = seq } }

// Named sets the script's Name (default "trajectory-<n>").
func Named(name string) Knob { return func(c *trajectoryConfig) { c.name = name } }

// Trajectory generates a script of n envelope updates, deterministically:
// blocks of a tool call (running), one to three output chunks, every fourth
// block an error, the tool call done and a progress text, starting with a
// thinking block. All in the default stream except the tool blocks, whose
// streamKey is their tool_call_id. It ends completed with the text
// "done: <n> updates" unless [EndIn] says otherwise; the knobs add faults.
func Trajectory(n int, knobs ...Knob) Script {
	c := trajectoryConfig{name: fmt.Sprintf("trajectory-%d", n), start: 1, final: a2a.TaskStateCompleted}
	for _, k := range knobs {
		k(&c)
	}

	type item struct {
		env  envelope.Envelope
		raw  bool // oversize, sent raw
		text string
	}
	var items []item
	add := func(kind envelope.Kind, key string, status envelope.Status, p envelope.Payload) {
		items = append(items, item{env: envelope.Envelope{V: envelope.Version, Kind: kind, StreamKey: key, Status: status, Payload: p}})
	}
	add(envelope.KindThinking, "", envelope.StatusRunning, envelope.Thinking{Text: fmt.Sprintf("planning %d updates", n)})
	for block := 1; len(items) < n; block++ {
		id := fmt.Sprintf("call-%d", block)
		tool := []string{"search", "fetch_page", "run_sql", "ask_colleague"}[block%4]
		add(envelope.KindToolCall, id, envelope.StatusRunning, envelope.ToolCall{Tool: tool, ToolCallID: id})
		for j := range 1 + block%3 {
			add(envelope.KindToolOutputAppend, id, envelope.StatusRunning,
				envelope.ToolOutputAppend{Tool: tool, ToolCallID: id, Chunk: fmt.Sprintf("%s line %d\n", id, j+1)})
		}
		if block%4 == 3 {
			add(envelope.KindError, id, envelope.StatusRunning, envelope.ErrorPayload{Message: id + ": transient failure, retrying"})
		}
		add(envelope.KindToolCall, id, envelope.StatusDone, envelope.ToolCall{Tool: tool, ToolCallID: id})
		add(envelope.KindText, "", envelope.StatusRunning, envelope.Text{Text: fmt.Sprintf("block %d done", block)})
	}
	items = items[:max(n, 0)]
	if c.oversize {
		mid := len(items) / 2
		big := item{raw: true, env: envelope.Envelope{V: envelope.Version, Kind: envelope.KindToolOutputAppend,
			StreamKey: "call-big", Status: envelope.StatusRunning,
			Payload: envelope.ToolOutputAppend{Tool: "dump", ToolCallID: "call-big", Chunk: strings.Repeat("x", envelope.HardChunkLimit+1)}},
			text: "[tool output of 65537 bytes dropped: over the 64 KiB limit]"}
		items = append(items[:mid], append([]item{big}, items[mid:]...)...)
	}

	// Number the seqs, leaving the gaps.
	gaps := asSet(spread(c.skip, len(items)))
	seq := c.start
	for i := range items {
		if gaps[i] {
			seq++
		}
		items[i].env.Seq = seq
		seq++
	}

	steps := make([]Step, 0, len(items)+c.plain)
	for _, it := range items {
		if it.raw {
			steps = append(steps, Step{Raw: rawEnvelopeMessage(it.env, it.text)})
			continue
		}
		e := it.env
		steps = append(steps, Step{Envelope: &e})
	}
	// Swap adjacent pairs: the later seq is sent first.
	for _, i := range spread(c.reorder, len(steps)-1) {
		if i+1 < len(steps) && steps[i].Envelope != nil && steps[i+1].Envelope != nil {
			steps[i], steps[i+1] = steps[i+1], steps[i]
		}
	}
	for _, i := range spread(c.duplicate, len(steps)) {
		steps[i].Repeat = 1
	}
	if c.plain > 0 {
		at := asSet(spread(c.plain, len(steps)+1))
		var out []Step
		k := 0
		for i := 0; i <= len(steps); i++ {
			if at[i] {
				k++
				out = append(out, Step{Text: fmt.Sprintf("plain-text progress %d", k)})
			}
			if i < len(steps) {
				out = append(out, steps[i])
			}
		}
		steps = out
	}
	if c.pauseEvery > 0 {
		for i := range steps {
			steps[i].Pause = c.pauseEvery
		}
	}
	sc := Script{Name: c.name, Steps: steps, Final: c.final}
	switch sc.Final {
	case a2a.TaskStateCompleted:
		sc.FinalText = fmt.Sprintf("done: %d updates", n)
	case a2a.TaskStateFailed, a2a.TaskStateRejected:
		sc.FinalText = "the callee gave up"
	case a2a.TaskStateCanceled:
		sc.FinalText = "canceled"
	case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		sc.FinalText = "which warehouse should I use?"
	}
	return sc
}

// spread returns k of the positions 0..n-1, evenly spaced and ascending
// (at most n of them).
func spread(k, n int) []int {
	if k <= 0 || n <= 0 {
		return nil
	}
	k = min(k, n)
	out := make([]int, k)
	for j := range k {
		out[j] = (2*j + 1) * n / (2 * k)
	}
	return out
}

func asSet(pos []int) map[int]bool {
	out := make(map[int]bool, len(pos))
	for _, p := range pos {
		out[p] = true
	}
	return out
}

// rawEnvelopeMessage builds the message of an envelope that NewPart would
// refuse (an oversize chunk): the spec form, hand-encoded.
func rawEnvelopeMessage(e envelope.Envelope, text string) *a2a.Message {
	wire := map[string]any{"v": e.V, "kind": e.Kind, "seq": e.Seq, "status": e.Status, "payload": e.Payload}
	if e.StreamKey != "" {
		wire["streamKey"] = e.StreamKey
	}
	b, err := json.Marshal(wire)
	if err != nil {
		panic(err) // only static types above
	}
	p := a2a.NewTextPart(text)
	p.Metadata = map[string]any{envelope.MetadataKey: string(b)}
	// No messageId: the executor gives each execution its own, and the
	// script stays deterministic.
	return &a2a.Message{Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{p}}
}
