// Package projection reads the remote-invocation progress frames
// ("projections") of an agent runtime that sends them in the wrong
// channel (PROTOCOL.md §5): as artifactUpdate events on its A2A stream,
// and as untyped data: frames on its plain REST stream (POST /v1/query).
// A caller must not mistake them for output; this package turns each one
// into an envelope.Reading that the merge treats as progress.
//
// # Recognition (A2A stream)
//
// An artifact update is a projection when it carries the key
// "_remote_invocation" ([MetadataKey]) — in the artifact's metadata, in a
// part's metadata (text, data or any part), or as a key of a data part's
// object; the first one found, in that order, counts. The key is the
// runtime's own, reserved (leading underscore), so an artifact that carries
// it is never output. Its value must be, strictly:
//
//	{"kind": "remote_agent_invocation", "batchId": "<non-empty>",
//	 "toolCallId": "<non-empty>", "sequence": <integer ≥ 0>,
//	 "target": "<non-empty>", "phase": "QUEUED|RUNNING|INPUT_REQUIRED|COMPLETED|FAILED|TIMED_OUT",
//	 "resultCategory": "<string, optional>", "latencyMs": <number ≥ 0>}
//
// Unknown extra fields are ignored. An artifact without the key — whatever
// other metadata it has — is not a projection and is left alone.
//
// A malformed value (a field missing or of the wrong type, another kind, an
// unknown phase) is still claimed as progress: it is a diagnostic, never
// output and never a panic. Its Reading is a text fallback whose text is
// the artifact's text (the bare phase string the runtime puts there), with
// the envelope package's reason (envelope.ReasonUnknownKind for another
// kind, envelope.ReasonBadField otherwise) and an *envelope.Error naming
// the field ("_remote_invocation.sequence"); its identity is
// "artifact:<artifactId>", so a snapshot replaying it is a duplicate.
//
// # Mapping
//
// The status comes from projection.phase, never from the text, which is
// display only:
//
//	QUEUED, RUNNING   tool_call {tool: target, tool_call_id}  running
//	INPUT_REQUIRED    text "<target>: awaiting input"          running
//	COMPLETED         tool_call {tool: target, tool_call_id}  done
//	FAILED, TIMED_OUT error "<target>: <resultCategory>"       aborted
//	                  (the phase when resultCategory is absent)
//
// A done or aborted block of any kind closes its call in the merge, so the
// call of a member ends done or aborted; the question of an input-required
// member comes with the task's interrupt (status.message.metadata._interrupt,
// package terminal), not with the projection.
//
// # Identity
//
// "sequence" counts per member of a batch (batchId + toolCallId), not per
// turn, and the turn may also carry tfrs envelopes with their own seqs. So
// a projection is a schema.SourceProjection block: its Reading is not a
// fallback but has an ID, which puts it in a seq space of its own. Keys:
//
//	streamKey  "ri:" + esc(batchId) + ":" + esc(toolCallId)   one tool call per member
//	seq        sequence                                       ordered within the member only
//	ID         streamKey + ":" + sequence                     the block's identity
//
// esc replaces "%" by "%25" and ":" by "%3A", so the key is injective:
// two members never share a key, whatever their ids hold. A member never
// collides with a tfrs envelope either, even one whose streamKey is the
// same string: the merge keeps projection keys in a space of their own. The
// merge places projections by arrival, like fallbacks, so per-member
// sequences 1, 2, 3 next to envelope seqs 100… neither reorder the
// envelopes nor count as gaps.
//
// # Plain REST SSE (/v1/query)
//
// [ClassifyQuery] tells the untyped data: frames apart by shape, and
// [QueryEvents] translates a framed body into the A2A events the runtime's
// A2A exit sends for the same chunks, so that one pipeline (client) reads
// both forms. See query.go.
package projection
