// app.js — the reference web view of a task's progress: it reads the relay's
// op stream (GET tasks/{id}/events, one op per SSE event) into a Receiver
// and renders the view. Agent text is peer text: it only ever reaches the
// page through textContent, never as HTML.
import { Receiver } from "./receiver.js";
import { nest, place } from "./nest.js";

const TAIL_LINES = 6;
const $ = (id) => document.getElementById(id);

const state = {
  task: "",
  rx: null,
  es: null,
  reconnects: 0,
  opened: false,
  frame: 0,
  items: new Map(), // key → <li>, reused so that open <details> stay open
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function setConn(s, label) {
  const c = $("conn");
  c.dataset.state = s;
  c.dataset.reconnects = String(state.reconnects);
  c.textContent = label + (state.reconnects > 0 ? ` · ${state.reconnects} reconnect${state.reconnects === 1 ? "" : "s"}` : "");
}

function start() {
  const params = new URLSearchParams(location.search);
  const task = params.get("task");
  if (task) {
    watch(task);
    return;
  }
  const form = $("send");
  form.hidden = false;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = $("send-error");
    err.hidden = true;
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      const resp = await fetch("tasks", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text: $("text").value }),
      });
      const body = await resp.json().catch(() => ({}));
      if (!resp.ok || typeof body.task !== "string") throw new Error(body.error || `HTTP ${resp.status}`);
      history.pushState(null, "", "?task=" + encodeURIComponent(body.task));
      form.hidden = true;
      watch(body.task);
    } catch (e) {
      err.textContent = "Could not send: " + String(e.message || e);
      err.hidden = false;
    } finally {
      button.disabled = false;
    }
  });
}

function watch(task) {
  state.task = task;
  state.rx = new Receiver(task);
  $("watch").hidden = false;
  $("task-id").textContent = task;
  setConn("connecting", "connecting");
  const es = new EventSource("tasks/" + encodeURIComponent(task) + "/events");
  state.es = es;
  es.onopen = () => {
    if (state.opened) state.reconnects++;
    state.opened = true;
    setConn("live", "live");
  };
  es.onmessage = (ev) => {
    state.rx.apply(ev.data);
    schedule();
    // The result op of the latest turn ends the watch (the relay ends the
    // response after it; without close() EventSource would reconnect).
    if (outcome()) finish();
  };
  es.onerror = () => {
    // The relay ends the response when the turn settled: a sealed view
    // needs no reconnect. Otherwise EventSource reconnects by itself, with
    // Last-Event-ID, and the relay resumes or sends a snapshot.
    if (sealed()) {
      finish();
    } else if (es.readyState === EventSource.CLOSED) {
      setConn("closed", "disconnected");
    } else {
      setConn("reconnecting", "reconnecting");
    }
  };
}

function sealed() {
  return !!(outcome() || state.rx.view().sealed);
}

function outcome() {
  return state.rx.outcome();
}

function finish() {
  if (state.es) state.es.close();
  if (state.frame) cancelAnimationFrame(state.frame);
  state.frame = 0;
  render(); // the final view is on the page before the indicator says so
  setConn("ended", "finished");
}

function schedule() {
  if (state.frame) return;
  state.frame = requestAnimationFrame(() => {
    state.frame = 0;
    render();
  });
}

// toolKey is the key a block's tool call is grouped by (merge: the
// streamKey, or the tool_call_id when the streamKey is empty).
function toolKey(b) {
  return b.streamKey || (b.payload && b.payload.tool_call_id) || "";
}

function render() {
  const view = state.rx.view();
  const turns = state.rx.turns();
  $("turn-label").textContent = turns.length > 1 ? `· turn ${turns.length}` : "";
  const calls = new Map((view.toolCalls || []).map((c) => [c.key, c]));
  const times = new Map(); // tool key → {start, end} from the blocks' at
  for (const b of view.blocks || []) {
    if (!b.at || !(b.kind === "tool_call" || b.kind === "tool_output_append")) continue;
    const k = toolKey(b);
    const t = times.get(k) || {};
    const at = Date.parse(b.at);
    if (!Number.isNaN(at)) {
      if (t.start === undefined || at < t.start) t.start = at;
      if (b.status !== "running" && (t.end === undefined || at < t.end)) t.end = at;
    }
    times.set(k, t);
  }
  const order = [];
  const placed = new Set();
  for (const b of view.blocks || []) {
    if (b.kind === "tool_call") {
      const k = toolKey(b);
      if (placed.has(k) || !calls.has(k)) continue;
      placed.add(k);
      order.push(toolItem(calls.get(k), times.get(k), view.sealed));
      continue;
    }
    order.push(blockItem(b));
  }
  for (const c of view.toolCalls || []) {
    if (!placed.has(c.key)) order.push(toolItem(c, times.get(c.key), view.sealed));
  }
  const list = $("turn");
  const keep = new Set(order);
  for (const [k, li] of state.items) {
    if (!keep.has(li)) {
      li.remove();
      state.items.delete(k);
    }
  }
  place(list, nest(view, order, blockKey));
  const gaps = (view.counters && view.counters.gaps) || 0;
  $("gaps").hidden = gaps === 0;
  $("gaps").textContent = gaps === 0 ? "" : `${gaps} seq${gaps === 1 ? "" : "s"} missing from the progress (the agent's queue dropped them)`;
  renderVerdict(view);
}

function item(key, cls) {
  let li = state.items.get(key);
  if (!li) {
    li = el("li", cls);
    li.dataset.key = key;
    state.items.set(key, li);
  }
  return li;
}

function blockKey(b) {
  return b.source === "envelope" ? `b:${b.streamKey}:${b.seq}` : `b:${b.id}`;
}

function blockItem(b) {
  const li = item(blockKey(b), "");
  if (li.dataset.kind) return li; // blocks never change once applied
  li.dataset.kind = b.kind;
  const p = b.payload || {};
  switch (b.kind) {
    case "thinking": {
      li.className = "thinking";
      const d = el("details");
      d.append(el("summary", "", "Thinking"), el("pre", "", p.text || ""));
      li.append(d);
      break;
    }
    case "error":
      li.className = "error-block";
      li.setAttribute("role", "alert");
      li.textContent = "Error: " + (p.message || "");
      break;
    default:
      li.className = b.source === "fallback" ? "text fallback" : "text";
      li.textContent = p.text || "";
  }
  return li;
}

function fmtElapsed(ms) {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function toolItem(c, t, sealed) {
  const li = item("t:" + c.key, "tool");
  li.dataset.status = c.status;
  if (!li.firstChild) {
    const head = el("div", "head");
    head.append(el("span", "status"), el("span", "name"), el("span", "elapsed"));
    const tail = el("pre", "tail");
    const all = el("details", "all");
    all.append(el("summary", "", ""), el("pre", "output"));
    li.append(head, tail, all);
  }
  const [status, name, elapsed] = li.firstChild.children;
  status.textContent = c.status;
  name.textContent = c.tool || c.key;
  if (t && t.start !== undefined && t.end !== t.start) {
    // A call whose start and close carry the same at was recovered from
    // history (whose messages have no timestamps of their own, PROTOCOL.md
    // §4.4): its duration is unknown, not zero.
    const end = t.end !== undefined ? t.end : sealed ? undefined : Date.now();
    elapsed.textContent = end !== undefined ? fmtElapsed(end - t.start) : "";
  } else {
    elapsed.textContent = "";
  }
  const out = c.output || "";
  const lines = out.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const tail = li.children[1];
  const all = li.children[2];
  fillOutput(tail, lines.slice(-TAIL_LINES));
  tail.hidden = lines.length === 0;
  all.hidden = lines.length <= TAIL_LINES;
  all.firstChild.textContent = `all output (${lines.length} lines${c.truncated ? `, ${c.truncated} bytes cut` : ""})`;
  if (!all.hidden) fillOutput(all.lastChild, lines);
  return li;
}

// fillOutput puts lines into pre as text, marking the merge's gap lines.
function fillOutput(pre, lines) {
  pre.replaceChildren(
    ...lines.map((l) => {
      const isGap = /^\[gap: \d+ seqs? missing\]$/.test(l);
      return el("span", isGap ? "gap-line" : "", l + "\n");
    }),
  );
}

const LABELS = {
  completed: "Completed",
  failed: "Failed",
  rejected: "Rejected",
  canceled: "Canceled",
  incomplete: "Incomplete",
  "input-required": "Input required",
  "auth-required": "Authorization required",
};

function renderVerdict(view) {
  const box = $("verdict");
  const r = outcome();
  if (!r) {
    box.hidden = !view.sealed;
    if (view.sealed) {
      box.dataset.verdict = "sealed";
      box.replaceChildren(el("span", "label", "Turn ended"));
    }
    return;
  }
  box.hidden = false;
  box.dataset.verdict = r.verdict || "";
  const parts = [el("span", "label", LABELS[r.verdict] || r.verdict || r.state || "Ended")];
  if (r.reply) parts.push(el("div", "reply", r.reply));
  if (r.error) parts.push(el("div", "reason", r.error));
  for (const a of r.artifacts || []) {
    // An artifact that only repeats the reply (many agents send both) is
    // not shown twice.
    if (a && a.text && a.text !== r.reply) parts.push(el("div", "artifact", (a.name ? a.name + ": " : "") + a.text));
  }
  if (r.interrupt) {
    if (r.interrupt.question) parts.push(el("div", "question", r.interrupt.question));
    const items = r.interrupt.items || [];
    if (items.length) {
      const ul = el("ul", "interrupt-items");
      for (const it of items) {
        ul.append(el("li", "", `${it.toolName || it.toolCallId || "?"}: ${it.message || ""}`));
      }
      parts.push(ul);
    }
  }
  box.replaceChildren(...parts);
}

// Running tool calls show a growing elapsed time.
setInterval(() => {
  if (state.rx && !sealed()) schedule();
}, 1000);

start();
