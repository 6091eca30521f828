// Package terminal decides the authoritative outcome of one A2A turn from
// its events: completed, failed, rejected, canceled, interrupted — or cut,
// which is not an outcome at all (PROTOCOL.md §3.1, §3.2).
//
// # The model
//
// A turn is one send (or one resubscription) and the events that answer
// it. Only the task state decides how the turn ended. Every task state
// falls in one of three classes, which [Outcome.Verdict] (a schema.Verdict)
// names in one word:
//
//	in progress   submitted, working, unspecified, anything unknown   incomplete
//	interrupted   input-required, auth-required                       input-required, auth-required
//	terminal      completed, failed, canceled, rejected               completed, failed, canceled, rejected
//
// A turn is settled when its current state is interrupted or terminal.
//
//   - completed: the reply is the final status message and the task's
//     artifacts. A stream that responds with a Message instead of a Task is a
//     completed reply too.
//   - failed, rejected, canceled: the verdict is an error, a
//     [*VerdictError] whose Reason is the text of the final status message;
//     errors.Is matches [ErrFailed], [ErrRejected] (which also matches
//     ErrFailed: the spec treats rejected like failed) or [ErrCanceled].
//   - input-required, auth-required: the turn is over but the task is not.
//     The [Interrupt] holds the status message and, for a runtime that
//     sends them, the questions of status.message.metadata._interrupt
//     (PROTOCOL.md §5.2); the caller responds with a message on the same
//     task id.
//   - the stream ended while the state was in progress: a cut, a
//     [*CutError] matching [ErrCut]. It says nothing about the task, which
//     may still be running or may be long over. Resubscribe
//     (SubscribeToTask) or ask GetTask, and keep observing with the same
//     [Tracker]; report "incomplete" only when the task cannot be resolved.
//     A cut's Outcome has no Message, Reply or Artifacts and a non-nil Err,
//     so it can never be mistaken for an empty success.
//
// # Discipline
//
// The progress a callee streams — envelopes with kind "error" or status
// "aborted", status texts that say "failed", metadata of any kind — is
// best effort and never changes the outcome. A [Tracker] reads only the
// state of status updates and Task snapshots, and takes the reply only from
// the state it ends in. Besides:
//
//   - A terminal state is final. Every later event is ignored and counted
//     ([EventCounts.IgnoredAfterSettle]); a later, different terminal state is
//     a conflict, reported ([Observation.Conflict], [EventCounts.Conflicts])
//     while the first one stands.
//   - An interrupted state is not final. A later state of the same task —
//     working after the caller responded, a resubscription snapshot, or a
//     terminal state — supersedes it ([EventCounts.Resumed]). So one Tracker can
//     follow a task across the turns of an interrupt; the outcome is always
//     that of the latest state.
//   - A Tracker follows one task: the first task id it sees. Events naming
//     another task are ignored ([EventCounts.OtherTask]).
//   - A Message decides only in a task-less exchange; after a task was
//     observed it is ignored ([EventCounts.StrayMessages]).
//
// # Artifacts
//
// Artifact updates are assembled as a2a-go's own task store assembles them:
// append=false creates the artifact or replaces the one with the same id,
// append=true appends its parts (and merges its metadata). Order is the
// order of first appearance. An append for an unknown id creates the
// artifact ([EventCounts.OrphanAppends]); an append after lastChunk is kept
// ([EventCounts.AppendsAfterLastChunk]). A Task snapshot's artifacts replace
// everything assembled so far. A hostile peer cannot grow the memory
// without end: [Limits] bound the number of artifacts, parts and bytes
// (defaults 1024, 65536 and 64 MiB); what does not fit is dropped, counted,
// and reported as [Outcome.Truncated].
//
// Some peers send progress in the artifact channel (PROTOCOL.md §5.1: the
// `_remote_invocation` frames). [WithArtifactProgress] is the
// seam for a compatibility layer: artifacts its predicate claims are routed
// away, counted, and never reach [Outcome.Artifacts] — including those in a
// Task snapshot; the Observation of the event hands them back with the
// predicate's reading ([Observation.Routed]), for the caller to merge as
// progress. This package does not recognise such frames by itself.
//
// # Use
//
// [Tracker.Track] consumes an a2a-go event stream (iter.Seq2) until the
// turn settles; [Tracker.Observe] takes one event at a time for callers
// that also render progress. [Tracker.Outcome] gives the verdict, and
// [Outcome.Result] the same verdict in the JSON form a front end gets as
// the turn's result op (schema.Result, PROTOCOL.md §4.3): one word
// (completed, failed, rejected, canceled, input-required, auth-required,
// incomplete) and what goes with it.
//
//	tr, zero := terminal.NewTracker(), 0
//	out, err := tr.Track(client.SendStreamingMessage(ctx, req))
//	if errors.Is(err, terminal.ErrCut) && out.TaskID != "" {
//		out, err = tr.Track(client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: out.TaskID}))
//	}
//	if errors.Is(err, terminal.ErrCut) && out.TaskID != "" {
//		// Subscribing to a task that is already over is refused (a2a-go:
//		// ErrTaskNotFound); its snapshot still tells the outcome.
//		if task, gerr := client.GetTask(ctx, &a2a.GetTaskRequest{ID: out.TaskID, HistoryLength: &zero}); gerr == nil {
//			tr.Observe(task)
//			out, err = tr.Outcome()
//		}
//	}
//	switch {
//	case err != nil: // failed, rejected, canceled — or still cut: "incomplete"
//	case out.Interrupt != nil: // ask the user, respond on out.TaskID
//	default: // out.Result().Answer(): the reply, else the artifacts' text
//	}
//
// # Which type to use when
//
// Four names describe how a turn ended; each has one job:
//
//   - [Outcome] — the Go-side decision, with the a2a-go values (the
//     status Message, the Artifacts with all their parts, the Interrupt
//     with its metadata). Use it in a Go program that acts on the turn:
//     an orchestrator passing a sub-agent's answer on, a CLI.
//   - [*VerdictError] (and [*CutError]) — the error that Outcome and Track
//     return for failed, rejected, canceled (and cut) turns, so that
//     `if err != nil` is the failure check; errors.Is with [ErrFailed],
//     [ErrRejected], [ErrCanceled], [ErrCut] tells which.
//   - schema.Result — the same decision as a wire form ([Outcome.Result]):
//     plain strings, cut to sizes a front end can show, the JSON of the
//     result op. Use it to send the end of a turn anywhere (a relay, a
//     log, another process), and schema.Result.Answer for "the answer".
//   - schema.Verdict — one word of the Result (completed, failed, …,
//     incomplete), decided by the one state → verdict table
//     (schema.VerdictOf) that [Outcome.Verdict] also follows. Switch
//     on it where a front end needs one word.
package terminal
