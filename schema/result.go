package schema

import (
	"fmt"
	"strings"
)

// Verdict is how a turn ended, in one word a front end can switch on.
type Verdict string

// The verdicts. The first six follow the task state that settled the turn;
// incomplete says that no such state could be observed.
const (
	// VerdictCompleted: the task completed; Result.Reply and
	// Result.Artifacts hold the answer.
	VerdictCompleted Verdict = "completed"
	// VerdictFailed: the task failed; Result.Error holds the callee's
	// reason, when it gave one.
	VerdictFailed Verdict = "failed"
	// VerdictRejected: the callee refused the task without starting it.
	VerdictRejected Verdict = "rejected"
	// VerdictCanceled: the task was canceled.
	VerdictCanceled Verdict = "canceled"
	// VerdictInputRequired: the turn ended on a question
	// (Result.Interrupt); the task goes on when the caller answers on
	// the same task, in a new turn.
	VerdictInputRequired Verdict = "input-required"
	// VerdictAuthRequired: like VerdictInputRequired, for credentials.
	VerdictAuthRequired Verdict = "auth-required"
	// VerdictIncomplete: the turn could not be brought to an end (the
	// stream was cut and the task could not be resolved); Result.Error
	// says why. It is never a success: the task may still be running.
	VerdictIncomplete Verdict = "incomplete"
)

// VerdictOf returns the verdict of an A2A 1.0 task state name: the settled
// states map to their verdict, every other state (submitted, working,
// unspecified, "", an unknown name) to VerdictIncomplete.
//
// It is the one table from a task state to a verdict: [Result.Validate]
// checks a result's verdict against it, and package terminal classifies
// every event with it. A switch, which Go compiles to a search by length
// and value: a few nanoseconds, without hashing.
func VerdictOf(state string) Verdict {
	switch state {
	case "TASK_STATE_COMPLETED":
		return VerdictCompleted
	case "TASK_STATE_FAILED":
		return VerdictFailed
	case "TASK_STATE_REJECTED":
		return VerdictRejected
	case "TASK_STATE_CANCELED":
		return VerdictCanceled
	case "TASK_STATE_INPUT_REQUIRED":
		return VerdictInputRequired
	case "TASK_STATE_AUTH_REQUIRED":
		return VerdictAuthRequired
	}
	return VerdictIncomplete
}

// Result is the authoritative result of a turn, as a front end gets it
// in the result op: a JSON form of the verdict that package terminal
// decides from the task state alone (terminal.Outcome.Result builds it).
// Progress never changes it.
//
// In the result op its fields are flat, next to type, task and turn:
//
//	{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_INPUT_REQUIRED",
//	 "verdict":"input-required","interrupt":{"question":"Approve?","items":[
//	 {"toolCallId":"call-9","toolName":"expense-review","message":"Approve?"}]},
//	 "context":"c1","counters":{"applied":12,…}}
type Result struct {
	// State is the A2A 1.0 name of the state that settled the turn
	// (TASK_STATE_COMPLETED, …); for an incomplete turn the last state
	// observed, or "" when there was none.
	State string `json:"state"`
	// Verdict is how the turn ended; it agrees with State (see
	// [VerdictOf]).
	Verdict Verdict `json:"verdict"`
	// Reply is the text of the completing status message (or of a direct
	// Message reply): completed only.
	Reply string `json:"reply,omitempty"`
	// Artifacts are the task's output artifacts (never the progress that a
	// peer sent in the artifact channel), when the turn settled.
	Artifacts []Artifact `json:"artifacts,omitempty"`
	// ArtifactsTruncated reports that the caller's memory bounds cut
	// Artifacts.
	ArtifactsTruncated bool `json:"artifactsTruncated,omitempty"`
	// Interrupt is the question of an input-required or auth-required
	// turn; nil otherwise.
	Interrupt *Interrupt `json:"interrupt,omitempty"`
	// Error is, for failed, rejected and canceled, the callee's reason
	// (the text of the final status message; "" when it gave none), and
	// for incomplete why the turn could not be ended.
	Error string `json:"error,omitempty"`
	// Context is the A2A context id of the task ("" when none was seen).
	Context string `json:"context,omitempty"`
	// Counters are the producing Turn's counters when it was sealed (the
	// receiver's own counters describe the ops it got; these describe the
	// events the caller got).
	Counters Counters `json:"counters"`
}

// Answer returns the answer of the turn: the reply when it is not empty,
// else the text of the artifacts that have text, joined with "\n" (a
// callee may put its whole answer in artifacts and leave the final status
// message empty). It is "" when there is neither. Check Verdict first: a
// turn that did not complete has no reply, and its artifacts, if any, are
// what it produced before it ended (PROTOCOL.md §4.3).
func (r *Result) Answer() string {
	if r.Reply != "" {
		return r.Reply
	}
	var texts []string
	for _, a := range r.Artifacts {
		if a.Text != "" {
			texts = append(texts, a.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Artifact is one output artifact of a completed turn, reduced to what a
// front end shows.
type Artifact struct {
	// ID is the artifact id.
	ID string `json:"id"`
	// Name is the artifact's name ("" when it has none).
	Name string `json:"name,omitempty"`
	// Text is its text parts joined with "\n".
	Text string `json:"text"`
}

// Interrupt is the question that ended an input-required or auth-required
// turn.
type Interrupt struct {
	// Question is the question in words: the structured interrupt's
	// message when the peer sent one (PROTOCOL.md §5.2), else the status
	// message's text.
	Question string `json:"question"`
	// Items are the tool calls waiting for the answer, in order; nil when
	// the peer named none.
	Items []InterruptItem `json:"items,omitempty"`
}

// InterruptItem is one question of an interrupt, tied to the tool call that
// asked it. Any field may be "".
type InterruptItem struct {
	// ToolCallID is the id of the tool call waiting for the answer.
	ToolCallID string `json:"toolCallId"`
	// ToolName names the tool (for a remote invocation, the remote agent).
	ToolName string `json:"toolName"`
	// Message is the question, in words.
	Message string `json:"message"`
}

// Validate checks that r is a result a Turn could have sent: a known
// verdict that agrees with the state, a reply only when completed, an
// interrupt only when interrupted, counters that are not negative. The
// error wraps [ErrBadOp] and says what is wrong.
func (r *Result) Validate() error {
	switch got := VerdictOf(r.State); {
	case r.Verdict == VerdictIncomplete:
		if got != VerdictIncomplete {
			return fmt.Errorf("%w: result: verdict incomplete with the settled state %q", ErrBadOp, r.State)
		}
	case got != r.Verdict:
		return fmt.Errorf("%w: result: verdict %q with state %q (whose verdict is %s)", ErrBadOp, r.Verdict, r.State, got)
	}
	if r.Reply != "" && r.Verdict != VerdictCompleted {
		return fmt.Errorf("%w: result: a reply with verdict %s", ErrBadOp, r.Verdict)
	}
	interrupted := r.Verdict == VerdictInputRequired || r.Verdict == VerdictAuthRequired
	if r.Interrupt != nil && !interrupted {
		return fmt.Errorf("%w: result: an interrupt with verdict %s", ErrBadOp, r.Verdict)
	}
	if c := &r.Counters; c.Applied < 0 || c.Duplicates < 0 || c.Conflicts < 0 || c.Late < 0 || c.Gaps < 0 ||
		c.DroppedAfterSeal < 0 || c.DroppedByCap < 0 || c.Invalid < 0 {
		return fmt.Errorf("%w: result: a negative counter", ErrBadOp)
	}
	for reason, n := range r.Counters.Fallbacks {
		if n < 0 || !isFallbackReason(reason) {
			return fmt.Errorf("%w: result: fallback counter %q = %d", ErrBadOp, reason, n)
		}
	}
	return nil
}
