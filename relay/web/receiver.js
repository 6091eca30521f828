// receiver.js — the browser side of the a2a-progress op stream.
//
// A Receiver is a front end's model of one task, fed with the ops the Go SDK
// forwards (block, seal and result ops, PROTOCOL.md §4; the rules below are
// §6 in full). It is a port of Go's merge.Receiver: for the same ops, apply
// says the same, and view() and result() are the same data as Go's
// schema.View and schema.Result (not the same JSON text: key order and
// escapes may differ), checked on golden vectors and random op streams.
//
// The rules a receiver implements, in short:
//   - Turns. Every op names its turn; each turn has a view of its own, so a
//     second turn on the task (an answered question) whose seqs start again
//     never meets the first turn's blocks. view() is the latest turn's (by
//     the first arrival of one of its ops); result() its result op's.
//   - Identity. An envelope block is (streamKey, seq); a fallback or a
//     projection block is its id. The first arrival wins; a later arrival is
//     a duplicate (same content) or a conflict (other content) and changes
//     nothing. So ops may come in any order, any number of times. A block's
//     "at" is informational: never identity, content or order.
//   - Order. Blocks are ordered by seq (ties by streamKey, compared as UTF-8
//     bytes); fallbacks and projections stand after their anchor seq
//     ("after") by arrival number ("ordinal"), both stamped by the producer.
//   - Tool calls group blocks by streamKey (or tool_call_id when the
//     streamKey is empty); output is the chunks in seq order with a gap
//     marker line where the turn misses seqs, cut to the newest bytes. The
//     seal turns calls still running into unfinished.
//   - Caps bound memory whatever a peer sends; each cap counts what it did.
//
// Numbers. Seqs are int64 on the wire; inside, every int64 is a BigInt, so
// order and gap counts are exact over the whole range. Give apply() the op's
// JSON text (an NDJSON line, an SSE data field) to keep them exact: an op
// given as an object has lost digits above 2^53 to JSON.parse, so its int64
// fields must be safe integers or BigInts, else it is invalid (never
// silently rounded). view() gives plain numbers (exact up to 2^53, the
// nearest double beyond); viewJSON() writes them exactly.
//
// No dependencies, no DOM: render agent text with textContent, never
// innerHTML — tool output, text and results are peer text.

/** The caps a Receiver applies when none are given (Go merge.DefaultCaps; PROTOCOL.md §6.7). */
export const DEFAULT_CAPS = Object.freeze({ maxBlocks: 10000, maxStreamKeys: 10000, maxOutputBytes: 256 << 10,
  maxTextBytes: 8 << 10 });

/** The longest identifier a block may carry (Go merge.MaxIdentBytes). */
export const MAX_IDENT_BYTES = 1024;

/** How deep tool calls nest (PROTOCOL.md §10.3): Go's merge.MaxDepth. */
export const MAX_DEPTH = 8;

/** The number of turns a Receiver keeps (Go merge.MaxReceiverTurns; PROTOCOL.md §6.7). */
export const MAX_RECEIVER_TURNS = 16;

const HARD_CHUNK_LIMIT = 64 << 10;
const MAX_ENVELOPE_BYTES = 1 << 20;
const MAX_INT32 = 2147483647;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const MAX_JSON_DEPTH = 10000; // Go's encoding/json nesting limit

/** The effects of apply: what applying one op did (Go merge.Effect names). */
export const Effects = Object.freeze({ applied: "applied", duplicate: "duplicate", conflict: "conflict",
  droppedSealed: "dropped_sealed", droppedCap: "dropped_cap", invalid: "invalid" });

const res = (effect, late = false) => ({ effect, late });

/** The line put into a tool call's output where the turn misses n seqs between two chunks (Go merge.GapMarker). */
export function gapMarker(n) {
  return "[gap: " + n + (String(n) === "1" ? " seq" : " seqs") + " missing]\n";
}

/**
 * The answer of a turn's result: its reply when that is not empty, else the non-empty text of its
 * artifacts joined with "\n" ("" when there is neither): PROTOCOL.md §4.3, as Go's Result.Answer.
 */
export function answer(result) {
  return result?.reply || (result?.artifacts ?? []).map((a) => a.text).filter((t) => t !== "").join("\n");
}

// ---------------------------------------------------------------------------
// Strings: Go compares strings as UTF-8 bytes, which is code point order; JS
// compares UTF-16 code units, which differs once a string holds a character
// above U+FFFF next to one in U+E000–U+FFFF. Every string is well formed
// (decode replaces lone surrogates by U+FFFD, as Go's decoder does), so
// TextEncoder counts and cuts the bytes Go does.

// codePointOrder maps a UTF-16 unit where it differs from its code point
// order: surrogates (characters above U+FFFF) after U+E000–U+FFFF.
const codePointOrder = (u) => (u < 0xd800 ? u : u >= 0xe000 ? u - 0x800 : u + 0x2000);

function compareStrings(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  return codePointOrder(a.charCodeAt(i)) - codePointOrder(b.charCodeAt(i));
}

const compareBig = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const utf8Length = (s) => encoder.encode(s).length;
const continuation = (byte) => (byte & 0xc0) === 0x80;

// headBytes is the longest head of s, in whole characters, that fits in
// max UTF-8 bytes (Go capText), and the bytes it leaves out.
function headBytes(s, max) {
  const b = encoder.encode(s);
  if (b.length <= max) return [s, 0];
  let i = max;
  while (i > 0 && continuation(b[i])) i--;
  return [decoder.decode(b.subarray(0, i)), b.length - i];
}

// tailFrom drops the first cut bytes of s and then any partial character;
// it returns the rest and the bytes dropped in all.
function tailFrom(s, cut) {
  if (cut <= 0) return [s, 0];
  const b = encoder.encode(s);
  let i = Math.min(cut, b.length);
  while (i < b.length && continuation(b[i])) i++;
  return [decoder.decode(b.subarray(i)), i];
}

// ---------------------------------------------------------------------------
// Decoding an op (PROTOCOL.md §4), as Go's Op.UnmarshalJSON: JSON.parse for
// the syntax, then every key of the op form exactly and once (an unknown
// or differently-cased key, or a repeated one, makes the op invalid) and
// every value by its type. null leaves a string, number, bool or object
// at its zero value and makes after, interrupt, a list or a map absent.

class OpError extends Error {}

// scan reads an op's text once more for what JSON.parse loses: it returns
// the decimal text of each number (so int64s are exact) by its path (keys
// and indices joined by NUL), after checking that no object repeats a key
// and that nesting stays within Go's 10000.
const SCALAR = /[^ \t\n\r"{}[\]:,]+/y;
function scan(text) {
  const nums = new Map();
  const open = []; // the objects ({keys, key}) and arrays ({i}) around i
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = open.at(-1);
    if (c === '"') {
      const from = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (top?.keys && top.key === null) {
        const k = JSON.parse(text.slice(from, i + 1)).toWellFormed();
        if (top.keys.has(k)) throw new OpError("duplicate key " + JSON.stringify(k));
        top.keys.add((top.key = k));
      }
    } else if (c === "{" || c === "[") {
      if (open.length >= MAX_JSON_DEPTH) throw new OpError("nested too deep");
      open.push(c === "{" ? { keys: new Set(), key: null } : { i: 0 });
    } else if (c === "}" || c === "]") {
      open.pop();
    } else if (c === ",") {
      if (top.keys) top.key = null;
      else top.i++;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      SCALAR.lastIndex = i;
      const t = SCALAR.exec(text)[0];
      nums.set(open.map((f) => (f.keys ? f.key : f.i)).join("\0"), t);
      i += t.length - 1;
    }
  }
  return nums;
}

// Schemas of the op form's values: S a string, B a boolean, I an int64, P an
// int64 or absent (after), ANY a value not looked into; an object schema
// names its keys; [s] is a list of s; a map names none (any key, values
// of its schema).
const S = "string";
const B = "boolean";
const I = "int64";
const P = "*int64";
const ANY = "any";
const ZERO = new Map([[S, ""], [B, false], [I, 0n], [ANY, undefined]]);
const obj = (what, keys, ptr = false) => ({ what, keys: new Map(Object.entries(keys)), ptr });
const map = (elem) => ({ what: "map", elem });

const COUNTER_NAMES = ["applied", "duplicates", "conflicts", "late", "gaps", "droppedAfterSeal", "droppedByCap"];
const COUNTERS = obj("counters", { ...Object.fromEntries(COUNTER_NAMES.map((k) => [k, I])), invalid: I, fallbacks: map(I) });

// The op as Go's decoder reads it: the head, the block's fields and the
// result's fields, flat; exitCode and schemaVersion are a2a-tail's result
// line's (known, not looked into).
const OP = obj("op", {
  type: S, task: S, turn: S, exitCode: ANY, schemaVersion: ANY,
  streamKey: S, seq: I, id: S, kind: S, status: S, payload: ANY, source: S, reason: S, overSoftLimit: B,
  parent: S, truncated: I, after: P, ordinal: I, at: S,
  state: S, verdict: S, reply: S, artifacts: [obj("artifact", { id: S, name: S, text: S })], artifactsTruncated: B,
  interrupt: obj("interrupt", { question: S, items: [obj("interrupt item", { toolCallId: S, toolName: S, message: S })] }, true),
  error: S, context: S, counters: COUNTERS,
});

const PAYLOADS = new Map([
  ["thinking", obj("payload", { text: S })],
  ["text", obj("payload", { text: S })],
  ["error", obj("payload", { message: S })],
  ["tool_call", obj("payload", { tool: S, tool_call_id: S })],
  ["tool_output_append", obj("payload", { tool: S, chunk: S, tool_call_id: S })],
]);

function zero(s) {
  if (ZERO.has(s)) return ZERO.get(s);
  return Array.isArray(s) || s.keys === undefined || s.ptr ? null : fields(s); // null: P, a list, a map, a pointer
}

// fields is an object of schema s with every field at its zero value.
function fields(s) {
  const o = Object.create(null);
  for (const [k, f] of s.keys) o[k] = zero(f);
  return o;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// decode reads v, found at path, by its schema s; nums holds the exact
// text of the numbers of an op given as text.
function decode(s, v, path, nums) {
  if (s === ANY) return v;
  if (v === null) return zero(s);
  if (s === S || s === B) {
    if (typeof v !== s) throw new OpError(path + ": not a " + s);
    return s === S ? v.toWellFormed() : v;
  }
  if (s === I || s === P) return toInt64(v, path, nums);
  if (Array.isArray(s)) {
    if (!Array.isArray(v)) throw new OpError(path + ": not an array");
    return v.map((x, i) => decode(s[0], x, path + "\0" + i, nums));
  }
  if (!isObject(v)) throw new OpError(path + ": not an object");
  const out = s.keys ? fields(s) : new Map();
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    const f = s.keys ? s.keys.get(k) : s.elem;
    if (f === undefined) throw new OpError(s.what + ": unknown key " + JSON.stringify(k));
    const d = decode(f, x, path + "\0" + k, nums);
    if (s.keys) out[k] = d;
    else out.set(k, d);
  }
  return out;
}

// toInt64 reads an int64: from its decimal text when the op was text, else
// a safe integer or a BigInt (an object from JSON.parse has already lost
// the digits past 2^53: refused, never rounded).
function toInt64(v, path, nums) {
  let b = null;
  if (nums !== null && typeof v === "number") {
    const t = nums.get(path.slice(1));
    if (/^-?(0|[1-9][0-9]*)$/.test(t)) b = BigInt(t);
  } else if (nums === null && (typeof v === "bigint" || Number.isSafeInteger(v))) {
    b = BigInt(v);
  }
  if (b === null || b < INT64_MIN || b > INT64_MAX) {
    throw new OpError(path + ": no int64 (in an object: a safe integer or a BigInt)");
  }
  return b;
}

// An at is canonical or refused (PROTOCOL.md §4.4), so every receiver keeps
// and shows one string: RFC 3339 in UTC with nine fractional digits, a real
// date and time in the years 1678 to 2261 (Go's Unix nanoseconds), or ""
// for unknown.
const AT = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.[0-9]{9}Z$/;

function parseAt(s) {
  if (s === "") return "";
  const m = AT.exec(s);
  // A field out of range (February 30, 24:00) moves the date: it reads back otherwise.
  const back = m && new Date(Date.UTC(m[1], m[2] - 1, m[3], m[4], m[5], m[6])).toISOString();
  if (m === null || m[1] < 1678 || m[1] > 2261 || back.slice(0, 19) !== s.slice(0, 19)) {
    throw new OpError("at " + JSON.stringify(s) + " is no canonical time in the years 1678 to 2261");
  }
  return s;
}

// decodeOp decodes one op given as JSON text or as an object. It throws
// (an OpError, or JSON.parse's SyntaxError) for what Go's Op.UnmarshalJSON
// rejects. The op's decoded form is its block as well as its result.
function decodeOp(input) {
  const v = typeof input === "string" ? JSON.parse(input) : input;
  const nums = typeof input === "string" ? scan(input) : null;
  if (!isObject(v)) throw new OpError("not an object");
  const op = decode(OP, v, "", nums);
  if (op.task === "" || op.turn === "") throw new OpError(op.type + " op without a task or a turn");
  if (op.type === "result") {
    // The counters a result op always carries (PROTOCOL.md §4.3).
    if (!isObject(v.counters) || COUNTER_NAMES.some((k) => v.counters[k] === undefined)) {
      throw new OpError("result without its counters");
    }
    validateResult(op);
  } else if (op.type === "block") {
    const ps = PAYLOADS.get(op.kind);
    if (ps === undefined || op.payload === undefined) throw new OpError("no payload of kind " + op.kind);
    op.payload = decode(ps, op.payload, "\0payload", nums);
    op.anchored = op.after !== null;
    op.after ??= 0n;
    op.at = parseAt(op.at);
    if (!validBlock(op)) throw new OpError("not a valid " + op.source + " block");
    op.truncated = Number(op.truncated); // within 0..1 MiB: validBlock checked it
    // A chunk's size: a stub's text is gone, its size in truncated.
    if (op.kind === "tool_output_append") op.n = utf8Length(op.payload.chunk) + op.truncated;
  } else if (op.type !== "seal") {
    throw new OpError("type " + JSON.stringify(op.type));
  }
  return op;
}

// The settled verdicts, each with its A2A state: input-required's is
// TASK_STATE_INPUT_REQUIRED.
const VERDICTS = ["completed", "failed", "rejected", "canceled", "input-required", "auth-required"];
const stateOf = (verdict) => "TASK_STATE_" + verdict.toUpperCase().replace("-", "_");
const STATUSES = new Set(["running", "done", "aborted"]);

// FALLBACK_REASONS are the reasons a fallback can have (PROTOCOL.md §2.6):
// Go's isFallbackReason.
const FALLBACK_REASONS = new Set(["no_envelope", "bad_json", "unsupported_version", "unknown_kind", "bad_field",
  "chunk_too_large", "envelope_too_large"]);

// validateResult is Go's TurnResult.Validate.
function validateResult(r) {
  if (r.verdict === "incomplete") {
    if (VERDICTS.some((v) => stateOf(v) === r.state)) throw new OpError("result: verdict incomplete with a settled state");
  } else if (!VERDICTS.includes(r.verdict)) {
    throw new OpError("result: verdict " + JSON.stringify(r.verdict));
  } else if (r.state !== stateOf(r.verdict)) {
    throw new OpError("result: verdict " + r.verdict + " with state " + JSON.stringify(r.state));
  }
  if (r.reply !== "" && r.verdict !== "completed") throw new OpError("result: a reply with verdict " + r.verdict);
  if (r.interrupt !== null && !r.verdict.endsWith("-required")) throw new OpError("result: an interrupt with " + r.verdict);
  const c = r.counters;
  if ([...COUNTER_NAMES, "invalid"].some((k) => c[k] < 0n)) throw new OpError("result: a negative counter");
  for (const [reason, n] of c.fallbacks ?? []) {
    if (n < 0n || !FALLBACK_REASONS.has(reason)) throw new OpError("result: fallback counter " + JSON.stringify(reason));
  }
}

// validBlock is Go's Block.valid — a kind with its payload (a tool call and
// a chunk name their tool), a status, a source with its identity — and what
// a producer always writes for a placed block (an ordinal, PROTOCOL.md §4.1).
function validBlock(b) {
  const p = b.payload;
  if (!STATUSES.has(b.status) || b.truncated < 0n || b.truncated > MAX_ENVELOPE_BYTES || p.tool === "") return false;
  // The nesting extension (PROTOCOL.md §10): only an envelope nests, and
  // never under its own call.
  if (b.parent !== "" && (b.source !== "envelope" || b.parent === toolKey(b))) return false;
  if (b.kind === "tool_output_append" && (utf8Length(p.chunk) > HARD_CHUNK_LIMIT ||
    b.truncated > HARD_CHUNK_LIMIT || (b.truncated > 0 && p.chunk !== ""))) {
    // A chunk with truncated is a snapshot's stub (PROTOCOL.md §4.1): no
    // text, its size (at most the hard limit) in truncated.
    return false;
  }
  switch (b.source) {
    case "envelope":
      return b.id === "" && b.reason === "" && !b.anchored && b.ordinal === 0n;
    case "fallback":
      return b.kind === "text" && b.streamKey === "" && b.seq === 0n && b.ordinal >= 1n && FALLBACK_REASONS.has(b.reason);
    case "projection":
      return b.id !== "" && b.streamKey !== "" && b.reason === "" && b.kind !== "tool_output_append" && b.ordinal >= 1n;
  }
  return false;
}

// sameBlock reports whether b, an arrival with the identity of the applied
// block a, has its content: all but at, after and ordinal.
function sameBlock(a, b) {
  if (a.source !== b.source || a.streamKey !== b.streamKey || a.seq !== b.seq || a.kind !== b.kind ||
    a.status !== b.status || a.reason !== b.reason || a.overSoftLimit !== b.overSoftLimit || a.parent !== b.parent) {
    return false;
  }
  const p = a.payload;
  const q = b.payload;
  if (a.kind !== "tool_output_append") return Object.keys(p).every((k) => p[k] === q[k]);
  // When a cap dropped either text (here, or upstream: a stub), the size is
  // what is left to compare.
  return p.tool === q.tool && p.tool_call_id === q.tool_call_id && a.n === b.n &&
    (p.chunk === q.chunk || utf8Length(p.chunk) !== a.n || b.truncated !== 0);
}

// capText cuts the text of a thinking, text or error payload to max bytes.
function capText(b, max) {
  const field = b.kind === "error" ? "message" : b.kind === "text" || b.kind === "thinking" ? "text" : null;
  if (field === null || b.payload[field].length <= max / 3) return; // at most 3 bytes per UTF-16 unit
  const [head, cut] = headBytes(b.payload[field], max);
  b.payload[field] = head;
  b.truncated += cut;
}

function identTooLong(b) {
  const p = b.payload;
  return [b.streamKey, b.id, b.parent, p.tool ?? "", p.tool_call_id ?? ""].some(
    (s) => s.length > MAX_IDENT_BYTES / 3 && utf8Length(s) > MAX_IDENT_BYTES);
}

const toolKey = (b) => (b.streamKey !== "" ? b.streamKey : b.payload.tool_call_id ?? "");

const compareSeqKey = (a, b) => compareBig(a.seq, b.seq) || compareStrings(a.streamKey, b.streamKey);

// comparePlace orders blocks: by position, then class at that position —
// an unanchored fallback (0) precedes an envelope (1) precedes a block
// anchored at its seq (2) —, then, for other than envelopes, ordinal.
function comparePlace(a, b) {
  const [pa, ca] = a.source === "envelope" ? [a.seq, 1] : a.anchored ? [a.after, 2] : [INT64_MIN, 0];
  const [pb, cb] = b.source === "envelope" ? [b.seq, 1] : b.anchored ? [b.after, 2] : [INT64_MIN, 0];
  return compareBig(pa, pb) || ca - cb || (ca !== 1 && compareBig(a.ordinal, b.ordinal)) ||
    compareStrings(a.streamKey, b.streamKey) || compareBig(a.ordinal, b.ordinal) || compareStrings(a.id, b.id);
}

// bisect is the first index of the sorted list whose element is not below x.
function bisect(list, x, compare) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compare(list[mid], x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// between counts the seqs absent strictly between seqs[i] and seqs[j],
// saturating at the int64 maximum.
function between(seqs, i, j) {
  const n = seqs[j] - seqs[i] - BigInt(j - i);
  return n > INT64_MAX ? INT64_MAX : n;
}

// ---------------------------------------------------------------------------
// One turn's merge state: Go's merge.core, as a Receiver uses it.

// A Stream is one tool key's blocks, and the chunks whose text it keeps:
// the newest (by seq) that fit in maxOutputBytes, and the one the cap cuts.
class Stream {
  constructor(key, proj) {
    this.key = key;
    this.proj = proj; // a projection's call: a key space of its own
    this.blocks = [];
    this.kept = []; // by (seq, streamKey)
    this.keptBytes = 0;
  }

  add(b, max) {
    this.blocks.push(b);
    // A stub's text is gone: the output cap of a snapshot's producer
    // dropped it, and it counts as evicted here too.
    if (b.kind !== "tool_output_append" || b.truncated !== 0) return;
    const k = this.kept;
    k.splice(bisect(k, b, compareSeqKey), 0, b);
    this.keptBytes += b.n;
    while (k.length > 1 && this.keptBytes - k[0].n >= max) {
      const old = k.shift();
      this.keptBytes -= old.n;
      old.payload = { ...old.payload, chunk: "" }; // releases the text; old.n keeps its size
    }
  }

  // render is the stream's tool call, or null when no block of it names a
  // call (a key that only a done or aborted block touched), and where the
  // call stands among the others.
  render(turn) {
    const calls = this.blocks.filter((b) => b.kind === "tool_call");
    const chunks = this.blocks.filter((b) => b.kind === "tool_output_append");
    if (calls.length + chunks.length === 0) return null;
    const start = lowest(calls, compareSeqKey); // names the call, else its first chunk does
    const named = start ?? lowest(chunks, compareSeqKey);
    const end = lowest(this.blocks.filter((b) => b.status !== "running"), compareSeqKey);
    const first = lowest([...calls, ...chunks], compareSeqKey).seq;
    const bytes = chunks.reduce((n, b) => n + b.n, 0);
    const k = this.kept;
    // The cut lies inside the first kept chunk: the others alone are under
    // the cap (see add).
    const [head, cut] = tailFrom(k[0]?.payload.chunk ?? "", this.keptBytes - turn.caps.maxOutputBytes);
    const tc = {
      key: this.key, tool: named.payload.tool, toolCallId: named.payload.tool_call_id,
      status: end?.status ?? (turn.sealed ? "unfinished" : "running"), started: start !== null, firstSeq: first,
      output: head, truncated: bytes - this.keptBytes + cut, gaps: 0, chunks: chunks.length, bytes,
      parent: named.parent, depth: 0,
    };
    for (let i = 1; i < k.length; i++) {
      const missing = turn.missingBetween(k[i - 1].seq, k[i].seq);
      if (missing > 0n) {
        if (tc.output !== "" && !tc.output.endsWith("\n")) tc.output += "\n";
        tc.output += gapMarker(missing);
        tc.gaps++;
      }
      tc.output += k[i].payload.chunk;
    }
    // A projection's call stands where its tool_call of the lowest ordinal does.
    const place = this.proj ? lowest(calls, (a, b) => compareBig(a.ordinal, b.ordinal)) :
      { source: "envelope", seq: first, streamKey: this.key, ordinal: 0n, id: "" };
    return { tc, proj: this.proj, place };
  }
}

// lowest is the first of the list's lowest elements, or null.
const lowest = (list, compare) => list.reduce((low, x) => (low === null || compare(x, low) < 0 ? x : low), null);

// normalizeCaps takes DEFAULT_CAPS's for a missing, zero or negative cap.
function normalizeCaps(caps) {
  const pick = (v, d) => (typeof v === "number" && v > 0 ? Math.floor(v) : d);
  const c = Object.fromEntries(Object.entries(DEFAULT_CAPS).map(([k, d]) => [k, pick(caps?.[k], d)]));
  c.maxBlocks = Math.min(c.maxBlocks, MAX_INT32); // as Go's, whose block refs are int32
  return c;
}

class Turn {
  constructor(task, turn, caps) {
    this.task = task;
    this.turn = turn;
    this.caps = caps;
    this.sealed = false;
    this.result = null;
    this.shown = []; // the view's blocks (all but chunks), sorted at each view
    this.byIdentity = new Map(); // "seq|streamKey" of an envelope, "#id" of another → its block
    this.streams = new Map(); // key ("e" + key, "p" + key for a projection's) → Stream
    this.seqSet = new Set(); // the envelopes' seqs
    this.seqs = []; // seqSet, sorted at each view
    this.maxSeq = null;
    this.counters = { applied: 0, duplicates: 0, conflicts: 0, late: 0, droppedByCap: 0, fallbacks: new Map() };
  }

  apply(b) {
    const c = this.counters;
    capText(b, this.caps.maxTextBytes);
    // Identity first: a duplicate of an applied block is a duplicate even
    // when a cap is full.
    const id = b.source === "envelope" ? b.seq + "|" + b.streamKey : "#" + b.id;
    const old = this.byIdentity.get(id);
    if (old !== undefined) {
      const same = sameBlock(old, b);
      c[same ? "duplicates" : "conflicts"]++;
      return res(same ? Effects.duplicate : Effects.conflict);
    }
    const touchesTool = b.source !== "fallback" &&
      (b.kind === "tool_call" || b.kind === "tool_output_append" || b.status !== "running");
    let st = null;
    if (c.applied >= this.caps.maxBlocks || identTooLong(b) ||
      (touchesTool && (st = this.stream(toolKey(b), b.source === "projection")) === null)) {
      c.droppedByCap++;
      return res(Effects.droppedCap);
    }
    let late = false;
    if (b.source === "envelope") {
      late = this.maxSeq !== null && b.seq < this.maxSeq;
      if (late) c.late++;
      if (this.maxSeq === null || b.seq > this.maxSeq) this.maxSeq = b.seq;
      this.seqSet.add(b.seq);
    } else if (b.source === "fallback") {
      c.fallbacks.set(b.reason, (c.fallbacks.get(b.reason) ?? 0) + 1);
    }
    this.byIdentity.set(id, b);
    if (b.kind !== "tool_output_append") this.shown.push(b);
    c.applied++;
    st?.add(b, this.caps.maxOutputBytes);
    return res(Effects.applied, late);
  }

  stream(key, proj) {
    const k = (proj ? "p" : "e") + key;
    let st = this.streams.get(k);
    if (st === undefined) {
      if (this.streams.size >= this.caps.maxStreamKeys) return null;
      this.streams.set(k, (st = new Stream(key, proj)));
    }
    return st;
  }

  missingBetween(a, b) {
    return between(this.seqs, bisect(this.seqs, a, compareBig), bisect(this.seqs, b, compareBig));
  }

  // view is the turn's schema.View, its int64 fields BigInts.
  view(invalid) {
    // Sorted in place: arrivals are mostly in order, and a sorted list
    // sorts in one pass.
    this.shown.sort(comparePlace);
    this.seqs = [...this.seqSet].sort(compareBig);
    const calls = [...this.streams.values()].map((st) => st.render(this)).filter((call) => call !== null);
    calls.sort((a, b) => comparePlace(a.place, b.place));
    nestCalls(calls);
    const c = this.counters;
    const n = this.seqs.length;
    const counters = { ...c, gaps: n < 2 ? 0n : between(this.seqs, 0, n - 1), droppedAfterSeal: 0, invalid };
    const toolCalls = calls.map((call) => toolModel(call.tc));
    return { task: this.task, turn: this.turn, blocks: this.shown.map(blockModel), toolCalls,
      counters: countersModel(counters), sealed: this.sealed };
  }
}

// nestCalls is Go's nestCalls: each call's depth is the length of its chain
// of parents up to a top-level call, when that is at most MAX_DEPTH; 0
// otherwise (no parent, a parent that is no call, a chain too long or a
// loop). A projection's call is no parent (a key space of its own).
function nestCalls(calls) {
  const byKey = new Map(calls.filter((c) => !c.proj).map((c) => [c.tc.key, c.tc]));
  const up = (tc) => (tc.parent === "" ? undefined : byKey.get(tc.parent));
  for (const { tc } of calls) {
    let n = 0;
    for (let p = up(tc); p !== undefined && n <= MAX_DEPTH; p = up(p)) n++;
    tc.depth = n <= MAX_DEPTH ? n : 0;
  }
}

// ---------------------------------------------------------------------------
// Views and results as data: Go's field names, and the fields Go's encoder
// leaves out at their zero value (omitempty) left out.

function omitEmpty(o, ...keys) {
  for (const k of keys) {
    const v = o[k];
    if (v === "" || v === 0 || v === 0n || v === false || v === null || v?.length === 0) delete o[k];
  }
  return o;
}

function blockModel(b) {
  return omitEmpty({
    streamKey: b.streamKey, seq: b.seq, id: b.id, kind: b.kind, status: b.status,
    payload: omitEmpty({ ...b.payload }, "tool_call_id"), source: b.source, reason: b.reason,
    overSoftLimit: b.overSoftLimit, parent: b.parent, truncated: b.truncated,
    ...(b.anchored ? { after: b.after } : {}), // a pointer in Go: 0 is there
    ordinal: b.ordinal, at: b.at,
  }, "reason", "overSoftLimit", "parent", "truncated", "ordinal", "at");
}

const toolModel = (tc) => omitEmpty(tc, "toolCallId", "truncated", "gaps", "parent", "depth");

function countersModel(c) {
  const o = Object.fromEntries([...COUNTER_NAMES, "invalid"].map((k) => [k, c[k]]));
  // By reason, sorted: two results' counters compare as text (sameResult).
  if (c.fallbacks?.size > 0) o.fallbacks = Object.fromEntries([...c.fallbacks].sort(([a], [b]) => (a < b ? -1 : 1)));
  return omitEmpty(o, "invalid");
}

function resultModel(r) {
  const interrupt = r.interrupt && omitEmpty({ question: r.interrupt.question,
    items: r.interrupt.items?.map((i) => ({ toolCallId: i.toolCallId, toolName: i.toolName, message: i.message })) ?? null,
  }, "items");
  return omitEmpty({
    state: r.state, verdict: r.verdict, reply: r.reply,
    artifacts: r.artifacts?.map((a) => omitEmpty({ id: a.id, name: a.name, text: a.text }, "name")) ?? null,
    artifactsTruncated: r.artifactsTruncated, interrupt, error: r.error, context: r.context,
    counters: countersModel(r.counters),
  }, "reply", "artifacts", "artifactsTruncated", "interrupt", "error", "context");
}

// sameResult is Go's TurnResult.equal.
const sameResult = (a, b) => exactJSON(resultModel(a)) === exactJSON(resultModel(b));

// plain is a model with plain numbers for its BigInts.
function plain(v) {
  if (typeof v === "bigint") return Number(v);
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(plain);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
}

// exactJSON is a model's JSON text, its BigInts exact.
function exactJSON(v) {
  if (typeof v === "bigint") return String(v);
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(exactJSON).join(",") + "]";
  return "{" + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ":" + exactJSON(x)).join(",") + "}";
}

// ---------------------------------------------------------------------------

/**
 * A front end's model of a task's progress (see the top of this file; the
 * API is documented in receiver.d.ts). At most MAX_RECEIVER_TURNS are kept:
 * a new one beyond them evicts the oldest, whose later ops are refused
 * (dropped_cap, counted by refused()) rather than opening it again. Bad
 * input never throws: an op that cannot be decoded, that Go's decoder would
 * reject, that names another task, or whose turn id is longer than
 * MAX_IDENT_BYTES, is counted in counters.invalid (of every view).
 */
export class Receiver {
  /**
   * task is the A2A taskId whose ops this receiver takes; options.caps bound
   * each turn. Give it the producer's caps: the output cap decides which
   * chunk bytes a view shows.
   */
  constructor(task, options = {}) {
    this.#task = String(task ?? "");
    this.#caps = normalizeCaps(options?.caps);
  }

  #task;
  #caps;
  #turns = new Map(); // id → Turn, by first arrival
  #latest = null;
  #invalid = 0;
  #refused = 0;
  #evicted = new Set(); // the ids of the last MAX_RECEIVER_TURNS evicted turns, oldest first

  /** Merges one op, given as its JSON text (exact int64) or as an object: {effect, late}. */
  apply(op) {
    let o;
    try {
      o = decodeOp(op);
    } catch {
      o = null; // OpError or JSON.parse's SyntaxError: counted, never thrown
    }
    if (o === null || o.task !== this.#task || utf8Length(o.turn) > MAX_IDENT_BYTES) {
      this.#invalid++;
      return res(Effects.invalid);
    }
    const t = this.#turn(o.turn);
    if (t === null) {
      this.#refused++;
      return res(Effects.droppedCap);
    }
    if (o.type === "seal") {
      const was = t.sealed;
      t.sealed = true;
      return res(was ? Effects.duplicate : Effects.applied);
    }
    if (o.type === "result") {
      if (t.result !== null) return res(sameResult(t.result, o) ? Effects.duplicate : Effects.conflict);
      t.result = o;
      return res(Effects.applied);
    }
    return t.apply(o);
  }

  #turn(id) {
    const t = this.#turns.get(id);
    if (t !== undefined || this.#evicted.has(id)) return t ?? null;
    if (this.#turns.size === MAX_RECEIVER_TURNS) {
      const [old] = this.#turns.keys();
      this.#turns.delete(old);
      this.#evicted.add(old);
      if (this.#evicted.size > MAX_RECEIVER_TURNS) this.#evicted.delete(this.#evicted.values().next().value);
    }
    this.#latest = new Turn(this.#task, id, this.#caps);
    this.#turns.set(id, this.#latest);
    return this.#latest;
  }

  // #view is a turn's view with BigInts (the latest when turn is
  // undefined: before any valid op, an empty view with turn ""), or null.
  #view(turn) {
    const t = turn === undefined ? this.#latest ?? new Turn(this.#task, "", this.#caps) : this.#turns.get(turn);
    return t === undefined ? null : t.view(this.#invalid);
  }

  /** The latest turn's view (plain values, int64 fields as numbers); before any valid op, an empty view with turn "". */
  view() {
    return plain(this.#view());
  }

  /** The latest turn's view as JSON, its int64 fields exact. */
  viewJSON() {
    return exactJSON(this.#view());
  }

  /** The view of the turn with id turn, or null when the receiver does not keep it. */
  turnView(turn) {
    return plain(this.#view(String(turn)));
  }

  /** turnView as exact JSON, or null. */
  turnViewJSON(turn) {
    const v = this.#view(String(turn));
    return v === null ? null : exactJSON(v);
  }

  /** The ids of the turns kept, in the order their first op arrived: the last is the latest. */
  turns() {
    return [...this.#turns.keys()];
  }

  #result(turn) {
    const t = turn === undefined ? this.#latest : this.#turns.get(String(turn));
    return t?.result ? resultModel(t.result) : null;
  }

  /** The result op of the latest turn (or of turn), or null before it arrived. */
  result(turn) {
    return plain(this.#result(turn));
  }

  /** result as exact JSON ("null" before it arrived). */
  resultJSON(turn) {
    return exactJSON(this.#result(turn));
  }

  /** The ops refused because their turn was evicted. */
  refused() {
    return this.#refused;
  }
}
