package terminal

import (
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Track observes the events of a stream — what a2a-go's
// SendStreamingMessage and SubscribeToTask return — until the turn settles
// or the stream ends, and returns [Tracker.Outcome].
//
// It stops pulling at the first terminal or interrupted state: the turn is
// over, and an auth-required stream may stay open. A stream that ends
// before, cleanly or with an error, is a cut: the [*CutError] carries the
// stream's error as Cause (nil for a clean end). To resume, call Track
// again on the same Tracker with the events of SubscribeToTask(TaskID), or
// Observe the Task that GetTask returns.
func (t *Tracker) Track(events iter.Seq2[a2a.Event, error]) (Outcome, error) {
	var cause error
	for ev, err := range events {
		if err != nil {
			cause = err
			break
		}
		if t.Observe(ev).Settled {
			break
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if classify(t.state) != classInProgress {
		cause = nil
	}
	return t.outcome(cause)
}
