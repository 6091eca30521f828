// Package merge merges the progress envelopes of a turn into a live view for
// a caller's front end, and into ops that carry the view to it. The view
// and the ops are the wire forms of package schema (schema.View,
// schema.Op); this package makes them ([Turn], from envelopes) and applies
// them ([Receiver], from ops), and reports what each apply did: its
// [Effect] (applied, duplicate, conflict, …) in a [Change].
//
// # The model
//
// A turn is one request on an A2A task — a send, or the current turn of a
// task that is followed — up to the state that settles it. A task that asks
// a question (input-required) goes on in a new turn when the caller responds
// on the same task, and the producer's seqs may start anywhere again: seqs
// are scoped by turn, so every turn has an id of its own (the messageId of
// the user message that opened it; see [Turn]). While the callee works, the
// caller reads each working update with envelope.FromMessage and hands the
// [envelope.Reading] to [Turn.ApplyAt] with the event's time. Readings
// arrive best effort — cut off, lost, reordered, duplicated (PROTOCOL.md
// §2.4) — so the view is defined by the SET of blocks received, never by
// the order in which they came:
//
//   - Identity. An envelope is (streamKey, seq); a fallback (an update with
//     no usable envelope, turned into a text pseudo envelope) is its
//     Reading.ID. The first arrival of an identity wins. A later arrival
//     with the same content is a [Duplicate]; with other content, a
//     [Conflict] (a producer bug), counted apart. Neither changes the view.
//   - Order. Blocks are ordered by seq, across all stream keys (ties, a
//     producer bug, by streamKey). An in-order arrival is delivered at once —
//     nothing ever waits for a missing seq; a late one is inserted in its
//     place and reported with Change.Late. Missing seqs are gaps, counted.
//   - Fallbacks have no seq, so they are placed by arrival: a fallback goes
//     right after the highest seq applied before it arrived (its anchor,
//     Block.After), before any higher seq, and after earlier fallbacks with
//     the same anchor (Block.Ordinal, its arrival number). A fallback that
//     arrived before any envelope goes first. Placement is stamped once, on
//     first arrival, and travels in the op. So a fallback's position is the
//     one thing arrival decides: the tests shuffle envelopes freely but keep
//     each fallback after its anchor and before the seqs that followed it.
//   - Tool calls. Blocks are grouped by key — the streamKey, or the
//     tool_call_id when the streamKey is empty — into [schema.ToolCall]s: a name,
//     a status running → done | aborted, and an output made of the key's
//     tool_output_append chunks in seq order. Chunks are folded into their
//     call and are not listed in View.Blocks. Between two chunks where the
//     turn misses seqs, the output has a gap marker line,
//     "[gap: N seqs missing]" ("1 seq" for one). Each field is a function
//     of the set: the name comes from the lowest-seq tool_call (else the
//     lowest-seq chunk), the status from the lowest-seq done or aborted
//     block of the key, whatever its kind.
//   - Projections. Some peers report progress in a seq space of their own
//     (PROTOCOL.md §5.1: a remote invocation's frames count "sequence" per
//     member, 1, 2, 3…, next to envelope seqs 100…). A Reading that is not a
//     fallback yet carries an ID (envelope.FromMessage never makes one) is
//     such a [schema.SourceProjection] block: its identity is the ID, it is placed
//     by arrival exactly like a fallback, and its seq orders it only within
//     its streamKey — which is a key space of its own, one tool call per
//     key. So a projection never orders, delays or anchors envelopes, never
//     counts as late and never makes or fills a gap; its tool call follows
//     the tool rules below with its own seqs, and stands in View.ToolCalls
//     where its first tool_call block was placed.
//   - Seal. The terminal state, not progress, decides the turn. When it
//     arrives, [Turn.Seal] freezes the view: calls still running become
//     [schema.ToolUnfinished], and later readings are counted as DroppedAfterSeal.
//
// The tolerance cases of the spec follow from these rules, without errors:
// output before the tool_call opens the call (named by its chunk until the
// start names it); done before the start leaves the call done (the start
// still names it); a repeated done changes nothing (the lowest seq
// decides); chunks after done are still output (a queue may flush late),
// and the call stays done.
//
// # Nested calls
//
// A block may carry a parent (Block.Parent, the envelope's parent,
// PROTOCOL.md §10): the key of the call of the same turn it belongs under.
// It is content — a copy with another parent is a conflict — never
// identity or place. A tool call's parent is that of the block that names
// it, and the view gives each call its ToolCall.Depth: the length of its
// chain of parents up to a top-level call, at most [MaxDepth]; a longer
// chain, a loop, or a parent that is no call of the turn leaves the call at
// the top level (depth 0). Depth is computed in View from the set of
// calls, so it too is independent of arrival order. Forwarded blocks are
// ordinary blocks of the turn: every cap below bounds the whole tree.
//
// # Bounds
//
// A peer may be hostile or broken, so memory is bounded whatever it sends
// ([Caps]). First in bytes: a turn's [Budget] (Caps.MaxTurnBytes, 32 MiB,
// or one shared through Caps.Budget) is charged for every block the turn
// keeps and given back when a tool call's output window drops a chunk's
// text; past it the newest blocks are refused. Then in counts and sizes:
// blocks per turn (which also bounds the identity set), stream keys
// holding tool state, output bytes per tool call (the newest are kept;
// ToolCall.Truncated counts the rest), text bytes per block, identifier
// length, turns per Receiver ([MaxReceiverTurns]). A cap refuses or cuts,
// and counts what it did; a refused block's Change names the cap
// ([Change].Cap). Within the budget and the block and stream-key caps the
// view stays independent of arrival order; the output cap too, since it
// keeps the newest chunks by seq.
//
// # Ops, results, effects and receivers
//
// Each applied block yields a [schema.Op] (Change.Op), Seal yields one more, and
// [Turn.ResultOp] a last one: the verdict of the turn as a [schema.Result]
// (completed with its reply, failed with the callee's reason, a question to
// answer, or incomplete), which package terminal decides from the task
// state alone. Every op names its task and turn; a block op also carries at,
// when the block was produced — informational, never identity or order. An
// op is self-contained and idempotent, with a stable flat JSON form (see
// [schema.Op]; PROTOCOL.md §4). A front end applies the ops to a [Receiver], in
// whatever order and however many times they reach it: it keeps one view
// per turn of the task, each ending equal to its Turn's view, and the
// latest turn's result; [Receiver.Ops] gives a turn back as ops, to bring a
// late subscriber up to date. Turn and Receiver are not safe for
// concurrent use: a caller that follows several tasks keeps one Turn per
// task and guards each itself.
//
// # Cost
//
// Apply is O(1) amortised for an in-order envelope and O(log n) for a late
// one or a chunk (a bisection, a heap), never O(n); per event it allocates
// nothing beyond amortised growth (and a new tool summary when one
// changes). [Turn.View] pays for order (a sort after late arrivals) and
// assembles each call's output once: call it to render, and forward ops per
// event.
package merge
