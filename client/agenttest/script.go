package agenttest

import (
	"errors"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
)

// Step is one scripted update of a trajectory. Exactly one of Envelope, Text,
// Raw and Artifact may be set; a Step with none of them sends nothing and
// only waits (Pause, Gate).
type Step struct {
	// Envelope is sent in a working status update built by
	// [envelope.NewStatusUpdate], with Text (or [envelope.DefaultText] when
	// Text is "") as the human-readable fallback.
	Envelope *envelope.Envelope
	// Text, with Envelope == nil, is a plain-text (pre-upgrade) working
	// update: one text part, no metadata.
	Text string
	// Raw is an escape hatch: a working status update carrying this message
	// as-is (role, parts and metadata are kept; the task and context ids are
	// filled in, and a messageId is generated when empty). Use it for broken
	// envelopes, several parts, the object form, oversize chunks…
	Raw *a2a.Message
	// Artifact sends an artifact update instead of a status update. Its
	// TaskID and ContextID are filled in by the executor.
	Artifact *a2a.TaskArtifactUpdateEvent
	// Pause sleeps before this step (cut short when the execution is
	// canceled or the server closes).
	Pause time.Duration
	// Gate blocks before this step until [Agent.Release] is called with
	// the same name (or the execution is canceled, or the server closes).
	// A gate released earlier does not block.
	Gate string
	// Repeat sends this step's update Repeat more times: true duplicates,
	// the very same message (same messageId) delivered again.
	Repeat int
}

// Script is a scripted trajectory: the updates a callee sends for one turn
// and how the turn ends.
type Script struct {
	// Name selects the script: the executor plays the registered script
	// whose Name equals the text of the incoming user message.
	Name string
	// Steps are played in order.
	Steps []Step
	// Artifacts are the reply artifacts, sent after the steps and before
	// the final state (not sent when Final is "").
	Artifacts []*a2a.Artifact
	// Final is the state the turn ends in: completed, failed, canceled,
	// rejected, input-required or auth-required.
	//
	// "" ends the stream WITHOUT a terminal state (a silent cut): after the
	// steps every open stream of the task is closed cleanly, a later
	// SubscribeToTask gets the Task snapshot (state working) and is closed
	// right after it, and the task stays working until the server closes.
	//
	// auth-required does not end an a2asrv execution, so the server closes
	// the streams of the task right after that status, as A2A 1.0 says a
	// stream closes at an interrupted state; the task then stays
	// auth-required until the server closes.
	Final a2a.TaskState
	// FinalText is the text of the final status message (the reply, the
	// failure reason, the question). With FinalText == "" and FinalMeta ==
	// nil the final status has no message.
	FinalText string
	// FinalMeta is the metadata of the final status message, e.g. the
	// `_interrupt` object of PROTOCOL.md §5.2. Values must be JSON-native (string,
	// float64, bool, nil, map[string]any, []any): a2asrv deep-copies tasks
	// through gob and silently fails a task holding anything else.
	FinalMeta map[string]any
}

// finalStates are the states a Script may end in, besides "".
var finalStates = map[a2a.TaskState]bool{
	a2a.TaskStateCompleted:     true,
	a2a.TaskStateFailed:        true,
	a2a.TaskStateCanceled:      true,
	a2a.TaskStateRejected:      true,
	a2a.TaskStateInputRequired: true,
	a2a.TaskStateAuthRequired:  true,
}

// validate reports the first problem that would keep the script from being
// played: a step with more than one payload, an invalid envelope, a
// negative Repeat, a Final that is not a terminal or interrupted state, or
// metadata that is not JSON-native.
func (sc Script) validate() error {
	for i, st := range sc.Steps {
		n := 0
		for _, set := range []bool{st.Envelope != nil, st.Text != "" && st.Envelope == nil, st.Raw != nil, st.Artifact != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			return fmt.Errorf("agenttest: script %q: step %d: set only one of Envelope, Text, Raw, Artifact", sc.Name, i)
		}
		if st.Repeat < 0 {
			return fmt.Errorf("agenttest: script %q: step %d: negative Repeat", sc.Name, i)
		}
		if st.Envelope != nil {
			if _, err := envelope.NewPart(*st.Envelope, st.Text); err != nil {
				return fmt.Errorf("agenttest: script %q: step %d: %w", sc.Name, i, err)
			}
		}
		if st.Raw != nil {
			if err := jsonNative(st.Raw.Metadata); err != nil {
				return fmt.Errorf("agenttest: script %q: step %d: message metadata: %w", sc.Name, i, err)
			}
			for j, p := range st.Raw.Parts {
				if err := jsonNative(p.Metadata); err != nil {
					return fmt.Errorf("agenttest: script %q: step %d: part %d metadata: %w", sc.Name, i, j, err)
				}
			}
		}
		if st.Artifact != nil && st.Artifact.Artifact == nil {
			return fmt.Errorf("agenttest: script %q: step %d: artifact update without an artifact", sc.Name, i)
		}
	}
	if sc.Final != "" && !finalStates[sc.Final] {
		return fmt.Errorf("agenttest: script %q: final state %q is neither terminal nor interrupted", sc.Name, sc.Final)
	}
	if err := jsonNative(sc.FinalMeta); err != nil {
		return fmt.Errorf("agenttest: script %q: FinalMeta: %w", sc.Name, err)
	}
	return nil
}

// Envelopes lists the envelopes the script sends through its Envelope
// steps, in sending order, a repeated step once per delivery. It is what a
// caller that reads every working update of an uninterrupted stream parses
// (Raw steps are not included: they are free-form).
func (sc Script) Envelopes() []envelope.Envelope {
	var out []envelope.Envelope
	for _, st := range sc.Steps {
		if st.Envelope == nil {
			continue
		}
		for range st.Repeat + 1 {
			out = append(out, *st.Envelope)
		}
	}
	return out
}

// WithPause returns a copy of sc whose every step pauses d first; the demo
// uses it to make a trajectory watchable.
func (sc Script) WithPause(d time.Duration) Script {
	steps := make([]Step, len(sc.Steps))
	copy(steps, sc.Steps)
	for i := range steps {
		steps[i].Pause = d
	}
	sc.Steps = steps
	return sc
}

// withName returns a copy of sc named name.
func (sc Script) withName(name string) Script {
	sc.Name = name
	return sc
}

var errNotJSONNative = errors.New("value is not JSON-native")

// jsonNative checks that v holds only what a JSON decoder produces:
// a2asrv deep-copies tasks through gob, and anything else (a
// map[string]string, an int) silently fails the task.
func jsonNative(v any) error {
	switch v := v.(type) {
	case nil, string, float64, bool:
		return nil
	case map[string]any:
		for k, e := range v {
			if err := jsonNative(e); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	case []any:
		for i, e := range v {
			if err := jsonNative(e); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	default:
		return fmt.Errorf("%w: %T", errNotJSONNative, v)
	}
}
