package frontend

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay/internal/sse"
	"github.com/tfrs/a2a-progress/schema"
)

// discardWriter is a ResponseWriter that counts and drops what is written.
type discardWriter struct {
	h http.Header
	n int64
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Flush()                      {}

// BenchmarkFrontFormats encodes the live ops of one turn (a generated
// trajectory of n envelopes, in order) for one subscriber in each format:
// ns/op, B/op and allocs/op are per turn; ns/, B/ and allocs/forwarded-op
// per op (cpu-ns/forwarded-op: the process's CPU time, GC included, which a
// loaded host inflates less than wall time), wire-B/forwarded-op what the
// subscriber receives per op. The
// front-end formats tell an in-order op without rendering the view, so
// their cost per op must not grow with the turn (compare blocks=100 and
// blocks=3000; the trajectory at 3000 passes the stream-key cap, past
// which the merge drops the calls and the seqs have gaps); ops is the
// baseline. late=10% swaps a tenth of the envelopes with the one before
// (agenttest.Reorder): each lands before the op already told, which the
// front-end formats render the view for — the cost that must stay within
// 2x of in order at blocks=10000 (issue #33).
func BenchmarkFrontFormats(b *testing.B) {
	for _, c := range []struct{ n, late int }{{100, 0}, {3000, 0}, {10000, 0}, {10000, 10}} {
		n := c.n
		sc := agenttest.Trajectory(n, agenttest.Reorder(n*c.late/100))
		turn := merge.NewTurn("task-1", "", merge.Caps{})
		var evs []sse.Event
		for _, e := range sc.Envelopes() {
			ch := turn.Apply(envelope.Reading{Envelope: e})
			if ch.Effect != merge.Applied {
				continue
			}
			data, _ := json.Marshal(ch.Op)
			evs = append(evs, sse.Event{Op: ch.Op, JSON: data})
		}
		seal := turn.Seal()
		data, _ := json.Marshal(seal)
		evs = append(evs, sse.Event{Op: seal, JSON: data})
		benchFormats(b, fmt.Sprintf("blocks=%d/late=%d%%", n, c.late), evs)
	}
}

// BenchmarkFrontLongCall is BenchmarkFrontFormats for one tool call whose
// output grows by 3 000 chunks of 16 bytes (48 KB): the AI SDK's
// preliminary outputs carry a bounded tail, so its cost per op must not
// grow with the output (issue #33: it re-sent the whole output per chunk).
func BenchmarkFrontLongCall(b *testing.B) {
	rs, _ := longCallOf(3000, "0123456789abcde\n")
	turn := merge.NewTurn("task-1", "", merge.Caps{})
	var evs []sse.Event
	for _, r := range rs {
		if ch := turn.Apply(r); ch.Effect == merge.Applied {
			data, _ := json.Marshal(ch.Op)
			evs = append(evs, sse.Event{Op: ch.Op, JSON: data})
		}
	}
	seal := turn.Seal()
	data, _ := json.Marshal(seal)
	evs = append(evs, sse.Event{Op: seal, JSON: data})
	benchFormats(b, "chunks=3000", evs)
}

// benchFormats encodes evs for one subscriber in each format, as
// BenchmarkFrontFormats says.
func benchFormats(b *testing.B, name string, evs []sse.Event) {
	formats := []struct {
		name string
		enc  func() sse.Encoder
	}{
		{"ops", func() sse.Encoder { return opsEncoder{} }}, // the baseline
		{FormatAGUI, func() sse.Encoder { return newAGUIStream("thread", "run", nil, false) }},
		{FormatAISDK, func() sse.Encoder { return newAISDKStream(false) }},
	}
	for _, f := range formats {
		b.Run(f.name+"/"+name, func(b *testing.B) {
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			cpu0 := cpuNanos()
			for b.Loop() {
				ew := newEventWriter(w)
				enc := f.enc()
				for _, ev := range evs {
					if err := enc.Op(ew, ev); err != nil {
						b.Fatal(err)
					}
				}
				_ = enc.End(ew, true)
			}
			cpu := cpuNanos() - cpu0
			runtime.ReadMemStats(&m1)
			ops := float64(b.N) * float64(len(evs))
			b.ReportMetric(float64(cpu)/ops, "cpu-ns/forwarded-op")
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/ops, "allocs/forwarded-op")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/ops, "B/forwarded-op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops, "ns/forwarded-op")
			b.ReportMetric(float64(w.n)/ops, "wire-B/forwarded-op")
		})
	}
}

// BenchmarkNestedFormats encodes one callee turn (a generated trajectory of
// n envelopes, in order) nested in a caller's run: as an AG-UI sub-agent
// (aguiSubagent, events dropped) and as a useChat tool part's paced
// preliminary outputs (chatTool with its defaults, a clock that moves 1 ms
// per op, parts dropped). ns/, B/ and allocs/forwarded-op are per op of the
// callee; neither may grow with the turn, nor, within 2x, with a tenth of
// the envelopes late (late=10%, as in BenchmarkFrontFormats).
func BenchmarkNestedFormats(b *testing.B) {
	for _, c := range []struct{ n, late int }{{100, 0}, {3000, 0}, {3000, 10}} {
		n, suffix := c.n, ""
		if c.late > 0 {
			suffix = fmt.Sprintf("/late=%d%%", c.late)
		}
		var rs []envelope.Reading
		for _, e := range agenttest.Trajectory(n, agenttest.Reorder(n*c.late/100)).Envelopes() {
			rs = append(rs, envelope.Reading{Envelope: e})
		}
		us := calleeUpdates("task-1", rs, schema.Result{Verdict: schema.VerdictCompleted, State: "TASK_STATE_COMPLETED", Reply: "done"})
		var applied int
		for _, u := range us {
			if _, ok := u.Op(); ok {
				applied++
			}
		}
		formats := []struct {
			name string
			run  func()
		}{
			{"ag-ui-subagent", func() {
				run := NewAGUIRun(func(map[string]any) error { return nil })
				sub, _ := run.start("call-1", SubagentOptions{})
				for _, u := range us {
					_ = sub.Update(u)
				}
				_, _ = sub.End(nil)
			}},
			{"ai-sdk-tool", func() {
				cs := NewChatStream()
				clock := &fakeClock{t: time.Unix(0, 0)}
				tool := cs.startTool("call-1", ChatToolOptions{})
				tool.now, tool.after = clock.now, clock.after
				for _, u := range us {
					_ = tool.Update(u)
					clock.advance(time.Millisecond)
				}
				_, _ = tool.End(nil)
			}},
		}
		for _, f := range formats {
			b.Run(fmt.Sprintf("%s/blocks=%d%s", f.name, n, suffix), func(b *testing.B) {
				b.ReportAllocs()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				cpu0 := cpuNanos()
				for b.Loop() {
					f.run()
				}
				cpu := cpuNanos() - cpu0
				runtime.ReadMemStats(&m1)
				ops := float64(b.N) * float64(applied)
				b.ReportMetric(float64(cpu)/ops, "cpu-ns/forwarded-op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops, "ns/forwarded-op")
				b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/ops, "allocs/forwarded-op")
				b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/ops, "B/forwarded-op")
			})
		}
	}
}

// opsEncoder writes each op as relay's own FormatOps does: the baseline the
// front-end encoders are measured against.
type opsEncoder struct{}

func (opsEncoder) Begin(http.Header, *sse.EventWriter) error { return nil }
func (opsEncoder) SnapshotStart(*sse.EventWriter) error      { return nil }
func (opsEncoder) SnapshotEnd(*sse.EventWriter) error        { return nil }
func (opsEncoder) Op(ew *sse.EventWriter, ev sse.Event) error {
	return ew.Event(ev.ID, "", ev.JSON)
}
func (opsEncoder) End(*sse.EventWriter, bool) error { return nil }
