package terminal

import (
	"errors"
	"io"
	"iter"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/schema"
)

// item is one element of a fake stream.
type item struct {
	ev  a2a.Event
	err error
}

// stream is an iter.Seq2 like a2a-go's, that records how many items were
// pulled.
func stream(pulled *int, items ...item) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		for _, it := range items {
			*pulled++
			if !yield(it.ev, it.err) {
				return
			}
		}
	}
}

func TestTrack(t *testing.T) {
	done := agentMsg("done")
	tests := []struct {
		name       string
		items      []item
		wantState  a2a.TaskState
		wantErr    error
		wantCause  error // for a cut
		wantPulled int
	}{
		{"completed stops pulling", []item{{ev: statusText(a2a.TaskStateWorking, "w")}, {ev: status(a2a.TaskStateCompleted, done)},
			{ev: statusText(a2a.TaskStateFailed, "never read")}}, a2a.TaskStateCompleted, nil, nil, 2},
		{"input-required stops pulling (auth streams may stay open)", []item{{ev: statusText(a2a.TaskStateInputRequired, "?")},
			{ev: statusText(a2a.TaskStateWorking, "never read")}}, a2a.TaskStateInputRequired, nil, nil, 1},
		{"failed", []item{{ev: statusText(a2a.TaskStateFailed, "no")}}, a2a.TaskStateFailed, ErrFailed, nil, 1},
		{"clean end while working is a cut without cause", []item{{ev: statusText(a2a.TaskStateWorking, "w")}},
			a2a.TaskStateWorking, ErrCut, nil, 1},
		{"transport error is a cut with cause", []item{{ev: statusText(a2a.TaskStateWorking, "w")}, {err: io.ErrUnexpectedEOF},
			{ev: status(a2a.TaskStateCompleted, done)}}, a2a.TaskStateWorking, ErrCut, io.ErrUnexpectedEOF, 2},
		{"subscribe refused is a cut with cause", []item{{err: a2a.ErrTaskNotFound}},
			a2a.TaskStateUnspecified, ErrCut, a2a.ErrTaskNotFound, 1},
		{"empty stream", nil, a2a.TaskStateUnspecified, ErrCut, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pulled := 0
			tr := NewTracker()
			got, err := tr.Track(stream(&pulled, tt.items...))
			if diff := cmp.Diff(tt.wantState, got.State); diff != "" {
				t.Errorf("State (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, err, outcomeOpts); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPulled, pulled); diff != "" {
				t.Errorf("items pulled (-want +got):\n%s", diff)
			}
			var ce *CutError
			if errors.As(err, &ce) {
				if diff := cmp.Diff(tt.wantCause, ce.Cause, outcomeOpts); diff != "" {
					t.Errorf("CutError.Cause (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestTrackResumes: a cut stream, then a resubscription on the same
// Tracker, whose snapshot and updates finish the turn.
func TestTrackResumes(t *testing.T) {
	pulled := 0
	tr := NewTracker()
	_, err := tr.Track(stream(&pulled, item{ev: snapshot(a2a.TaskStateSubmitted, nil)},
		item{ev: artifact("a", false, false, "part 1")}, item{err: io.ErrUnexpectedEOF}))
	if !errors.Is(err, ErrCut) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("first Track error = %v, want ErrCut with io.ErrUnexpectedEOF", err)
	}
	got, err := tr.Track(stream(&pulled, item{ev: snapshot(a2a.TaskStateWorking, nil, art("a", "part 1", "part 2"))},
		item{ev: artifact("a", true, true, "part 3")}, item{ev: status(a2a.TaskStateCompleted, agentMsg("ok"))}))
	if err != nil {
		t.Fatalf("second Track error = %v", err)
	}
	want := Outcome{TaskID: taskID, ContextID: ctxID, State: a2a.TaskStateCompleted, Verdict: schema.VerdictCompleted,
		Message: agentMsg("ok"), Reply: "ok", Artifacts: []*a2a.Artifact{art("a", "part 1", "part 2", "part 3")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Outcome (-want +got):\n%s", diff)
	}
}

// TestTrackerConcurrentReads: one goroutine observes while others read;
// run with -race.
func TestTrackerConcurrentReads(t *testing.T) {
	tr := NewTracker()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = tr.EventCounts()
				_ = tr.currentState()
				_ = tr.isSettled()
				_ = tr.assembled()
				_, _ = tr.Outcome()
			}
		}()
	}
	for i := range 200 {
		tr.Observe(artifact("a", i > 0, false, "x"))
		tr.Observe(statusText(a2a.TaskStateWorking, "w"))
	}
	tr.Observe(status(a2a.TaskStateCompleted, nil))
	close(stop)
	wg.Wait()
	if diff := cmp.Diff(EventCounts{Events: 401}, tr.EventCounts()); diff != "" {
		t.Errorf("EventCounts (-want +got):\n%s", diff)
	}
}
