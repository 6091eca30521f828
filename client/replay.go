package client

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Replay runs a sequence of events that did not come from a live call — a
// recorded stream, events from another transport — through exactly the
// pipeline of a live [Stream]: envelope reading, merge, terminal verdict,
// the same updates and the same Outcome and View. Its turn is named by
// the first event when that is a Task (see [Stream.Turn]).
//
// A recording cannot be resumed: when events ends (or yields an error)
// before the turn settled, the stream ends with an [*IncompleteError]
// carrying the last state and the cause, never with a success. Options that
// concern connections (transport, HTTP client, retries, idle timeout) are
// ignored; WithCaps, WithLogger and WithArtifactProgress apply.
func Replay(ctx context.Context, events iter.Seq2[a2a.Event, error], opts ...Option) *Stream {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	cfg.idle = 0 // a recording has no peer that could go silent
	cfg.params = nil
	s := newClient(nil, cfg).newStream(ctx, modeReplay, "", nil, 0)
	s.events = events
	return s
}

// replay plays s.events once.
func (s *Stream) replay(emit emitFunc) error {
	res := s.attempt(func(context.Context) iter.Seq2[a2a.Event, error] { return s.events }, emit)
	if res.done {
		return res.final
	}
	return &IncompleteError{TaskID: s.TaskID(), State: s.state, Err: res.err}
}
