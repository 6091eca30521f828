// The JS Receiver against the golden vectors in testdata/ops/ (written by
// the Go generator, relay/web/vectors_test.go, from real merge.Turns and
// the Go Receiver), plus the JS-only promises. Run: node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { Receiver, DEFAULT_CAPS, gapMarker, answer, Effects } from "./receiver.js";
// The receiver as it was before the nesting extension (PROTOCOL.md §10),
// kept only for the test that a reader which knows nothing of it sees a
// flat, complete turn.
import { Receiver as ReceiverV1 } from "./testdata/receiver-v1.js";

const dir = fileURLToPath(new URL("./testdata/ops/", import.meta.url));
const names = readdirSync(dir).filter((f) => f.endsWith(".ops.ndjson")).map((f) => f.slice(0, -".ops.ndjson".length));

function lines(file) {
  const text = readFileSync(join(dir, file), "utf8");
  return text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
}

test("there are golden vectors", () => {
  assert.ok(names.length >= 10, `only ${names.length} vectors in ${dir}`);
});

for (const name of names) {
  test(`vector ${name}`, () => {
    const meta = JSON.parse(readFileSync(join(dir, name + ".json"), "utf8"));
    const ops = lines(name + ".ops.ndjson");
    const views = lines(name + ".views.ndjson");
    const r = new Receiver(meta.task, { caps: meta.caps });
    assert.deepEqual(ops.map((op) => r.apply(op).effect), meta.effects);
    assert.deepEqual(r.turns(), meta.turns);
    // Go's views and result as data (numbers past 2^53 rounded alike by
    // JSON.parse; TestDifferential compares them exactly).
    const want = views.map((v) => JSON.parse(v));
    const got = meta.turns.length === 0 ? [r.view()] : meta.turns.map((t) => r.turnView(t));
    assert.deepEqual(got, want);
    assert.deepEqual(r.view(), want.at(-1));
    assert.deepEqual(JSON.parse(r.viewJSON()), want.at(-1));
    assert.deepEqual(r.result(), meta.result);
    assert.deepEqual(JSON.parse(r.resultJSON()), meta.result);
  });
}

test("apply never throws on bad input", () => {
  const r = new Receiver("t1");
  const bad = [undefined, null, 42, true, [], "", "{", "[".repeat(100000), {}, { type: "block" },
    { type: "block", task: "t1", seq: 2 ** 60 }, { type: "block", task: "t1", seq: 1.5 }, Symbol.iterator,
    () => 1, new Proxy({}, { ownKeys() { throw new Error("hostile"); } })];
  for (const op of bad) assert.equal(r.apply(op).effect, "invalid");
  assert.equal(r.view().counters.invalid, bad.length);
});

test("an op object works like its JSON text; seqs past 2^53 need the text or a BigInt", () => {
  const op = { type: "block", task: "t1", turn: "m1", streamKey: "", seq: 7, id: "", kind: "text", status: "running",
    payload: { text: "hi" }, source: "envelope" };
  const a = new Receiver("t1");
  const b = new Receiver("t1");
  assert.equal(a.apply(op).effect, "applied");
  assert.equal(b.apply(JSON.stringify(op)).effect, "applied");
  assert.equal(a.viewJSON(), b.viewJSON());
  assert.equal(a.apply({ ...op, seq: 9007199254740993 }).effect, "invalid"); // not exact as a number
  assert.equal(a.apply({ ...op, seq: 9007199254740993n }).effect, "applied");
  const text = JSON.stringify({ ...op, seq: 0 }).replace('"seq":0', '"seq":9007199254740995');
  assert.equal(a.apply(text).effect, "applied");
  assert.match(a.viewJSON(), /"seq":9007199254740993,.*"seq":9007199254740995,/);
});

test("the effects of apply", () => {
  const r = new Receiver("t1", { caps: { maxBlocks: 2 } });
  const op = (seq, text) => JSON.stringify({ type: "block", task: "t1", turn: "m1", streamKey: "", seq, id: "", kind: "text",
    status: "running", payload: { text }, source: "envelope" });
  assert.deepEqual([op(5, "a"), op(5, "a"), op(5, "b"), op(3, "c"), op(9, "d"), op(3, "c")].map((o) => r.apply(o)),
    [{ effect: "applied", late: false }, { effect: "duplicate", late: false }, { effect: "conflict", late: false },
      { effect: "applied", late: true }, { effect: "dropped_cap", late: false }, { effect: "duplicate", late: false }]);
  assert.deepEqual(r.view().counters,
    { applied: 2, duplicates: 2, conflicts: 1, late: 1, gaps: 1, droppedAfterSeal: 0, droppedByCap: 1 });
});

test("defaults and helpers", () => {
  assert.deepEqual({ ...DEFAULT_CAPS },
    { maxBlocks: 10000, maxStreamKeys: 10000, maxOutputBytes: 262144, maxTextBytes: 8192 });
  assert.equal(gapMarker(1), "[gap: 1 seq missing]\n");
  assert.equal(gapMarker(3n), "[gap: 3 seqs missing]\n");
  assert.deepEqual(JSON.parse(new Receiver("t1").viewJSON()), { task: "t1", turn: "", blocks: [], toolCalls: [],
    counters: { applied: 0, duplicates: 0, conflicts: 0, late: 0, gaps: 0, droppedAfterSeal: 0, droppedByCap: 0 },
    sealed: false });
});

test("a fallback reason outside PROTOCOL.md §2.6, __proto__ included, is invalid", () => {
  const r = new Receiver("t1");
  const res = r.apply({ type: "block", task: "t1", turn: "m1", streamKey: "", seq: 0, id: "m", kind: "text",
    status: "running", payload: { text: "x" }, source: "fallback", reason: "__proto__", ordinal: 1 });
  assert.equal(res.effect, "invalid");
  assert.equal(r.view().counters.fallbacks, undefined);
});

test("turns: a view each, the latest by first arrival, seqs scoped by turn", () => {
  const r = new Receiver("t1");
  const op = (turn, seq, text) => ({ type: "block", task: "t1", turn, streamKey: "", seq, id: "", kind: "text",
    status: "running", payload: { text }, source: "envelope" });
  assert.equal(r.apply(op("q", 1, "question turn")).effect, "applied");
  assert.equal(r.apply(op("a", 1, "answer turn, seq 1 again")).effect, "applied");
  assert.equal(r.apply(op("q", 1, "question turn")).effect, "duplicate");
  assert.deepEqual(r.turns(), ["q", "a"]);
  assert.equal(r.view().turn, "a");
  assert.equal(r.turnView("q").blocks[0].payload.text, "question turn");
  assert.equal(r.turnView("nope"), null);
  assert.equal(r.turnViewJSON("nope"), null);
  assert.equal(r.result(), null);
  assert.equal(r.resultJSON(), "null");
  assert.equal(r.apply({ type: "seal", task: "t1", turn: "a" }).effect, "applied");
  assert.equal(r.apply({ type: "seal", task: "t1", turn: "a" }).effect, "duplicate");
  const result = { type: "result", task: "t1", turn: "a", state: "TASK_STATE_COMPLETED", verdict: "completed",
    reply: "done", counters: { applied: 1, duplicates: 0, conflicts: 0, late: 0, gaps: 0, droppedAfterSeal: 0,
      droppedByCap: 0 } };
  assert.equal(r.apply(result).effect, "applied");
  assert.equal(r.apply(result).effect, "duplicate");
  assert.equal(r.apply({ ...result, reply: "other" }).effect, "conflict");
  assert.equal(r.result().reply, "done");
  assert.equal(r.result("q"), null);
  assert.equal(r.refused(), 0);
});

test("a receiver from before the nesting extension sees the nested turn flat and complete", () => {
  const ops = lines("nested.ops.ndjson");
  const meta = JSON.parse(readFileSync(join(dir, "nested.json"), "utf8"));
  const now = new Receiver(meta.task);
  const old = new ReceiverV1(meta.task);
  for (const op of ops) {
    assert.equal(old.apply(op).result, now.apply(op).effect, op);
  }
  // The same view, but for the extension's fields: every block once, in
  // the same order, every call with its output.
  const flat = now.view();
  let nested = 0;
  for (const b of flat.blocks) if (b.parent !== undefined) (nested++, delete b.parent);
  for (const c of flat.toolCalls) if (c.parent !== undefined) (nested++, delete c.parent, delete c.depth);
  assert.ok(nested >= 8, `only ${nested} nested blocks and calls in the vector`);
  assert.deepEqual(old.view(), flat);
  assert.equal(JSON.stringify(old.view()).includes('"parent"'), false);
});

test("answer: the reply, else the artifacts' text", () => {
  assert.equal(answer(null), "");
  assert.equal(answer({ reply: "42", artifacts: [{ id: "a", text: "x" }] }), "42");
  assert.equal(answer({ artifacts: [{ id: "a", text: "one" }, { id: "b", text: "" }, { id: "c", text: "two\nthree" }] }),
    "one\ntwo\nthree");
  assert.equal(answer({ verdict: "failed" }), "");
  assert.equal(Effects.droppedCap, "dropped_cap");
});
