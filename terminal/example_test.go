package terminal_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/terminal"
)

// events stands in for a2a-go's SendStreamingMessage / SubscribeToTask:
// it yields the events, then err if not nil.
func events(err error, evs ...a2a.Event) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}

var task = a2a.TaskInfo{TaskID: "task-7", ContextID: "ctx-7"}

func agentText(text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart(text))
}

// A turn that completes: the reply is the final status message and the
// assembled artifacts; the working message before it is only progress.
func Example() {
	stream := events(nil,
		&a2a.Task{ID: task.TaskID, ContextID: task.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}},
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, agentText("searching flights…")),
		&a2a.TaskArtifactUpdateEvent{TaskID: task.TaskID, ContextID: task.ContextID,
			Artifact: &a2a.Artifact{ID: "itinerary", Parts: a2a.ContentParts{a2a.NewTextPart("PEK→SFO 09:40")}}},
		&a2a.TaskArtifactUpdateEvent{TaskID: task.TaskID, ContextID: task.ContextID, Append: true, LastChunk: true,
			Artifact: &a2a.Artifact{ID: "itinerary", Parts: a2a.ContentParts{a2a.NewTextPart("SFO→PEK 13:15")}}},
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, agentText("Booked two flights.")),
	)

	out, err := terminal.NewTracker().Track(stream)
	if err != nil {
		fmt.Println("no answer:", err)
		return
	}
	fmt.Println(out.Verdict, out.State)
	fmt.Println("reply:", out.Reply)
	for _, a := range out.Artifacts {
		for _, p := range a.Parts {
			fmt.Printf("%s: %s\n", a.ID, p.Text())
		}
	}
	// Output:
	// completed TASK_STATE_COMPLETED
	// reply: Booked two flights.
	// itinerary: PEK→SFO 09:40
	// itinerary: SFO→PEK 13:15
}

// A stream that is cut while the task works has no outcome. The caller
// resubscribes (here: a second stream starting with the Task snapshot) and
// keeps the same Tracker.
func Example_cut() {
	tr := terminal.NewTracker()
	out, err := tr.Track(events(io.ErrUnexpectedEOF,
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, agentText("Done! (almost)"))))
	fmt.Println(errors.Is(err, terminal.ErrCut), out.Reply == "", out.Err != nil)
	fmt.Println(err)

	// client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: out.TaskID})
	out, err = tr.Track(events(nil,
		&a2a.Task{ID: task.TaskID, ContextID: task.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}},
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, agentText("All done."))))
	fmt.Println(out.State, err, out.Reply)
	// Output:
	// true true true
	// terminal: stream ended before the turn settled (task "task-7", last state TASK_STATE_WORKING): unexpected EOF
	// TASK_STATE_COMPLETED <nil> All done.
}

// Failed, rejected and canceled turns are errors; errors.Is tells them
// apart and the verdict error carries the reason.
func Example_verdict() {
	for _, st := range []a2a.TaskState{a2a.TaskStateFailed, a2a.TaskStateRejected, a2a.TaskStateCanceled} {
		tr := terminal.NewTracker()
		_, err := tr.Track(events(nil, a2a.NewStatusUpdateEvent(task, st, agentText("budget exceeded"))))
		var verdict *terminal.VerdictError
		switch {
		case errors.Is(err, terminal.ErrRejected): // test before ErrFailed: rejected matches both
			fmt.Println("rejected:", err)
		case errors.Is(err, terminal.ErrFailed):
			fmt.Println("failed:", err)
		case errors.As(err, &verdict) && errors.Is(err, terminal.ErrCanceled):
			fmt.Println("canceled, reason:", verdict.Reason)
		}
	}
	// Output:
	// failed: terminal: task "task-7" failed: budget exceeded
	// rejected: terminal: task "task-7" rejected: budget exceeded
	// canceled, reason: budget exceeded
}

// A runtime that mis-routes its frames (PROTOCOL.md §5) sends its
// remote-invocation progress as
// artifact updates and the question as an input-required status whose
// message metadata holds _interrupt. The seam keeps the progress frames out
// of the artifacts; the Interrupt holds what the caller answers.
func Example_interrupt() {
	// A compatibility layer would also read the frame's progress; the
	// Observation hands that reading back (Observation.Routed).
	remoteInvocation := func(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
		for _, p := range ev.Artifact.Parts {
			if p.Metadata["_remote_invocation"] != nil {
				return envelope.Reading{}, true
			}
		}
		return envelope.Reading{}, false
	}
	frame := &a2a.TaskArtifactUpdateEvent{TaskID: task.TaskID, ContextID: task.ContextID, Artifact: &a2a.Artifact{ID: "620157e7",
		Parts: a2a.ContentParts{{Content: a2a.Text("RUNNING"), Metadata: map[string]any{"_remote_invocation": map[string]any{
			"kind": "remote_agent_invocation", "toolCallId": "call_1", "sequence": 1.0, "phase": "RUNNING"}}}}}}
	question := agentText("Please approve the expense report.")
	question.Metadata = map[string]any{"_interrupt": map[string]any{
		"message": "Please approve the expense report.",
		"items": []any{map[string]any{"toolCallId": "call_1", "toolName": "expense-review",
			"message": "Reply 'approved' or give a reason."}}}}

	tr := terminal.NewTracker(terminal.WithArtifactProgress(remoteInvocation))
	out, err := tr.Track(events(nil, frame, a2a.NewStatusUpdateEvent(task, a2a.TaskStateInputRequired, question)))
	fmt.Println(out.Verdict, err, len(out.Artifacts), tr.EventCounts().ProgressArtifacts)
	fmt.Println(out.Interrupt.Question)
	for _, it := range out.Interrupt.Items {
		fmt.Printf("%s (%s): %s\n", it.ToolCallID, it.ToolName, it.Message)
	}
	// The answer goes to the same task.
	answer := a2a.NewMessageForTask(a2a.MessageRoleUser, a2a.TaskInfo{TaskID: out.TaskID, ContextID: out.ContextID},
		a2a.NewTextPart("approved"))
	fmt.Println(answer.TaskID)
	// Output:
	// input-required <nil> 0 1
	// Please approve the expense report.
	// call_1 (expense-review): Reply 'approved' or give a reason.
	// task-7
}

// Observe takes one event at a time, for callers that render progress
// while the turn runs. Only the state decides: a working update saying
// "failed" is progress, and updates after the terminal state are ignored.
func ExampleTracker_Observe() {
	tr := terminal.NewTracker()
	for _, ev := range []a2a.Event{
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, agentText("step 2 failed, retrying")),
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, agentText("ok")),
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateFailed, agentText("late")),
	} {
		o := tr.Observe(ev)
		fmt.Printf("%s settled=%t ignored=%t conflict=%t\n", o.State, o.Settled, o.Ignored, o.Conflict)
	}
	out, err := tr.Outcome()
	fmt.Println(out.State, err, tr.EventCounts().Conflicts)
	// Output:
	// TASK_STATE_WORKING settled=false ignored=false conflict=false
	// TASK_STATE_COMPLETED settled=true ignored=false conflict=false
	// TASK_STATE_COMPLETED settled=true ignored=true conflict=true
	// TASK_STATE_COMPLETED <nil> 1
}

// Every state settles the turn or not: a v0.3 name in an event decoded by
// hand is read as its 1.0 constant, and a state this package does not know
// is in progress (verdict incomplete): it never ends a turn.
func ExampleTracker_Observe_verdicts() {
	for _, s := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateAuthRequired, a2a.TaskStateRejected,
		"input-required", "unknown"} {
		tr := terminal.NewTracker()
		o := tr.Observe(&a2a.TaskStatusUpdateEvent{TaskID: "t", Status: a2a.TaskStatus{State: s}})
		out, _ := tr.Outcome()
		fmt.Println(s, "→", o.State, o.Settled, out.Verdict)
	}
	// Output:
	// TASK_STATE_WORKING → TASK_STATE_WORKING false incomplete
	// TASK_STATE_AUTH_REQUIRED → TASK_STATE_AUTH_REQUIRED true auth-required
	// TASK_STATE_REJECTED → TASK_STATE_REJECTED true rejected
	// input-required → TASK_STATE_INPUT_REQUIRED true input-required
	// unknown → TASK_STATE_UNSPECIFIED false incomplete
}

// A hostile peer cannot grow the assembled artifacts without end: past a
// limit, parts are dropped, counted, and the Outcome says Truncated.
func ExampleWithLimits() {
	tr := terminal.NewTracker(terminal.WithLimits(terminal.Limits{MaxParts: 2}))
	for range 5 {
		tr.Observe(&a2a.TaskArtifactUpdateEvent{TaskID: task.TaskID, Append: true,
			Artifact: &a2a.Artifact{ID: "flood", Parts: a2a.ContentParts{a2a.NewTextPart("spam")}}})
	}
	tr.Observe(a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, nil))
	out, _ := tr.Outcome()
	fmt.Println(len(out.Artifacts[0].Parts), out.Truncated, tr.EventCounts().PartsDropped)
	// Output:
	// 2 true 3
}

// The verdict in the JSON form a front end gets: a failed task's reason is
// the error, and there is never a reply.
func ExampleOutcome_Result() {
	tr := terminal.NewTracker()
	tr.Observe(a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, agentText("working")))
	tr.Observe(a2a.NewStatusUpdateEvent(task, a2a.TaskStateFailed, agentText("quota exceeded")))
	out, _ := tr.Outcome()
	b, _ := json.Marshal(out.Result())
	fmt.Println(string(b))
	// Output:
	// {"state":"TASK_STATE_FAILED","verdict":"failed","error":"quota exceeded","context":"ctx-7","counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}
}

// A cut says what a caller needs to resume: the task to resubscribe to (or
// to ask GetTask about), how far it got, and why the stream ended.
func ExampleCutError() {
	_, err := terminal.NewTracker().Track(events(io.ErrUnexpectedEOF,
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, agentText("searching…"))))
	var cut *terminal.CutError
	if errors.As(err, &cut) && cut.TaskID != "" {
		fmt.Println("resubscribe to", cut.TaskID, "after", cut.Events, "event(s) in", cut.LastState)
		fmt.Println("cause:", cut.Cause)
	}
	// Output:
	// resubscribe to task-7 after 1 event(s) in TASK_STATE_WORKING
	// cause: unexpected EOF
}

// A failed turn's error stands alone (it may travel without the Outcome):
// the task, the state and the callee's reason.
func ExampleVerdictError() {
	_, err := terminal.NewTracker().Track(events(nil,
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateFailed, agentText("quota exceeded"))))
	var ve *terminal.VerdictError
	if errors.As(err, &ve) {
		fmt.Println(ve.TaskID, ve.State, ve.Reason, ve.Message.ID != "")
	}
	// Output:
	// task-7 TASK_STATE_FAILED quota exceeded true
}

// The tallies are for logs and metrics: what a peer sent that the tracker
// ignored says more about the peer than about the turn.
func ExampleTracker_EventCounts() {
	tr := terminal.NewTracker()
	tr.Observe(a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, agentText("done")))
	tr.Observe(a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, agentText("late")))
	tr.Observe(nil)
	c := tr.EventCounts()
	fmt.Printf("events=%d ignoredAfterSettle=%d invalid=%d\n", c.Events, c.IgnoredAfterSettle, c.Invalid)
	// Output:
	// events=3 ignoredAfterSettle=1 invalid=1
}
