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
// the first event when that is a Task (see [Stream.Turn]), or up front by
// [WithTurn].
//
// A recording cannot be resumed: when events ends (or yields an error)
// before the turn settled, the stream ends with an [*IncompleteError]
// carrying the last state and the cause, never with a success. Options that
// concern connections (transport, HTTP client, retries, idle timeout) are
// ignored; WithCaps, WithLogger, WithArtifactProgress, WithCompat and
// WithTurn apply.
func Replay(ctx context.Context, events iter.Seq2[a2a.Event, error], opts ...Option) *Stream {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	cfg.idle = 0 // a recording has no peer that could go silent
	cfg.params = nil
	s := newClient(nil, cfg).newStream(ctx, modeReplay, cfg.replayTask, nil, 0)
	s.events = events
	s.turnID = cfg.replayTurn
	return s
}

// WithTurn names the task and the turn of a [Replay] stream up front, for
// a source that knows them before its first event — one that is not A2A
// and has no user message to name the turn by. [Stream.TaskID] and
// [Stream.Turn] return them at once, every op carries turn, and events
// naming another task are ignored. An empty turn leaves the naming to the
// events. Streams of a [Client] ignore it: Send names its turn by the
// message sent, Follow and Poll by the task's history.
func WithTurn(task a2a.TaskID, turn string) Option {
	return func(c *config) { c.replayTask, c.replayTurn = task, turn }
}

// replay plays s.events once.
func (s *Stream) replay(emit emitFunc) error {
	res := s.attempt(func(context.Context) iter.Seq2[a2a.Event, error] { return s.events }, emit)
	if res.done {
		return res.final
	}
	return &IncompleteError{TaskID: s.TaskID(), State: s.state, Err: res.err}
}
