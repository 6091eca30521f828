package terminal

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

// Outcome is the result of a turn, decided by its task state alone.
//
// Err is nil only for completed and interrupted turns. Fields that hold
// the reply (Message, Reply, Artifacts) are empty for a cut, so a cut read
// carelessly looks empty, never like an answer.
type Outcome struct {
	// TaskID is the task's id: the first one observed ("" for a direct
	// Message reply without one).
	TaskID a2a.TaskID
	// ContextID is the first context id observed.
	ContextID string
	// State is the final (or, for a cut, the last) state, canonical.
	State a2a.TaskState
	// Verdict is how the turn ended, in one word, decided by State alone
	// (the one table, [schema.VerdictOf]): [schema.VerdictIncomplete] for a
	// cut, input-required or auth-required for an interrupt, completed,
	// failed, canceled or rejected when the task is over.
	Verdict schema.Verdict
	// Message is the status message of the final state, or the direct
	// Message reply. It is shared with the event it came from: do not
	// modify it. nil for a cut.
	Message *a2a.Message
	// Reply is the text parts of Message joined with "\n" for a completed
	// turn (its answer, when that is not only in Artifacts — see
	// [schema.Result.Answer]); "" for any other verdict, so a failure's
	// reason or a question is never read as a reply.
	Reply string
	// Reason is the callee's reason for failed, rejected and canceled: the
	// text of Message, as [VerdictError.Reason] has it. "" otherwise.
	Reason string
	// Artifacts are the task's artifacts, assembled from the updates (or
	// taken from the last snapshot), in order of first appearance, without
	// those the progress seam routed away. They are copies; the parts are
	// shared with the events. nil for a cut and for a direct Message reply.
	Artifacts []*a2a.Artifact
	// Truncated reports that a [Limits] bound was hit: Artifacts are
	// incomplete.
	Truncated bool
	// Interrupt is set for input-required and auth-required, nil otherwise:
	// the question (the structured interrupt's message, else Reply) and
	// the items of the runtime's _interrupt metadata
	// ([InterruptMetadataKey]), as the peer sent them (uncut; [Outcome.Result]
	// cuts them). The state and the status message are [Outcome.State] and
	// [Outcome.Message].
	Interrupt *schema.Interrupt
	// Err is a [*VerdictError] for failed, rejected and canceled, a
	// [*CutError] for a cut, and nil for completed and interrupted.
	Err error
}

// Outcome returns the outcome of the turn so far.
//
//   - completed: the reply, and a nil error.
//   - input-required, auth-required: Outcome.Interrupt, and a nil error —
//     the turn is over, the task is not; respond on Outcome.TaskID.
//   - failed, rejected, canceled: a [*VerdictError] (errors.Is ErrFailed,
//     ErrRejected, ErrCanceled), also in Outcome.Err.
//   - anything else (no settled state observed yet): a [*CutError]
//     (errors.Is ErrCut), also in Outcome.Err. Call Outcome when the stream
//     has ended; a cut means resubscribe or GetTask and keep observing with
//     the same Tracker.
func (t *Tracker) Outcome() (Outcome, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outcome(nil)
}

// outcome builds the Outcome; cause, for a cut, is the error that ended
// the stream.
func (t *Tracker) outcome(cause error) (Outcome, error) {
	o := Outcome{TaskID: t.taskID, ContextID: t.contextID, State: t.state, Verdict: schema.VerdictOf(string(t.state))}
	if o.Verdict == schema.VerdictIncomplete {
		o.Err = &CutError{TaskID: t.taskID, LastState: t.state, Events: t.c.Events, Cause: cause}
		return o, o.Err
	}
	o.Message = t.msg
	text := envelope.MessageText(t.msg)
	o.Artifacts = t.arts.snapshot()
	o.Truncated = t.arts.full
	switch schema.VerdictOf(string(t.state)) {
	case schema.VerdictCompleted:
		o.Reply = text
	case schema.VerdictInputRequired, schema.VerdictAuthRequired:
		q := t.question
		if q == "" {
			q = text
		}
		o.Interrupt = &schema.Interrupt{Question: q, Items: append([]schema.InterruptItem(nil), t.items...)}
	case schema.VerdictFailed, schema.VerdictRejected, schema.VerdictCanceled:
		o.Reason = text
		o.Err = &VerdictError{TaskID: t.taskID, State: t.state, Reason: text, Message: t.msg}
	}
	return o, o.Err
}
