package client

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/projection"
)

// WithCompat switches the compatibility layer for peers that send their
// progress in the artifact channel (PROTOCOL.md §5.1) on or off. It is on
// by default.
//
// While it is on, an artifact update that carries the runtime's
// "_remote_invocation" projection — in a part's metadata (text or data
// part), in a data part's object, or in the artifact's metadata — is
// progress, never output: it does not reach Outcome.Artifacts (nor does it
// from a Task snapshot) and is merged as the tool call of its member
// (batchId + toolCallId): tool = target, status by the projection's phase —
// QUEUED and RUNNING running, INPUT_REQUIRED running with an "awaiting
// input" text block, COMPLETED done, FAILED and TIMED_OUT aborted with an
// error block naming resultCategory. The text of such an artifact (the bare
// phase string) is never read as the phase. Its per-member sequence lives
// in a seq space of its own (schema.SourceProjection, keyed
// "ri:<batchId>:<toolCallId>"), so it neither collides with tfrs envelopes
// nor makes gaps among their seqs. A "_remote_invocation" value that does
// not have the documented shape is still progress: a text fallback that
// says why (UpdateProgress with Reading.Fallback and Reading.Err), never
// output. An artifact without the key is untouched.
//
// The interrupt of such a runtime (status.message.metadata._interrupt) is
// read by package terminal whatever this option says.
//
// A hook set with [WithArtifactProgress] classifies what the layer did not
// claim; WithCompat(false) leaves that hook alone in charge.
func WithCompat(on bool) Option {
	return func(c *config) { c.noCompat = !on }
}

// artifactHook is the artifact classifier of a stream: the compatibility
// layer first (unless switched off), then the caller's hook.
func (c *config) artifactHook() func(*a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
	user := c.artifact
	switch {
	case c.noCompat:
		return user
	case user == nil:
		return projection.FromArtifact
	}
	return func(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
		if r, ok := projection.FromArtifact(ev); ok {
			return r, true
		}
		return user(ev)
	}
}
