// TypeScript declarations for receiver.js (the JSON forms are those of
// PROTOCOL.md; field names and order are Go's merge.View JSON).

/** What apply did with one op (the names of Go's merge.Result). */
export type Result = "applied" | "duplicate" | "conflict" | "dropped_sealed" | "dropped_cap" | "invalid";

export declare const Results: Readonly<{
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
  truncated?: number;
  after?: number;
  ordinal?: number;
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

/** A snapshot of a turn, equal to Go's merge.View for the same ops. */
export interface View {
  task: string;
  /** null when there is none, as Go writes it. */
  blocks: Block[] | null;
  toolCalls: ToolCall[] | null;
  counters: Counters;
  sealed: boolean;
}

export interface ApplyResult {
  result: Result;
  /** An envelope applied although a higher seq had been applied. */
  late: boolean;
}

/**
 * A front end's model of a task's progress, fed with the ops the Go SDK
 * forwards. Ops are idempotent and may arrive in any order, any number of
 * times. apply never throws: an op that cannot be decoded, or that Go's
 * decoder would reject, is counted in counters.invalid.
 */
export declare class Receiver {
  constructor(task: string, options?: { caps?: Caps });
  /**
   * Merges one op. Give its JSON text (an NDJSON line, an SSE data field)
   * for exact int64 seqs; an object's int64 fields must be safe integers or
   * BigInts.
   */
  apply(op: string | object): ApplyResult;
  /** The current view, as plain values. */
  view(): View;
  /** The current view as Go's json.Marshal writes it, byte for byte. */
  viewJSON(): string;
}
