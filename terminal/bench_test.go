package terminal

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// BenchmarkObserve is the per-event cost of a turn: working status updates,
// each with a progress message, and the final completed one. Each turn
// starts a new Tracker, as a caller does per turn.
//
//	go test ./terminal -run '^$' -bench BenchmarkObserve -benchmem -count 6
func BenchmarkObserve(b *testing.B) {
	const n = 100
	turn := make([]a2a.Event, 0, n+1)
	for range n {
		turn = append(turn, statusText(a2a.TaskStateWorking, "searching the index"))
	}
	turn = append(turn, statusText(a2a.TaskStateCompleted, "done"))
	b.ReportAllocs()
	for b.Loop() {
		tr := NewTracker()
		for _, ev := range turn {
			tr.Observe(ev)
		}
		if tr.currentState() != a2a.TaskStateCompleted {
			b.Fatalf("state %s, want completed", tr.currentState())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(turn)), "ns/event")
}
