// Package envelope reads and writes the structured progress envelope that an
// A2A callee puts into its working status updates (PROTOCOL.md §2).
//
// # The model
//
// A callee that follows the spec sends, in each TASK_STATE_WORKING status
// update, one [a2a.Part] that holds both a human-readable text fallback and
// metadata["tfrs"]: the envelope, serialised as a JSON string.
//
//	{"v":1,"kind":"tool_call","streamKey":"call-7","seq":42,"status":"running",
//	 "payload":{"tool":"ask_colleague","tool_call_id":"call-7"}}
//
// Reading never fails: [FromMessage] returns a [Reading] that either holds a
// valid [Envelope] or, when there is no usable envelope, a pseudo envelope of
// kind text whose payload is the update's text, marked as a fallback with the
// [Reason] why. Every reason is also the error value of its condition
// ([ReasonBadJSON], [ReasonUnsupportedVersion], …), usable with errors.Is;
// the detailed [*Error]
// names the field at fault.
//
// # Rules this package decides
//
//   - The spec form is a JSON string under "tfrs". A JSON object under that
//     key is accepted too and validated identically (it is re-encoded and goes
//     through the same decoder); [Reading.Form] tells which form was seen.
//   - v must be an integer ≥ 1; v > 1 is a newer version this reader does not
//     know, and the update falls back to its text (ReasonUnsupportedVersion).
//   - seq must be a JSON number whose exact decimal value is an integer
//     within int64. JSON does not tell integers from floats, and a producer
//     that passes seq through a float (every protobuf Struct does) writes 42
//     as 42 or 42.0, so 42.0 and 4.2e1 mean 42. 1.5, 1e-400, "3", true and
//     2^63 are rejected. The text is judged exactly, never through a float64:
//     9007199254740993.0 is 9007199254740993. (In the object form the number
//     has already been a float64 in a2a-go, so beyond 2^53 it is whatever
//     that float64 is.)
//   - Keys match exactly, case included. encoding/json would read "SEQ",
//     "Seq" or "ſeq" as seq; here they are unknown fields, as they are for
//     a JavaScript or Python reader. A repeated key: the last one wins.
//   - streamKey absent and streamKey "" are the same: the default stream.
//   - Unknown extra fields, in the envelope and in its payload, are ignored so
//     that a producer may add fields without breaking old readers.
//   - A chunk over [HardChunkLimit] drops the whole envelope (ReasonChunkTooLarge);
//     over [SoftChunkLimit] it is accepted and [Reading.OverSoftLimit] is set.
//   - An envelope longer than [MaxEnvelopeBytes] is not parsed at all
//     (ReasonEnvelopeTooLarge), so a hostile peer cannot make the reader parse
//     megabytes per update.
//   - At most one envelope counts per update: the first valid one, in part
//     order. Every other part that carried a "tfrs" key is reported in
//     [Reading.Ignored] with its own reason.
//
// # Nesting down a chain
//
// An envelope may carry parent (Envelope.Parent): the key of a tool call
// of the same turn that the block belongs under — an agent that answers by
// asking another agent forwards that agent's blocks into its own turn
// under the call that asked (PROTOCOL.md §10; emit.Tool.Forward writes
// them, with keys from [ForwardKey]). It is optional and backward
// compatible: a reader that does not know it ignores an unknown field and
// shows the forwarded blocks as ordinary blocks of the turn. This reader
// checks it: a parent that is not a string, or that names the block's own
// call, is ReasonBadField (field "parent").
//
// # Identity of a fallback
//
// A pseudo envelope has no seq. Its identity, [Reading.ID], is "msg:" followed
// by the A2A messageId of the status message, which a callee keeps when the
// same update is replayed (Task.history, a resubscription snapshot). A message
// without an id gets "sha256:" and a digest of its text instead, so the same
// update replayed twice still has one identity.
//
// # Writing
//
// [NewPart] builds the Part a Go callee sends: the text fallback plus
// metadata["tfrs"], refusing invalid envelopes and chunks over
// [HardChunkLimit].
// [SplitOutput] cuts long tool output into chunks of at most
// [SoftChunkLimit] bytes at line boundaries. These writers are stateless;
// package [github.com/tfrs/a2a-progress/envelope/emit] keeps the state of a
// turn (seq, tool calls, splitting) for an a2asrv executor.
package envelope
