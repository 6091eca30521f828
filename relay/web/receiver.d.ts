// TypeScript declarations for receiver.js (the JSON forms are those of
// PROTOCOL.md; field names are Go's schema.View JSON).

/** What applying one op did: its effect (the names of Go's merge.Effect). */
export type Effect = "applied" | "duplicate" | "conflict" | "dropped_sealed" | "dropped_cap" | "invalid";

export declare const Effects: Readonly<{
  applied: "applied";
  duplicate: "duplicate";
  conflict: "conflict";
  droppedSealed: "dropped_sealed";
  droppedCap: "dropped_cap";
  invalid: "invalid";
}>;

/** Bounds on what one turn retains; a missing, zero or negative field takes its default. */
export interface Caps {
  /** Blocks applied per turn, of every kind (default 10000). */
  maxBlocks?: number;
  /** Stream keys holding tool state per turn (default 256). */
  maxStreamKeys?: number;
  /** Output bytes kept per tool call, the newest (default 262144). */
  maxOutputBytes?: number;
  /** Text bytes kept per block, the head (default 8192). */
  maxTextBytes?: number;
}

export declare const DEFAULT_CAPS: Readonly<Required<Caps>>;

/** The longest identifier (streamKey, id, tool, tool_call_id) in UTF-8 bytes; a longer one drops its block. */
export declare const MAX_IDENT_BYTES: 1024;
/** How deep tool calls nest in a view; a longer chain of parents, or a loop, is shown at the top level (PROTOCOL.md §10.3). */
export declare const MAX_DEPTH: 8;

/** The number of turns a Receiver keeps; a new one beyond them evicts the oldest. */
export declare const MAX_RECEIVER_TURNS: 16;

/** The line put into a tool call's output where the turn misses n seqs. */
export declare function gapMarker(n: number | bigint): string;

export type Kind = "thinking" | "tool_call" | "tool_output_append" | "text" | "error";
export type Status = "running" | "done" | "aborted";
export type Source = "envelope" | "fallback" | "projection";
export type ToolStatus = "running" | "done" | "aborted" | "unfinished";

export type Payload =
  | { text: string } // thinking, text
  | { tool: string; tool_call_id?: string } // tool_call
  | { tool: string; chunk: string; tool_call_id?: string } // tool_output_append
  | { message: string }; // error

/**
 * One block of a view. int64 fields are numbers: exact up to 2^53, the
 * nearest double beyond (Receiver.viewJSON is always exact).
 */
export interface Block {
  streamKey: string;
  seq: number;
  id: string;
  kind: Kind;
  status: Status;
  payload: Payload;
  source: Source;
  reason?: string;
  overSoftLimit?: true;
  /** The nesting extension (PROTOCOL.md §10): the key of the tool call this block belongs under. */
  parent?: string;
  truncated?: number;
  after?: number;
  ordinal?: number;
  /** When the block was produced (RFC 3339, UTC, nine fractional digits), as its first arrival said. */
  at?: string;
}

export interface ToolCall {
  key: string;
  tool: string;
  toolCallId?: string;
  status: ToolStatus;
  started: boolean;
  firstSeq: number;
  /** Peer text: render it with textContent, never innerHTML. */
  output: string;
  truncated?: number;
  gaps?: number;
  chunks: number;
  bytes: number;
  /** The nesting extension (PROTOCOL.md §10): the parent named by the block that names the call. */
  parent?: string;
  /** How deep the call nests, 1 to MAX_DEPTH; absent at the top level (PROTOCOL.md §10.3). */
  depth?: number;
}

export interface Counters {
  applied: number;
  duplicates: number;
  conflicts: number;
  late: number;
  gaps: number;
  droppedAfterSeal: number;
  droppedByCap: number;
  invalid?: number;
  fallbacks?: Record<string, number>;
}

/** A snapshot of a turn: the same data as Go's schema.View for the same ops. */
export interface View {
  task: string;
  /** The turn's id; "" in the empty view of a receiver that has no turn yet. */
  turn: string;
  /** [] when there is none, never null (Go writes the same). */
  blocks: Block[];
  toolCalls: ToolCall[];
  counters: Counters;
  sealed: boolean;
}

export type Verdict = "completed" | "failed" | "rejected" | "canceled" | "input-required" | "auth-required" | "incomplete";

/** The result of a turn: its result op's fields (PROTOCOL.md §4.3), as Go writes them. Peer text throughout. */
export interface Result {
  /** The A2A 1.0 state name (TASK_STATE_COMPLETED, …); for incomplete the last state seen, or "". */
  state: string;
  verdict: Verdict;
  /** completed only. */
  reply?: string;
  artifacts?: { id: string; name?: string; text: string }[];
  artifactsTruncated?: true;
  /** input-required and auth-required only. */
  interrupt?: { question: string; items?: { toolCallId: string; toolName: string; message: string }[] };
  error?: string;
  context?: string;
  /** The producing turn's counters. */
  counters: Counters;
}

/** What apply did with one op. */
export interface Applied {
  effect: Effect;
  /** An envelope applied although a higher seq had been applied. */
  late: boolean;
}

/**
 * The answer of a result (PROTOCOL.md §4.3): its reply when not empty, else
 * the non-empty text of its artifacts joined with "\n"; "" for null.
 */
export declare function answer(result: Pick<Result, "reply" | "artifacts"> | null): string;

/**
 * A front end's model of a task's progress, fed with the ops the Go SDK
 * forwards: one view per turn, keyed by the ops' turn id (at most 1024
 * UTF-8 bytes; a longer one makes the op invalid). Ops are
 * idempotent and may arrive in any order, any number of times. apply never
 * throws: an op that cannot be decoded, that Go's decoder would reject, or
 * that names another task, is counted in counters.invalid.
 */
export declare class Receiver {
  constructor(task: string, options?: { caps?: Caps });
  /**
   * Merges one op. Give its JSON text (an NDJSON line, an SSE data field)
   * for exact int64 seqs: JSON.parse reads it and the int64 fields are read
   * from the text, held as BigInt inside; an object's int64 fields must be
   * safe integers or BigInts. Keys are exact (PROTOCOL.md §4): a key in
   * other case, an unknown key or a repeated one makes the op invalid. A seal op is applied once, then a duplicate; a result op is
   * applied once, then a duplicate (the same) or a conflict (another; the
   * first stands); an op of an evicted turn is dropped_cap.
   */
  apply(op: string | object): Applied;
  /** The latest turn's view, as plain values; before any valid op, an empty view with turn "". */
  view(): View;
  /**
   * view() as JSON text with exact int64 fields: the same data as Go's
   * json.Marshal of schema.View, not the same text (key order and escapes
   * may differ; <, > and & are not escaped, so never put it into markup).
   */
  viewJSON(): string;
  /** The view of one turn, or null when the receiver does not keep it. */
  turnView(turn: string): View | null;
  /** turnView() as JSON text with exact int64 fields, or null. */
  turnViewJSON(turn: string): string | null;
  /** The turn ids kept, in the order their first op arrived: the last is the latest. */
  turns(): string[];
  /** The result of the latest turn (or of turn), or null before its result op arrived; answer(result) is its answer. */
  result(turn?: string): Result | null;
  /** result() as JSON text with exact int64 fields; "null" before it arrived. */
  resultJSON(turn?: string): string;
  /** The ops refused because their turn was evicted. */
  refused(): number;
}
