package bench

import (
	"context"
	"runtime"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
)

// replayEvents is a turn of n working updates from agenttest.Trajectory(n),
// decoded ahead of time: what a2a-go hands the client.
func replayEvents(tb testing.TB, n int) []a2a.Event {
	info := a2a.TaskInfo{TaskID: "task-1", ContextID: "ctx-1"}
	user := &a2a.Message{ID: "u-1", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("go")}}
	evs := []a2a.Event{&a2a.Task{ID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}, History: []*a2a.Message{user}}}
	for _, st := range agenttest.Trajectory(n).Steps {
		ev, err := envelope.NewStatusUpdate(info, *st.Envelope, st.Text)
		if err != nil {
			tb.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return append(evs, a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted,
		&a2a.Message{ID: "m-final", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("done")}}))
}

// BenchmarkPipeline is the client's own work per event, without a2a-go's
// transport and decoding: a turn of n events decoded ahead of time,
// replayed through client.Replay (envelope read, merge, verdict, one
// Update per event), under the default caps and under open caps (every
// block applied). Each iteration is one turn; the metrics are per event.
//
//	go test ./client/internal/bench -run '^$' -bench Pipeline -count 6
func BenchmarkPipeline(b *testing.B) {
	const n = 20_000
	evs := replayEvents(b, n)
	events := func(yield func(a2a.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
	}
	for _, tc := range []struct {
		name string
		opts []client.Option
	}{
		{"caps=default", nil},
		{"caps=open", []client.Option{client.WithCaps(OpenCaps(n))}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for b.Loop() {
				r, err := sdk(client.Replay(ctx, events, tc.opts...), nil)
				if err != nil || r.Progress != n {
					b.Fatalf("%+v %v", r, err)
				}
			}
			runtime.ReadMemStats(&m1)
			total := float64(b.N * len(evs))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/event")
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/total, "allocs/event")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/total, "B/event")
			b.ReportMetric(0, "ns/op")
		})
	}
}
