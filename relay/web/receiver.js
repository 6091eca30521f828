// receiver.js — the browser side of the a2a-progress op stream.
//
// A Receiver is a front end's model of one task, fed with the ops the Go SDK
// forwards (block, seal and result ops, PROTOCOL.md §4; the rules below are
// §6 in full). It is a port of Go's merge.Receiver, and both are
// checked against the same golden vectors (testdata/ops/) and against each
// other on random op streams: for the same ops, apply says the same, and
// viewJSON() and resultJSON() are byte for byte Go's json.Marshal of
// schema.View and schema.Result. JSON.stringify(view()) is the same JSON
// but for Go's escaping of <, >, &, U+2028 and U+2029, for int64 values
// beyond 2^53 (see Numbers), and for a fallback reason that is an array
// index ("7"), which a JS object lists first where Go sorts it as a string.
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
// Numbers. Seqs are int64 on the wire. Inside, every seq, anchor and ordinal
// is a BigInt, so order and gap counts are exact over the whole int64 range.
// Give apply() the op's JSON text (an NDJSON line, an SSE data field) to keep
// them exact: JSON.parse reads it, and the int64 fields are read from the
// text itself (see decodeOp; keys are exact, as in Go). An op given
// as an object (from JSON.parse) has already lost digits above 2^53, so such
// an int64 field must be a safe integer or a BigInt, else the op is invalid
// (never silently rounded). view() gives plain numbers (exact up to 2^53,
// the nearest double beyond); viewJSON() is always exact.
//
// No dependencies, no DOM: render agent text with textContent, never
// innerHTML — tool output, text and results are peer text.

/** The caps a Receiver applies when none are given (Go merge.DefaultCaps; PROTOCOL.md §6.7). */
export const DEFAULT_CAPS = Object.freeze({
  maxBlocks: 10000,
  maxStreamKeys: 10000,
  maxOutputBytes: 256 << 10,
  maxTextBytes: 8 << 10,
});

/** The longest identifier a block may carry (Go merge.MaxIdentBytes). */
export const MAX_IDENT_BYTES = 1024;

const HARD_CHUNK_LIMIT = 64 << 10;
const MAX_ENVELOPE_BYTES = 1 << 20;
const MAX_INT32 = 2147483647;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const MAX_JSON_DEPTH = 10000; // Go's encoding/json nesting limit

/** The effects of apply: what applying one op did (Go merge.Effect names). */
export const Effects = Object.freeze({
  applied: "applied",
  duplicate: "duplicate",
  conflict: "conflict",
  droppedSealed: "dropped_sealed",
  droppedCap: "dropped_cap",
  invalid: "invalid",
});

const KINDS = new Set(["thinking", "tool_call", "tool_output_append", "text", "error"]);
const STATUSES = new Set(["running", "done", "aborted"]);

/**
 * The line put into a tool call's output between two chunks where the turn
 * misses n seqs (Go merge.GapMarker).
 * @param {bigint|number} n
 */
export function gapMarker(n) {
  const s = String(n);
  return s === "1" ? "[gap: 1 seq missing]\n" : "[gap: " + s + " seqs missing]\n";
}

// ---------------------------------------------------------------------------
// Strings: Go compares strings as UTF-8 bytes, which is code point order; JS
// compares UTF-16 code units, which differs once a string holds a character
// above U+FFFF next to one in U+E000–U+FFFF.

function compareStrings(a, b) {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        // Surrogates (characters above U+FFFF) sort after U+E000–U+FFFF.
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareBig(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// utf8Length is the UTF-8 size of a well-formed string.
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 2; // a pair: 4 bytes for 2 code units
      i++;
    } else n += 2;
  }
  return n;
}

// wellFormed replaces lone surrogates by U+FFFD, as Go's decoder does with
// a "\ud800" escape: a string in a view is always valid UTF-8.
function wellFormed(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    s = s.slice(0, i) + "\ufffd" + s.slice(i + 1);
  }
  return s;
}

// headBytes is the longest prefix of whole characters of s that fits in max
// UTF-8 bytes (Go capText: cut at a rune boundary, keep the head).
function headBytes(s, max) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let w = 1;
    let units = 1;
    if (c >= 0x80) {
      if (c < 0x800) w = 2;
      else if (c >= 0xd800 && c < 0xdc00) {
        w = 4;
        units = 2;
      } else w = 3;
    }
    if (n + w > max) return s.slice(0, i);
    n += w;
    i += units - 1;
  }
  return s;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// tailFrom drops the first cut bytes of s and then any partial character;
// it returns the rest and the bytes dropped in all.
function tailFrom(s, cut) {
  if (cut <= 0) return [s, 0];
  const b = encoder.encode(s);
  let i = Math.min(cut, b.length);
  while (i < b.length && (b[i] & 0xc0) === 0x80) i++;
  return [decoder.decode(b.subarray(i)), i];
}

// ---------------------------------------------------------------------------
// Decoding an op (PROTOCOL.md §4), as Go's Op.UnmarshalJSON: JSON.parse for
// the syntax, then every key of the op form exactly and once (an unknown
// or differently-cased key, or a repeated one, makes the op invalid) and
// every value by its type. null leaves a string, number, bool or object
// at its zero value and makes after, interrupt, a list or a map absent.
// JSON.parse keeps numbers as doubles and lets a repeated key override, so
// when the op is text, scan() reads the text once more for the two things
// JSON.parse loses: the decimal text of every number (an int64 — seq,
// after, ordinal, truncated, a counter — is exact over its whole range,
// held as a BigInt) and repeated keys, at any depth.

class OpError extends Error {}

// scan returns the decimal text of each number in the valid JSON text, by
// its path (keys and indices joined by NUL), after checking that no object
// repeats a key and that nesting stays within Go's 10000.
const SCALAR = /[^ \t\n\r"{}[\]:,]+/y;
function scan(text) {
  const nums = new Map();
  const open = [];
  for (let i = 0; i < text.length;) {
    const c = text[i];
    const top = open[open.length - 1];
    if (c === '"') {
      let j = i;
      do {
        j = text.indexOf('"', j + 1);
        let n = 0;
        while (text[j - 1 - n] === "\\") n++;
        if (n % 2 === 0) break;
      } while (true);
      if (top?.keys && top.key === null) {
        const raw = text.slice(i + 1, j);
        const k = wellFormed(raw.includes("\\") ? JSON.parse('"' + raw + '"') : raw);
        if (top.keys.has(k)) throw new OpError("duplicate key " + JSON.stringify(k));
        top.keys.add(k);
        top.key = k;
      }
      i = j + 1;
    } else if (c === "{" || c === "[") {
      if (open.length >= MAX_JSON_DEPTH) throw new OpError("nested too deep");
      open.push(c === "{" ? { keys: new Set(), key: null } : { i: 0 });
      i++;
    } else if (c === "}" || c === "]") {
      open.pop();
      i++;
    } else if (c === ",") {
      if (top.keys) top.key = null;
      else top.i++;
      i++;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      SCALAR.lastIndex = i;
      const t = SCALAR.exec(text)[0];
      nums.set(open.map((f) => (f.keys ? f.key : f.i)).join("\0"), t);
      i += t.length;
    } else {
      i++; // white space, ':', a letter of true, false or null
    }
  }
  return nums;
}

// Schemas of the op form's values: S a string, B a bool, I an int64, P an
// int64 or absent (after), ANY a value not looked into; an object schema
// names its keys; [s] is a list of s; a map names none (any key, values
// of its schema).
const S = "string";
const B = "bool";
const I = "int64";
const P = "*int64";
const ANY = "any";
const obj = (what, keys, ptr = false) => ({ what, keys: new Map(Object.entries(keys)), ptr });
const map = (elem) => ({ what: "map", elem });

const COUNTERS = obj("counters", {
  applied: I, duplicates: I, conflicts: I, late: I, gaps: I, droppedAfterSeal: I, droppedByCap: I, invalid: I,
  fallbacks: map(I),
});

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
  switch (s) {
    case S:
      return "";
    case B:
      return false;
    case I:
      return 0n;
    case ANY:
      return undefined;
  }
  if (Array.isArray(s) || s.keys === undefined || s.ptr) return null; // P, a list, a map, a pointer
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
  switch (s) {
    case S:
      if (typeof v !== "string") throw new OpError(path + ": not a string");
      return wellFormed(v);
    case B:
      if (typeof v !== "boolean") throw new OpError(path + ": not a boolean");
      return v;
    case I:
    case P:
      return toInt64(v, path, nums);
  }
  if (Array.isArray(s)) {
    if (!Array.isArray(v)) throw new OpError(path + ": not an array");
    return v.map((x, i) => decode(s[0], x, path + "\0" + i, nums));
  }
  if (!isObject(v)) throw new OpError(path + ": not an object");
  const out = s.keys ? Object.create(null) : new Map();
  for (const [k, f] of s.keys ?? []) out[k] = zero(f);
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
  let b;
  if (typeof v === "bigint" && nums === null) {
    b = v;
  } else if (typeof v === "number") {
    const t = nums?.get(path.slice(1));
    if (t !== undefined) {
      if (!/^-?(0|[1-9][0-9]*)$/.test(t)) throw new OpError(path + ": not an integer: " + t);
      b = BigInt(t);
    } else if (Number.isSafeInteger(v)) {
      b = BigInt(v);
    } else {
      throw new OpError(path + ": " + v + " is not a safe integer (pass the op's JSON text for exact int64)");
    }
  } else {
    throw new OpError(path + ": not a number");
  }
  if (b < INT64_MIN || b > INT64_MAX) throw new OpError(path + ": out of int64 range");
  return b;
}

// An at is canonical or refused (PROTOCOL.md §4.4), so every receiver keeps
// and shows one string.
const AT = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.[0-9]{9}Z$/;

// parseAt checks the canonical form of an at (RFC 3339 in UTC with nine
// fractional digits, a real date and time in the years 1678 to 2261) and
// returns it, "" for unknown.
function parseAt(s) {
  if (s === "") return "";
  const m = AT.exec(s);
  if (m === null) throw new OpError("at " + JSON.stringify(s) + " is not canonical");
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
  if (y < 1678 || y > 2261) throw new OpError("at " + JSON.stringify(s) + " is outside the years 1678 to 2261");
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || se > 59) {
    throw new OpError("at " + JSON.stringify(s) + " is no time");
  }
  return s;
}

// decodeOp decodes one op given as JSON text or as an object. It throws
// (an OpError, or JSON.parse's SyntaxError) for what Go's Op.UnmarshalJSON
// rejects.
function decodeOp(input) {
  let v = input;
  let nums = null;
  if (typeof input === "string") {
    v = JSON.parse(input);
    nums = scan(input);
  }
  if (!isObject(v)) throw new OpError("not an object");
  const w = decode(OP, v, "", nums);
  if (w.task === "") throw new OpError(w.type + " op without a task");
  if (w.turn === "") throw new OpError(w.type + " op without a turn");
  const op = { type: w.type, task: w.task, turn: w.turn };
  switch (w.type) {
    case "seal":
      return op;
    case "result": {
      const c = v.counters;
      if (!isObject(c)) throw new OpError("result without counters");
      for (const k of REQUIRED_COUNTERS) {
        if (c[k] === undefined) throw new OpError("result counters without " + JSON.stringify(k));
      }
      const r = { state: w.state, verdict: w.verdict, reply: w.reply, artifacts: w.artifacts,
        artifactsTruncated: w.artifactsTruncated,
        interrupt: w.interrupt, error: w.error, context: w.context, counters: w.counters };
      validateResult(r);
      op.result = r;
      return op;
    }
    case "block":
      break;
    default:
      throw new OpError("type " + JSON.stringify(w.type));
  }
  const b = {
    streamKey: w.streamKey, seq: w.seq, id: w.id, kind: w.kind, status: w.status, payload: null,
    source: w.source, reason: w.reason, overSoftLimit: w.overSoftLimit, parent: w.parent, truncated: w.truncated,
    anchored: w.after !== null, after: w.after ?? 0n, ordinal: w.ordinal, at: parseAt(w.at),
  };
  const ps = PAYLOADS.get(b.kind);
  if (ps === undefined) throw new OpError("kind " + JSON.stringify(b.kind));
  if (w.payload === undefined) throw new OpError("payload: missing");
  b.payload = { kind: b.kind, ...decode(ps, w.payload, "\0payload", nums) };
  // envelope.Validate on the block's kind, status and payload.
  if (!STATUSES.has(b.status)) throw new OpError("status " + JSON.stringify(b.status));
  if ((b.kind === "tool_call" || b.kind === "tool_output_append") && b.payload.tool === "") {
    throw new OpError("payload.tool: required for kind " + b.kind);
  }
  // The nesting extension (PROTOCOL.md §10): only an envelope nests, and
  // never under its own call.
  if (b.parent !== "" && b.parent === toolKey(b)) throw new OpError("parent names the block's own tool call");
  if (b.parent !== "" && b.source !== "envelope") throw new OpError(b.source + " block with a parent");
  if (!validBlock(b)) throw new OpError("not a valid " + b.source + " block");
  // What a producer always writes for a placed block (PROTOCOL.md §4.1),
  // checked as schema/op.schema.json does.
  if (b.source !== "envelope" && b.ordinal < 1n) throw new OpError(b.source + " block without an ordinal");
  if (b.source === "fallback" && !FALLBACK_REASONS.has(b.reason)) {
    throw new OpError("fallback with the reason " + JSON.stringify(b.reason));
  }
  b.truncated = Number(b.truncated); // within 0..1 MiB: validBlock checked it
  op.block = b;
  return op;
}

const VERDICT_STATES = new Map([
  ["completed", "TASK_STATE_COMPLETED"],
  ["failed", "TASK_STATE_FAILED"],
  ["rejected", "TASK_STATE_REJECTED"],
  ["canceled", "TASK_STATE_CANCELED"],
  ["input-required", "TASK_STATE_INPUT_REQUIRED"],
  ["auth-required", "TASK_STATE_AUTH_REQUIRED"],
]);
const SETTLED_STATES = new Set(VERDICT_STATES.values());

// FALLBACK_REASONS are the reasons a fallback can have (PROTOCOL.md §2.6):
// Go's isFallbackReason.
const FALLBACK_REASONS = new Set(["no_envelope", "bad_json", "unsupported_version", "unknown_kind", "bad_field",
  "chunk_too_large", "envelope_too_large"]);

// REQUIRED_COUNTERS are the counters a result op always carries
// (PROTOCOL.md §4.3).
const REQUIRED_COUNTERS = ["applied", "duplicates", "conflicts", "late", "gaps", "droppedAfterSeal", "droppedByCap"];

// validateResult is Go's TurnResult.Validate.
function validateResult(r) {
  if (r.verdict === "incomplete") {
    if (SETTLED_STATES.has(r.state)) throw new OpError("result: verdict incomplete with a settled state");
  } else if (!VERDICT_STATES.has(r.verdict)) {
    throw new OpError("result: verdict " + JSON.stringify(r.verdict));
  } else if (r.state !== VERDICT_STATES.get(r.verdict)) {
    throw new OpError("result: verdict " + r.verdict + " with state " + JSON.stringify(r.state));
  }
  if (r.reply !== "" && r.verdict !== "completed") throw new OpError("result: a reply with verdict " + r.verdict);
  if (r.interrupt !== null && r.verdict !== "input-required" && r.verdict !== "auth-required") {
    throw new OpError("result: an interrupt with verdict " + r.verdict);
  }
  const c = r.counters;
  for (const k of ["applied", "duplicates", "conflicts", "late", "gaps", "droppedAfterSeal", "droppedByCap", "invalid"]) {
    if (c[k] < 0n) throw new OpError("result: a negative counter");
  }
  if (c.fallbacks !== null) {
    for (const [reason, n] of c.fallbacks) {
      if (n < 0n || !FALLBACK_REASONS.has(reason)) throw new OpError("result: fallback counter " + JSON.stringify(reason));
    }
  }
}

// sameResult is Go's TurnResult.equal.
function sameResult(a, b) {
  const sameList = (x, y, same) => (x ?? []).length === (y ?? []).length && (x ?? []).every((e, i) => same(e, y[i]));
  const sameArtifact = (x, y) => x.id === y.id && x.name === y.name && x.text === y.text;
  const sameItem = (x, y) => x.toolCallId === y.toolCallId && x.toolName === y.toolName && x.message === y.message;
  const sameInterrupt = (x, y) => x === null || y === null ? x === y :
    x.question === y.question && sameList(x.items, y.items, sameItem);
  const sameCounters = (x, y) => {
    for (const k of ["applied", "duplicates", "conflicts", "late", "gaps", "droppedAfterSeal", "droppedByCap", "invalid"]) {
      if (x[k] !== y[k]) return false;
    }
    const fx = x.fallbacks ?? new Map();
    const fy = y.fallbacks ?? new Map();
    return fx.size === fy.size && [...fx].every(([k, n]) => fy.has(k) && fy.get(k) === n);
  };
  return a.state === b.state && a.verdict === b.verdict && a.reply === b.reply &&
    a.artifactsTruncated === b.artifactsTruncated &&
    a.error === b.error && a.context === b.context && sameList(a.artifacts, b.artifacts, sameArtifact) &&
    sameInterrupt(a.interrupt, b.interrupt) && sameCounters(a.counters, b.counters);
}

// validBlock is Go's Block.valid: a kind with its payload, a status, a
// source with its identity.
function validBlock(b) {
  if (!KINDS.has(b.kind) || b.payload === null || b.payload.kind !== b.kind || !STATUSES.has(b.status) ||
    b.truncated < 0n || b.truncated > BigInt(MAX_ENVELOPE_BYTES)) {
    return false;
  }
  if (b.parent !== "" && (b.source !== "envelope" || b.parent === toolKey(b))) return false;
  if (b.kind === "tool_output_append" && (utf8Length(b.payload.chunk) > HARD_CHUNK_LIMIT ||
    b.truncated > HARD_CHUNK_LIMIT || (b.truncated > 0 && b.payload.chunk !== ""))) {
    // A chunk with truncated is a snapshot's stub (PROTOCOL.md §4.1): no
    // text, its size (at most the hard limit) in truncated.
    return false;
  }
  switch (b.source) {
    case "envelope":
      return b.id === "" && b.reason === "" && !b.anchored && b.after === 0n && b.ordinal === 0n;
    case "fallback":
      return b.kind === "text" && b.streamKey === "" && b.seq === 0n && (b.anchored || b.after === 0n) &&
        FALLBACK_REASONS.has(b.reason);
    case "projection":
      return b.id !== "" && b.streamKey !== "" && b.reason === "" && b.kind !== "tool_output_append" &&
        (b.anchored || b.after === 0n);
  }
  return false;
}

function samePayload(a, b) {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "thinking":
    case "text":
      return a.text === b.text;
    case "error":
      return a.message === b.message;
    case "tool_call":
      return a.tool === b.tool && a.tool_call_id === b.tool_call_id;
    default:
      return a.tool === b.tool && a.chunk === b.chunk && a.tool_call_id === b.tool_call_id;
  }
}

// capText cuts the text of a thinking, text or error payload to max bytes.
function capText(b, max) {
  const p = b.payload;
  const field = p.kind === "error" ? "message" : p.kind === "text" || p.kind === "thinking" ? "text" : null;
  if (field === null || p[field].length <= max / 3) return; // at most 3 bytes per UTF-16 unit
  const s = p[field];
  const size = utf8Length(s);
  if (size <= max) return;
  const head = headBytes(s, max);
  b.truncated += size - utf8Length(head);
  b.payload = { ...p, [field]: head };
}

function identTooLong(b) {
  const long = (s) => s.length > MAX_IDENT_BYTES / 3 && utf8Length(s) > MAX_IDENT_BYTES;
  if (long(b.streamKey) || long(b.id) || long(b.parent)) return true;
  const p = b.payload;
  if (p.kind === "tool_call" || p.kind === "tool_output_append") return long(p.tool) || long(p.tool_call_id);
  return false;
}

function toolKey(b) {
  if (b.streamKey !== "") return b.streamKey;
  const p = b.payload;
  if (p.kind === "tool_call" || p.kind === "tool_output_append") return p.tool_call_id;
  return "";
}

function touchesTool(b) {
  if (b.source === "fallback") return false;
  return b.kind === "tool_call" || b.kind === "tool_output_append" || b.status !== "running";
}

function compareSeqKey(seqA, keyA, seqB, keyB) {
  return compareBig(seqA, seqB) || compareStrings(keyA, keyB);
}

const MIN_POS = INT64_MIN;

// place is a block's position and its class at that position: an
// unanchored fallback (0) precedes an envelope (1) precedes a block anchored
// at its seq (2).
function comparePlace(a, b) {
  const pa = a.source === "envelope" ? a.seq : a.anchored ? a.after : MIN_POS;
  const ca = a.source === "envelope" ? 1 : a.anchored ? 2 : 0;
  const pb = b.source === "envelope" ? b.seq : b.anchored ? b.after : MIN_POS;
  const cb = b.source === "envelope" ? 1 : b.anchored ? 2 : 0;
  let c = compareBig(pa, pb) || ca - cb;
  if (c !== 0) return c;
  if (ca !== 1) {
    c = compareBig(a.ordinal, b.ordinal);
    if (c !== 0) return c;
  }
  return compareStrings(a.streamKey, b.streamKey) || compareBig(a.ordinal, b.ordinal) || compareStrings(a.id, b.id);
}

// ---------------------------------------------------------------------------
// One turn's merge state: Go's merge.core, as a Receiver uses it.

class Lowest {
  constructor() {
    this.set = false;
    this.seq = 0n;
    this.sk = "";
    this.v = null;
  }
  offer(seq, sk, v) {
    if (this.set && compareSeqKey(seq, sk, this.seq, this.sk) >= 0) return false;
    this.set = true;
    this.seq = seq;
    this.sk = sk;
    this.v = v;
    return true;
  }
}

class Stream {
  constructor(key, proj) {
    this.key = key;
    this.proj = proj;
    this.isTool = false;
    this.first = 0n;
    this.anchored = false;
    this.after = 0n;
    this.ordinal = 0n;
    this.start = new Lowest();
    this.chunk = new Lowest();
    this.end = new Lowest();
    // The parents (PROTOCOL.md §10) of the blocks start and chunk keep.
    this.startParent = "";
    this.chunkParent = "";
    this.heap = []; // chunk rec indices, a min-heap by (seq, streamKey)
    this.retained = 0;
    this.evicted = 0;
    this.chunks = 0;
    this.bytes = 0;
    this.stub = null;
  }

  markTool(seq) {
    if (this.isTool && seq >= this.first) return;
    this.isTool = true;
    this.first = seq;
  }

  add(core, idx) {
    const r = core.recs[idx];
    const p = r.payload;
    if (p.kind === "tool_call") {
      this.markTool(r.seq);
      if (this.start.offer(r.seq, r.key, p)) this.startParent = r.parent;
    } else if (p.kind === "tool_output_append") {
      this.markTool(r.seq);
      // Only the names: the chunk's text may be evicted.
      if (this.chunk.offer(r.seq, r.key, { tool: p.tool, tool_call_id: p.tool_call_id })) this.chunkParent = r.parent;
      this.chunks++;
      this.bytes += r.n;
      if (r.n > utf8Length(p.chunk)) {
        // A stub: the output cap of the snapshot's producer already dropped
        // its text. It counts as evicted here too.
        this.evicted += r.n;
      } else {
        this.retained += r.n;
        this.push(core, idx);
        this.evict(core);
      }
    }
    if (r.status !== "running") this.end.offer(r.seq, r.key, r.status);
  }

  addPlaced(b) {
    if (b.kind === "tool_call") {
      this.markTool(b.seq);
      this.start.offer(b.seq, b.streamKey, b.payload);
      if (this.ordinal === 0n || b.ordinal < this.ordinal) {
        this.anchored = b.anchored;
        this.after = b.after;
        this.ordinal = b.ordinal;
      }
    }
    if (b.status !== "running") this.end.offer(b.seq, b.streamKey, b.status);
  }

  placeBlock() {
    if (this.proj) {
      return { streamKey: this.key, seq: 0n, id: "", source: "projection", anchored: this.anchored,
        after: this.after, ordinal: this.ordinal };
    }
    return { streamKey: this.key, seq: this.first, id: "", source: "envelope", anchored: false, after: 0n, ordinal: 0n };
  }

  // stubOf is an evicted chunk p without its text, shared by the evicted
  // chunks of one name.
  stubOf(p) {
    const s = this.stub;
    if (s !== null && s.tool === p.tool && s.tool_call_id === p.tool_call_id) return s;
    this.stub = { kind: "tool_output_append", tool: p.tool, chunk: "", tool_call_id: p.tool_call_id };
    return this.stub;
  }

  evict(core) {
    const max = core.caps.maxOutputBytes;
    while (this.heap.length > 1) {
      const top = core.recs[this.heap[0]];
      if (this.retained - top.n < max) return;
      this.pop(core);
      this.retained -= top.n;
      this.evicted += top.n;
      top.payload = this.stubOf(top.payload); // releases the chunk text
    }
  }

  status(sealed) {
    if (this.end.set) return this.end.v;
    return sealed ? "unfinished" : "running";
  }

  render(core) {
    const named = this.start.set ? this.start.v : this.chunk.v;
    const tc = {
      key: this.key, tool: named ? named.tool : "", toolCallId: named ? named.tool_call_id : "",
      status: this.status(core.sealed), started: this.start.set, firstSeq: this.first, output: "",
      truncated: this.evicted, gaps: 0, chunks: this.chunks, bytes: this.bytes,
      parent: this.start.set ? this.startParent : this.chunkParent, depth: 0,
    };
    if (this.heap.length === 0) return tc;
    const recs = core.recs;
    const idx = this.heap.slice().sort((i, j) => compareSeqKey(recs[i].seq, recs[i].key, recs[j].seq, recs[j].key));
    // The cut lies inside the first retained chunk: the others alone are
    // under the cap (see evict).
    const [first, cut] = tailFrom(recs[idx[0]].payload.chunk, Math.max(this.retained - core.caps.maxOutputBytes, 0));
    tc.truncated += cut;
    let out = first;
    let prev = recs[idx[0]].seq;
    for (let k = 1; k < idx.length; k++) {
      const r = recs[idx[k]];
      const n = core.missingBetween(prev, r.seq);
      if (n > 0n) {
        if (out !== "" && !out.endsWith("\n")) out += "\n";
        out += gapMarker(n);
        tc.gaps++;
      }
      out += r.payload.chunk;
      prev = r.seq;
    }
    tc.output = out;
    return tc;
  }

  less(core, i, j) {
    const a = core.recs[i];
    const b = core.recs[j];
    return compareSeqKey(a.seq, a.key, b.seq, b.key) < 0;
  }

  push(core, idx) {
    const h = this.heap;
    h.push(idx);
    for (let k = h.length - 1; k > 0;) {
      const parent = (k - 1) >> 1;
      if (!this.less(core, h[k], h[parent])) break;
      [h[k], h[parent]] = [h[parent], h[k]];
      k = parent;
    }
  }

  pop(core) {
    const h = this.heap;
    const n = h.length - 1;
    h[0] = h[n];
    h.length = n;
    for (let k = 0; ;) {
      const l = 2 * k + 1;
      const r = l + 1;
      let m = k;
      if (l < n && this.less(core, h[l], h[m])) m = l;
      if (r < n && this.less(core, h[r], h[m])) m = r;
      if (m === k) break;
      [h[k], h[m]] = [h[m], h[k]];
      k = m;
    }
  }
}

function normalizeCaps(caps = {}) {
  const pick = (v, d) => (typeof v === "number" && v > 0 ? Math.floor(v) : d);
  return {
    maxBlocks: Math.min(pick(caps.maxBlocks, DEFAULT_CAPS.maxBlocks), MAX_INT32),
    maxStreamKeys: pick(caps.maxStreamKeys, DEFAULT_CAPS.maxStreamKeys),
    maxOutputBytes: pick(caps.maxOutputBytes, DEFAULT_CAPS.maxOutputBytes),
    maxTextBytes: pick(caps.maxTextBytes, DEFAULT_CAPS.maxTextBytes),
  };
}

class Core {
  constructor(task, turn, caps) {
    this.task = task;
    this.turn = turn;
    this.caps = caps;
    this.sealed = false;
    this.result = null;
    this.recs = []; // applied envelopes: {payload, key, seq, n, status, chunk, overSoft, at}
    this.fbs = []; // applied fallbacks and projections (blocks), by arrival
    this.bySeqKey = new Map(); // "seq|streamKey" → rec index
    this.byID = new Map(); // id → ref (~index into fbs)
    this.order = []; // refs shown in the view's blocks: i ≥ 0 a rec, i < 0 fbs[~i]
    this.sorted = true;
    this.hasSeq = false;
    this.maxSeq = 0n;
    this.seqs = [];
    this.seqsOf = 0;
    this.streams = [];
    this.byKey = new Map();
    this.byPKey = new Map();
    this.counters = { applied: 0, duplicates: 0, conflicts: 0, late: 0, droppedAfterSeal: 0, droppedByCap: 0,
      invalid: 0, fallbacks: new Map() };
  }

  apply(b) {
    const res = (effect, late = false) => ({ effect, late });
    if (!validBlock(b)) {
      this.counters.invalid++;
      return res(Effects.invalid);
    }
    capText(b, this.caps.maxTextBytes);
    // Identity first: a duplicate of an applied block is a duplicate even
    // when a cap is full.
    if (b.source !== "envelope") {
      const ref = this.byID.get(b.id);
      if (ref !== undefined) return res(this.duplicate(samePlaced(this.fbs[~ref], b)));
    } else {
      const i = this.bySeqKey.get(b.seq + "|" + b.streamKey);
      if (i !== undefined) return res(this.duplicate(sameRec(this.recs[i], b)));
    }
    if (this.recs.length + this.fbs.length >= this.caps.maxBlocks || identTooLong(b)) {
      this.counters.droppedByCap++;
      return res(Effects.droppedCap);
    }
    let st = null;
    if (touchesTool(b)) {
      st = this.stream(toolKey(b), b.source === "projection");
      if (st === null) {
        this.counters.droppedByCap++;
        return res(Effects.droppedCap);
      }
    }
    let late = false;
    let ref;
    if (b.source !== "envelope") {
      ref = ~this.fbs.length;
      this.fbs.push(b);
      this.byID.set(b.id, ref);
      if (b.source === "fallback") {
        const f = this.counters.fallbacks;
        f.set(b.reason, (f.get(b.reason) ?? 0) + 1);
      }
    } else {
      const seq = b.seq;
      if (this.hasSeq && seq < this.maxSeq) {
        late = true;
        this.counters.late++;
      }
      if (!this.hasSeq || seq > this.maxSeq) {
        this.hasSeq = true;
        this.maxSeq = seq;
      }
      ref = this.recs.length;
      const chunk = b.kind === "tool_output_append";
      // A chunk's n is its size; a stub's text is gone, its size in truncated.
      this.recs.push({ payload: b.payload, key: b.streamKey, seq,
        n: chunk ? utf8Length(b.payload.chunk) + b.truncated : b.truncated,
        status: b.status, chunk, overSoft: b.overSoftLimit, at: b.at, parent: b.parent });
      this.bySeqKey.set(seq + "|" + b.streamKey, ref);
    }
    if (b.kind !== "tool_output_append") {
      if (this.sorted && this.order.length > 0 && comparePlace(this.blockOf(this.order[this.order.length - 1]), b) > 0) {
        this.sorted = false;
      }
      this.order.push(ref);
    }
    this.counters.applied++;
    if (st !== null) {
      if (ref < 0) st.addPlaced(b);
      else st.add(this, ref);
    }
    return res(Effects.applied, late);
  }

  duplicate(same) {
    if (same) {
      this.counters.duplicates++;
      return Effects.duplicate;
    }
    this.counters.conflicts++;
    return Effects.conflict;
  }

  stream(key, proj) {
    const index = proj ? this.byPKey : this.byKey;
    const i = index.get(key);
    if (i !== undefined) return this.streams[i];
    if (this.streams.length >= this.caps.maxStreamKeys) return null;
    const st = new Stream(key, proj);
    index.set(key, this.streams.length);
    this.streams.push(st);
    return st;
  }

  // blockOf is the block a ref names.
  blockOf(ref) {
    if (ref < 0) return this.fbs[~ref];
    const r = this.recs[ref];
    return { streamKey: r.key, seq: r.seq, id: "", kind: r.chunk ? "tool_output_append" : r.payload.kind,
      status: r.status, payload: r.payload, source: "envelope", reason: "", overSoftLimit: r.overSoft, parent: r.parent,
      truncated: r.chunk ? r.n - utf8Length(r.payload.chunk) : r.n, anchored: false, after: 0n, ordinal: 0n, at: r.at };
  }

  missingBetween(a, b) {
    if (a === b) return 0n;
    return between(this.seqs, bisect(this.seqs, a), bisect(this.seqs, b));
  }

  // model builds the view with exact (BigInt) int64 fields.
  model() {
    if (!this.sorted) {
      const blocks = new Map();
      const get = (ref) => {
        let b = blocks.get(ref);
        if (b === undefined) blocks.set(ref, (b = this.blockOf(ref)));
        return b;
      };
      this.order.sort((i, j) => comparePlace(get(i), get(j)));
      this.sorted = true;
    }
    if (this.seqsOf < this.recs.length) {
      for (let i = this.seqsOf; i < this.recs.length; i++) this.seqs.push(this.recs[i].seq);
      this.seqsOf = this.recs.length;
      this.seqs.sort(compareBig);
      this.seqs = this.seqs.filter((s, i, a) => i === 0 || a[i - 1] !== s);
    }
    const c = this.counters;
    const counters = { applied: c.applied, duplicates: c.duplicates, conflicts: c.conflicts, late: c.late,
      gaps: this.seqs.length < 2 ? 0n : between(this.seqs, 0, this.seqs.length - 1),
      droppedAfterSeal: c.droppedAfterSeal, droppedByCap: c.droppedByCap, invalid: c.invalid,
      fallbacks: c.fallbacks.size > 0 ? new Map(c.fallbacks) : null };
    const blocks = this.order.map((ref) => this.blockOf(ref));
    const tools = this.streams.filter((st) => st.isTool);
    tools.sort(compareStreams);
    const toolCalls = tools.map((st) => st.render(this));
    nestCalls(toolCalls, tools);
    return { task: this.task, turn: this.turn, blocks, toolCalls, counters, sealed: this.sealed };
  }
}

// MAX_DEPTH caps how deep tool calls nest (PROTOCOL.md §10.3): Go's
// merge.MaxDepth.
export const MAX_DEPTH = 8;

// nestCalls is Go's nestCalls: each call's depth is the length of its chain
// of parents up to a top-level call, when that is at most MAX_DEPTH; 0
// otherwise (no parent, a parent that is no call, a chain too long or a
// loop). A projection's call is no parent (a key space of its own).
function nestCalls(calls, streams) {
  let byKey = null;
  for (const c of calls) {
    if (c.parent === "") continue;
    if (byKey === null) {
      byKey = new Map();
      calls.forEach((d, j) => {
        if (!streams[j].proj) byKey.set(d.key, d);
      });
    }
    let d = c;
    c.depth = 0;
    for (let n = 0; n <= MAX_DEPTH; n++) {
      const up = d.parent === "" ? undefined : byKey.get(d.parent);
      if (up === undefined) {
        c.depth = n;
        break;
      }
      d = up;
    }
  }
}

function samePlaced(a, b) {
  return a.source === b.source && a.streamKey === b.streamKey && a.seq === b.seq && a.kind === b.kind &&
    a.status === b.status && samePayload(a.payload, b.payload) && a.reason === b.reason &&
    a.overSoftLimit === b.overSoftLimit;
}

function sameRec(r, b) {
  if (r.status !== b.status || r.overSoft !== b.overSoftLimit || r.parent !== b.parent) return false;
  if (!r.chunk) return samePayload(r.payload, b.payload);
  const p = b.payload;
  const q = r.payload;
  if (p.kind !== "tool_output_append" || p.tool !== q.tool || p.tool_call_id !== q.tool_call_id ||
    utf8Length(p.chunk) + b.truncated !== r.n) {
    return false;
  }
  // When a cap dropped either text (here, or upstream: a stub), the size is
  // what is left to compare.
  return utf8Length(q.chunk) !== r.n || b.truncated !== 0 || p.chunk === q.chunk;
}

function compareStreams(a, b) {
  if (!a.proj && !b.proj) return compareSeqKey(a.first, a.key, b.first, b.key);
  return comparePlace(a.placeBlock(), b.placeBlock());
}

function bisect(sorted, v) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v) lo = mid + 1;
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
// The JSON of a view: Go's field names, order and omitempty.

function payloadModel(p) {
  switch (p.kind) {
    case "thinking":
    case "text":
      return { text: p.text };
    case "error":
      return { message: p.message };
    case "tool_call":
      return p.tool_call_id === "" ? { tool: p.tool } : { tool: p.tool, tool_call_id: p.tool_call_id };
    default:
      return p.tool_call_id === "" ? { tool: p.tool, chunk: p.chunk } :
        { tool: p.tool, chunk: p.chunk, tool_call_id: p.tool_call_id };
  }
}

function blockModel(b) {
  const o = { streamKey: b.streamKey, seq: b.seq, id: b.id, kind: b.kind, status: b.status,
    payload: payloadModel(b.payload), source: b.source };
  if (b.reason !== "") o.reason = b.reason;
  if (b.overSoftLimit) o.overSoftLimit = true;
  if (b.parent !== "") o.parent = b.parent;
  if (b.truncated !== 0) o.truncated = b.truncated;
  if (b.anchored) o.after = b.after;
  if (b.ordinal !== 0n) o.ordinal = b.ordinal;
  if (b.at !== "") o.at = b.at;
  return o;
}

function toolModel(tc) {
  const o = { key: tc.key, tool: tc.tool };
  if (tc.toolCallId !== "") o.toolCallId = tc.toolCallId;
  o.status = tc.status;
  o.started = tc.started;
  o.firstSeq = tc.firstSeq;
  o.output = tc.output;
  if (tc.truncated !== 0) o.truncated = tc.truncated;
  if (tc.gaps !== 0) o.gaps = tc.gaps;
  o.chunks = tc.chunks;
  o.bytes = tc.bytes;
  if (tc.parent !== "") o.parent = tc.parent;
  if (tc.depth !== 0) o.depth = tc.depth;
  return o;
}

// SortedMap marks a map that Go encodes with its keys in byte order.
class SortedMap {
  constructor(map) {
    this.map = map;
  }
}

function countersModel(c) {
  const o = { applied: c.applied, duplicates: c.duplicates, conflicts: c.conflicts, late: c.late, gaps: c.gaps,
    droppedAfterSeal: c.droppedAfterSeal, droppedByCap: c.droppedByCap };
  if (c.invalid != 0) o.invalid = c.invalid; // a number, or a BigInt in a result
  if (c.fallbacks !== null && c.fallbacks.size > 0) o.fallbacks = new SortedMap(c.fallbacks);
  return o;
}

function viewModel(m) {
  return {
    task: m.task,
    turn: m.turn,
    blocks: m.blocks.map(blockModel),
    toolCalls: m.toolCalls.map(toolModel),
    counters: countersModel(m.counters),
    sealed: m.sealed,
  };
}

// plain turns a model into plain JS values: numbers for BigInts, objects
// for sorted maps.
function plain(v) {
  if (typeof v === "bigint") return Number(v);
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(plain);
  const o = {};
  if (v instanceof SortedMap) {
    for (const k of [...v.map.keys()].sort(compareStrings)) define(o, k, plain(v.map.get(k)));
    return o;
  }
  for (const k of Object.keys(v)) define(o, k, plain(v[k]));
  return o;
}

function define(o, k, v) {
  // defineProperty: a key "__proto__" (a peer's reason) is an own property.
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

// goJSON encodes a model as Go's json.Marshal does: BigInts exact, map keys
// in byte order, and <, >, &, U+2028, U+2029 escaped.
function goJSON(v) {
  if (v === null) return "null";
  switch (typeof v) {
    case "bigint":
    case "number":
      return String(v);
    case "boolean":
      return v ? "true" : "false";
    case "string":
      return goString(v);
  }
  if (Array.isArray(v)) return "[" + v.map(goJSON).join(",") + "]";
  if (v instanceof SortedMap) {
    const keys = [...v.map.keys()].sort(compareStrings);
    return "{" + keys.map((k) => goString(k) + ":" + goJSON(v.map.get(k))).join(",") + "}";
  }
  return "{" + Object.keys(v).map((k) => goString(k) + ":" + goJSON(v[k])).join(",") + "}";
}

function goString(s) {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

// ---------------------------------------------------------------------------

/** The number of turns a Receiver keeps (Go merge.MaxReceiverTurns; PROTOCOL.md §6.7). */
export const MAX_RECEIVER_TURNS = 16;

function resultModel(r) {
  const o = { state: r.state, verdict: r.verdict };
  if (r.reply !== "") o.reply = r.reply;
  if (r.artifacts !== null && r.artifacts.length > 0) {
    o.artifacts = r.artifacts.map((a) => (a.name === "" ? { id: a.id, text: a.text } :
      { id: a.id, name: a.name, text: a.text }));
  }
  if (r.artifactsTruncated) o.artifactsTruncated = true;
  if (r.interrupt !== null) {
    o.interrupt = { question: r.interrupt.question };
    if (r.interrupt.items !== null && r.interrupt.items.length > 0) {
      o.interrupt.items = r.interrupt.items.map((i) => ({ toolCallId: i.toolCallId, toolName: i.toolName,
        message: i.message }));
    }
  }
  if (r.error !== "") o.error = r.error;
  if (r.context !== "") o.context = r.context;
  o.counters = countersModel(r.counters);
  return o;
}

/**
 * The answer of a turn's result: its reply when that is not empty, else the
 * non-empty text of its artifacts joined with "\n" ("" when there is neither) — the
 * rule of PROTOCOL.md §4.3, as Go's Result.Answer.
 * @param {{reply?: string, artifacts?: {text: string}[]} | null} result
 * @returns {string}
 */
export function answer(result) {
  if (result == null) return "";
  if (result.reply) return result.reply;
  return (result.artifacts ?? []).map((a) => a.text).filter((t) => t !== "").join("\n");
}

/**
 * A front end's model of a task's progress, fed with the ops the Go SDK
 * forwards (a port of Go's merge.Receiver): one view per turn, keyed by the
 * ops' turn id, so a second turn on the same task — whose seqs may start
 * anywhere again — never meets the first turn's blocks. Ops are idempotent
 * and may arrive in any order, any number of times. Turns are ordered by
 * the first arrival of one of their ops; view() is the latest. At most
 * MAX_RECEIVER_TURNS are kept: a new one beyond them evicts the oldest,
 * whose later ops are refused (dropped_cap, counted by refused()).
 *
 * Bad input never throws: an op that cannot be decoded, that Go's decoder
 * would reject, that names another task, or whose turn id is longer than
 * MAX_IDENT_BYTES, is counted in counters.invalid (of every view) and
 * ignored.
 */
export class Receiver {
  /**
   * @param {string} task the A2A taskId whose ops this receiver takes.
   * @param {{caps?: object}} [options] caps bound each turn: maxBlocks,
   *   maxStreamKeys, maxOutputBytes, maxTextBytes (a missing, zero or
   *   negative field takes its default, DEFAULT_CAPS). Give it the
   *   producer's caps: the output cap decides which chunk bytes a view shows.
   */
  constructor(task, options = {}) {
    this.#task = String(task ?? "");
    this.#caps = normalizeCaps(options?.caps);
  }

  #task;
  #caps;
  #turns = []; // by first arrival
  #byID = new Map();
  #invalid = 0;
  #refused = 0;
  // The ids of the last MAX_RECEIVER_TURNS evicted turns; #ring lists them,
  // oldest at #next.
  #evicted = new Set();
  #ring = [];
  #next = 0;

  /**
   * Merges one op, given as its JSON text (exact int64) or as an object.
   * A block op: applied, duplicate or conflict (the first arrival wins), or
   * dropped_cap. A seal op: applied the first time, duplicate after. A
   * result op: applied the first time, duplicate for the same result,
   * conflict for another (the first stands). An op of an evicted turn:
   * dropped_cap. Anything else: invalid.
   * @returns {{result: string, late: boolean}}
   */
  apply(op) {
    let o;
    try {
      o = decodeOp(op);
    } catch {
      // OpError or JSON.parse's SyntaxError: bad input is counted, never
      // thrown.
      return this.#invalidOp();
    }
    if (o.task !== this.#task || utf8Length(o.turn) > MAX_IDENT_BYTES ||
      (o.type === "block" && o.block.source !== "envelope" && o.block.ordinal < 1n)) {
      return this.#invalidOp();
    }
    const t = this.#turn(o.turn);
    if (t === null) {
      this.#refused++;
      return { effect: Effects.droppedCap, late: false };
    }
    switch (o.type) {
      case "seal":
        if (t.sealed) return { effect: Effects.duplicate, late: false };
        t.sealed = true;
        return { effect: Effects.applied, late: false };
      case "result":
        if (t.result === null) {
          t.result = o.result;
          return { effect: Effects.applied, late: false };
        }
        return { effect: sameResult(t.result, o.result) ? Effects.duplicate : Effects.conflict, late: false };
    }
    return t.apply(o.block);
  }

  #invalidOp() {
    this.#invalid++;
    return { effect: Effects.invalid, late: false };
  }

  #turn(id) {
    const t = this.#byID.get(id);
    if (t !== undefined) return t;
    if (this.#evicted.has(id)) return null;
    if (this.#turns.length === MAX_RECEIVER_TURNS) {
      const old = this.#turns.shift();
      this.#byID.delete(old.turn);
      this.#remember(old.turn);
    }
    const n = new Core(this.#task, id, this.#caps);
    this.#turns.push(n);
    this.#byID.set(id, n);
    return n;
  }

  #remember(id) {
    if (this.#ring.length < MAX_RECEIVER_TURNS) {
      this.#ring.push(id);
    } else {
      this.#evicted.delete(this.#ring[this.#next]);
      this.#ring[this.#next] = id;
      this.#next = (this.#next + 1) % MAX_RECEIVER_TURNS;
    }
    this.#evicted.add(id);
  }

  #model(turn) {
    let t;
    if (turn === undefined) {
      t = this.#turns[this.#turns.length - 1];
      if (t === undefined) {
        const v = viewModel(new Core(this.#task, "", this.#caps).model());
        if (this.#invalid !== 0) v.counters.invalid = this.#invalid;
        return v;
      }
    } else {
      t = this.#byID.get(turn);
      if (t === undefined) return null;
    }
    const m = t.model();
    m.counters.invalid = this.#invalid;
    return viewModel(m);
  }

  /** The latest turn's view (plain values, int64 fields as numbers); before any valid op, an empty view with turn "". */
  view() {
    return plain(this.#model());
  }

  /** The latest turn's view as Go's json.Marshal writes schema.View: exact, byte for byte. */
  viewJSON() {
    return goJSON(this.#model());
  }

  /** The view of the turn with id turn, or null when the receiver does not keep it. */
  turnView(turn) {
    const m = this.#model(String(turn));
    return m === null ? null : plain(m);
  }

  /** turnView as Go's JSON, or null. */
  turnViewJSON(turn) {
    const m = this.#model(String(turn));
    return m === null ? null : goJSON(m);
  }

  /** The ids of the turns kept, in the order their first op arrived: the last is the latest. */
  turns() {
    return this.#turns.map((t) => t.turn);
  }

  #result(turn) {
    const t = turn === undefined ? this.#turns[this.#turns.length - 1] : this.#byID.get(String(turn));
    return t === undefined || t.result === null ? null : resultModel(t.result);
  }

  /**
   * The result of the latest turn (or of turn, when given): its result op's
   * JSON object — state, verdict, reply, artifacts, interrupt, error,
   * context, counters — or null before it arrived. answer(result) is its
   * answer.
   */
  result(turn) {
    const m = this.#result(turn);
    return m === null ? null : plain(m);
  }

  /** result as Go's json.Marshal writes it ("null" before it arrived). */
  resultJSON(turn) {
    const m = this.#result(turn);
    return m === null ? "null" : goJSON(m);
  }

  /** The ops refused because their turn was evicted. */
  refused() {
    return this.#refused;
  }
}
