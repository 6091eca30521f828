package heldcall

import (
	"iter"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The price of Send's read-ahead per event: the first attempt of a send
// pulls its events through iter.Pull2 (a coroutine switch per event)
// instead of ranging over a2a-go's iterator. Both benchmarks deliver the
// same events to the same loop; only the way they are pulled differs.

func eventSeq(n int) iter.Seq2[a2a.Event, error] {
	ev := &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	return func(yield func(a2a.Event, error) bool) {
		for range n {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

const readAheadEvents = 2000

func BenchmarkEventsRanged(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		n := 0
		for ev, err := range eventSeq(readAheadEvents) {
			if err != nil || ev == nil {
				b.Fatal(err)
			}
			n++
		}
		if n != readAheadEvents {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*readAheadEvents), "ns/event")
}

func BenchmarkEventsReadAhead(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		call := Open(eventSeq(readAheadEvents), nil, func() {})
		if !call.Take() {
			b.Fatal("not taken")
		}
		n := 0
		for ev, err := range call.Events() {
			if err != nil || ev == nil {
				b.Fatal(err)
			}
			n++
		}
		call.Close()
		if n != readAheadEvents {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*readAheadEvents), "ns/event")
}
