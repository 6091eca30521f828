// Package schema holds the JSON forms a2a-progress publishes to a caller's
// front end, beside the JSON Schemas that pin them (*.schema.json in this
// directory, PROTOCOL.md §4 and §7): the [Op] — a [Block], a seal, or the
// turn's [Result] — the [View] of a turn with its [ToolCall]s and
// [Counters], and the [Verdict] with the one table from an A2A task state
// to it ([VerdictOf]).
//
// Package merge makes these values (merge.Turn from a callee's envelopes,
// merge.Receiver from ops); package terminal decides a turn's Result
// (terminal.Outcome.Result); a front end written in Go decodes them. The
// decoders are strict about values: an op that a Turn could not have sent
// is an error wrapping [ErrBadOp] that says what is wrong.
//
// # Words
//
//   - reply: the text of the final status message (or of a direct Message
//     reply) — Result.Reply.
//   - answer: the reply when it is not empty, else the text of the text
//     artifacts joined with "\n" — [Result.Answer], the one accessor.
//   - result: the turn's authoritative end as a wire form, [Result]; the
//     Go-side decision that builds it is terminal.Outcome.
//   - verdict: how the turn ended, one word ([Verdict]).
//   - effect: what applying one op did to a view (merge.Effect).
package schema
