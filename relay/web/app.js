// app.js — the reference web view of an agent conversation: every message
// sent from the page (or the task named by ?task=) is a turn, shown in order
// with its progress, verdict and elapsed time. A turn's progress is read from
// the relay's op stream (GET tasks/{id}/events, one op per SSE event) into a
// Receiver, one per task. Agent text is peer text: it only ever reaches the
// page through textContent, never as HTML.
//
// Only the latest turn is watched: a new message closes the previous
// EventSource first, so an old task never reconnects behind the new one.
// A turn that waits for input (input-required, auth-required) is answered in
// place: the answer goes to the same task (POST tasks with "task"), as
// `a2a-tail send --task` does, and becomes the next turn.
import { Receiver } from "./receiver.js";
import { nest, place } from "./nest.js";

const TAIL_LINES = 6;
// MAX_TURNS caps the conversation the page keeps: past it the oldest turn
// (its entry, and its task's Receiver once no turn of that task is left)
// goes. Each Receiver is capped by its own DEFAULT_CAPS and turn cap.
const MAX_TURNS = 50;
// Retry delays (seconds) when the agent or the relay cannot be reached; a
// Retry-After header wins over them.
const BACKOFF = [2, 4, 8, 15, 30];
const $ = (id) => document.getElementById(id);

const state = {
  context: "", // the A2A contextId of the conversation, once a result named it
  receivers: new Map(), // task → Receiver
  turns: [], // the conversation, oldest first
  current: null, // the watched turn
  frame: 0,
  retry: null, // {timer, tick} of a countdown to the next attempt
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function setConn(s, label) {
  const t = state.current;
  const c = $("conn");
  c.dataset.state = s;
  c.dataset.reconnects = String(t ? t.reconnects : 0);
  c.textContent = label + (t && t.reconnects > 0 ? ` · ${plural(t.reconnects, "reconnect")}` : "");
}

// ---- problems: what went wrong, and what the page does about it ----

// showProblem puts one actionable message above the conversation. kind is
// a stable name tests and styles use: unknown-task, access, busy, agent,
// relay, send.
function showProblem(kind, text, action, detail) {
  const box = $("problem");
  box.dataset.kind = kind;
  const parts = [el("span", "problem-text", text)];
  if (action) parts.push(action);
  if (detail) {
    // The server's reason can be long (a transport error quotes URLs):
    // folded, whole, as text.
    const d = el("details", "problem-detail");
    d.append(el("summary", "", "Details"), el("pre", "", detail));
    parts.push(d);
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

function clearProblem() {
  stopRetry();
  const box = $("problem");
  box.hidden = true;
  box.dataset.kind = "";
  box.replaceChildren();
}

function stopRetry() {
  if (state.retry) clearInterval(state.retry.timer);
  state.retry = null;
}

// retryIn shows kind/text with a countdown of secs, then calls again.
// "Retry now" skips the wait.
function retryIn(kind, text, secs, again, detail) {
  stopRetry();
  let left = Math.max(1, Math.round(secs));
  const now = el("button", "retry-now", "Retry now");
  now.type = "button";
  const fire = () => {
    stopRetry();
    again();
  };
  now.addEventListener("click", fire);
  const paint = () => showProblem(kind, `${text} Retrying in ${left} s.`, now, detail);
  paint();
  const r = { timer: 0 };
  r.timer = setInterval(() => {
    left--;
    if (left <= 0) fire();
    else paint();
  }, 1000);
  state.retry = r;
}

function retryAfter(resp, attempt) {
  const h = resp && resp.headers.get("Retry-After");
  const n = h === null || h === undefined ? NaN : Number(h);
  if (Number.isFinite(n) && n >= 0) return Math.min(n, 300);
  return BACKOFF[Math.min(attempt, BACKOFF.length - 1)];
}

async function errorText(resp) {
  const body = await resp.json().catch(() => ({}));
  return typeof body.error === "string" && body.error ? body.error : `HTTP ${resp.status}`;
}

function newConversationLink() {
  const a = el("a", "restart", "Start a new conversation");
  a.href = "./";
  return a;
}

// ---- the conversation ----

function receiver(task) {
  let rx = state.receivers.get(task);
  if (!rx) {
    rx = new Receiver(task);
    state.receivers.set(task, rx);
  }
  return rx;
}

// addTurn starts a turn entry for task. turn is the turn id the relay will
// name (the sent message's id) or "" when unknown (a watch page): then the
// entry shows the latest turn the receiver has that was not on the page yet.
function addTurn(task, turn, asked, before) {
  const rx = receiver(task);
  const section = el("li", "entry");
  const head = el("p", "task-line");
  const id = el("code", "task-id", task);
  head.append("Task ", id, el("span", "turn-label"), el("span", "turn-elapsed"));
  const ask = asked ? el("p", "asked", asked) : null;
  const verdict = el("div", "verdict");
  verdict.hidden = true;
  verdict.setAttribute("role", "status");
  const gaps = el("p", "gaps");
  gaps.hidden = true;
  const list = el("ol", "turn");
  section.append(...[head, ask, gaps, list, verdict].filter(Boolean));
  $("conversation").insertBefore(section, before ? before.section : null);
  const t = {
    task, turn, rx, section, list, verdict, gaps, asked,
    known: new Set(rx.turns()), // turns already shown: never this entry's
    items: new Map(), // key → <li>, reused so that open <details> stay open
    started: Date.now(), ended: 0,
    es: null, cursor: "", opened: false, reconnects: 0, attempt: 0,
    done: false,
  };
  if (before) state.turns.splice(state.turns.indexOf(before), 0, t);
  else state.turns.push(t);
  while (state.turns.length > MAX_TURNS) {
    // The oldest turn goes, and its task's receiver with its last turn.
    const old = state.turns.shift();
    old.section.remove();
    if (!state.turns.some((x) => x.task === old.task)) state.receivers.delete(old.task);
  }
  $("conversation").hidden = false;
  return t;
}

// showEarlierTurns gives the turns of a watched task that came before the
// one watched (a snapshot holds every turn the relay kept: an interrupt
// answered earlier) entries of their own, in order, above it.
function showEarlierTurns(t) {
  if (t.asked) return; // a turn sent from here: its predecessors are on the page
  const cur = turnID(t);
  for (const id of t.rx.turns()) {
    if (id === cur) break;
    if (state.turns.some((x) => x.task === t.task && x.turn === id)) continue;
    const e = addTurn(t.task, id, "", t);
    e.done = e.opened = true;
  }
}

// turnID is the id of the receiver's turn t shows, or "" before it arrived.
function turnID(t) {
  const ids = t.rx.turns();
  if (t.turn && ids.includes(t.turn)) return t.turn;
  if (t.turn) return "";
  for (let i = ids.length - 1; i >= 0; i--) if (!t.known.has(ids[i])) return ids[i];
  return "";
}

function outcomeOf(t) {
  const id = turnID(t);
  return id ? t.rx.result(id) : null;
}

function viewOf(t) {
  const id = turnID(t);
  return id ? t.rx.turnView(id) : null;
}

function watch(t) {
  if (state.current && state.current !== t) stopWatching(state.current);
  state.current = t;
  connect(t);
}

// stopWatching closes t's EventSource: nothing of t reconnects after it.
function stopWatching(t) {
  if (t.es) t.es.close();
  t.es = null;
  if (!t.done && !outcomeOf(t)) t.left = true; // its verdict is not watched any more
  t.done = true;
  if (!t.ended) t.ended = Date.now();
  clearProblem(); // a problem of t's stream is not the next turn's
  t.rendered = false;
  render();
}

function eventsURL(t) {
  const q = t.cursor ? "?after=" + encodeURIComponent(t.cursor) : "";
  return "tasks/" + encodeURIComponent(t.task) + "/events" + q;
}

function connect(t) {
  if (t.done) return;
  setConn(t.opened ? "reconnecting" : "connecting", t.opened ? "reconnecting" : "connecting");
  const es = new EventSource(eventsURL(t));
  t.es = es;
  es.onopen = () => {
    if (t.opened) t.reconnects++;
    t.opened = true;
    t.attempt = 0;
    clearProblem();
    setConn("live", "live");
  };
  es.onmessage = (ev) => {
    if (ev.lastEventId) t.cursor = ev.lastEventId;
    t.rx.apply(ev.data);
    schedule();
    // Only a snapshot's last event carries a cursor (PROTOCOL.md §8): on
    // a watch page, a result inside the snapshot may be an earlier turn's,
    // with the latest still to come.
    if (!t.turn && !ev.lastEventId) return;
    showEarlierTurns(t);
    // The result op of this entry's turn ends the watch (the relay ends the
    // response after it; without close() EventSource would reconnect).
    if (outcomeOf(t)) finish(t);
  };
  es.onerror = () => {
    if (t.es !== es) return;
    if (sealed(t)) {
      finish(t);
    } else if (es.readyState === EventSource.CLOSED) {
      // EventSource gives up on an HTTP error without saying which: ask.
      es.close();
      t.es = null;
      diagnose(t);
    } else {
      // A dropped connection: EventSource reconnects by itself, with
      // Last-Event-ID, and the relay resumes or sends a snapshot.
      setConn("reconnecting", "reconnecting");
    }
  };
}

// diagnose asks the events URL once more, by fetch, to learn why the
// EventSource failed, and says so with what to do. A 200 means the cause is
// gone: connect again at once.
async function diagnose(t) {
  const ctl = new AbortController();
  let resp;
  try {
    resp = await fetch(eventsURL(t), { headers: { Accept: "text/event-stream" }, signal: ctl.signal, cache: "no-store" });
  } catch {
    if (t.done) return;
    setConn("closed", "waiting to retry");
    retryIn("relay", "The page cannot reach the a2a-tail server (stopped, or the network is down).",
      BACKOFF[Math.min(t.attempt++, BACKOFF.length - 1)], () => connect(t));
    return;
  }
  if (t.done) {
    ctl.abort();
    return;
  }
  if (resp.ok) {
    // Gone by now: connect again — at once the first time, then with the
    // backoff, so that a stream that keeps failing is not a tight loop.
    ctl.abort();
    const wait = t.attempt === 0 ? 0 : BACKOFF[Math.min(t.attempt - 1, BACKOFF.length - 1)];
    t.attempt++;
    if (wait === 0) connect(t);
    else retryIn("relay", "The event stream keeps failing.", wait, () => connect(t));
    return;
  }
  const msg = await errorText(resp);
  setConn("closed", "waiting to retry");
  switch (resp.status) {
    case 404:
      t.done = true;
      setConn("closed", "not found");
      showProblem("unknown-task", `Unknown task: the agent does not know task ${t.task} (a wrong id, or a task it has dropped).`,
        newConversationLink(), msg);
      t.section.remove(); // nothing to show under it
      break;
    case 401:
    case 403:
      t.done = true;
      setConn("closed", "refused");
      showProblem("access", `Access refused (${resp.status}). Open the page from the address a2a-tail printed, on the same machine.`,
        null, msg);
      break;
    case 429:
    case 503:
      retryIn("busy", `The relay is busy (${resp.status}).`, retryAfter(resp, t.attempt++), () => connect(t), msg);
      break;
    default:
      retryIn("agent", `The agent cannot be reached (${resp.status}); the task goes on when it is back.`,
        retryAfter(resp, t.attempt++), () => connect(t), msg);
  }
}

function sealed(t) {
  const v = viewOf(t);
  return !!(outcomeOf(t) || (v && v.sealed));
}

function finish(t) {
  if (t.es) t.es.close();
  t.es = null;
  t.done = true;
  if (!t.ended) t.ended = Date.now();
  if (state.frame) cancelAnimationFrame(state.frame);
  state.frame = 0;
  clearProblem();
  render(); // the final view is on the page before the indicator says so
  setConn("ended", "finished");
  const r = outcomeOf(t);
  if (r && r.context) state.context = r.context;
  offerForm(t, r);
}

function schedule() {
  if (state.frame) return;
  state.frame = requestAnimationFrame(() => {
    state.frame = 0;
    render();
  });
}

// ---- the form: a new message, or the answer to the latest turn ----

// offerForm shows the form after t ended: as an answer when t waits for
// input, as a new message on a page that sends; a watch-only page whose
// task cannot be answered has no form.
function offerForm(t, r) {
  const form = $("send");
  const waits = !!(r && (r.verdict === "input-required" || r.verdict === "auth-required"));
  form.dataset.answer = waits ? t.task : "";
  $("send-label").textContent = waits ? "Your answer to the agent" : "Message to the agent";
  form.querySelector("button").textContent = waits ? "Answer" : "Send";
  form.hidden = !(waits || state.sends);
  if (!form.hidden) $("text").focus();
}

async function submit(ev) {
  ev.preventDefault(); // never the browser's GET ?text=…
  const form = $("send");
  if (form.hidden) return; // a watch page with nothing to answer sends nothing
  const err = $("send-error");
  err.hidden = true;
  const text = $("text").value;
  if (!text.trim()) return;
  const answer = form.dataset.answer || "";
  const body = { text };
  if (answer) body.task = answer;
  else if (state.context) body.context = state.context;
  const button = form.querySelector("button");
  button.disabled = true;
  try {
    let resp;
    try {
      resp = await fetch("tasks", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    } catch {
      throw new Error("the a2a-tail server cannot be reached (stopped, or the network is down)");
    }
    const got = await resp.clone().json().catch(() => ({}));
    if (!resp.ok || typeof got.task !== "string") {
      const msg = await errorText(resp);
      // A 503 that carries the agent's state is a server still waiting for
      // its agent (GET /agent), not a busy relay.
      const why = resp.status === 503 && got.agent ? `${msg}; try again in ${retryAfter(resp, 0)} s`
        : resp.status === 503 || resp.status === 429 ? `the relay is busy (${msg}); try again in ${retryAfter(resp, 0)} s`
        : resp.status === 404 ? `the agent does not know task ${answer} any more (${msg})`
        : resp.status === 403 ? `access refused (${msg})`
        : resp.status === 502 || resp.status === 504 ? `the agent cannot be reached (${msg})` : msg;
      throw new Error(why);
    }
    if (state.current) stopWatching(state.current);
    $("text").value = "";
    // A page that sends keeps its form: a new message may follow at any
    // time (and closes this turn's stream); a watch page's answer form goes.
    form.dataset.answer = "";
    $("send-label").textContent = "Message to the agent";
    button.textContent = "Send";
    form.hidden = !state.sends;
    history.pushState(null, "", "?task=" + encodeURIComponent(got.task));
    watch(addTurn(got.task, typeof got.turn === "string" ? got.turn : "", text));
  } catch (e) {
    err.textContent = "Not sent: " + String(e.message || e) + ".";
    err.hidden = false;
  } finally {
    button.disabled = false;
  }
}

function start() {
  const params = new URLSearchParams(location.search);
  const task = params.get("task");
  // A page opened on a task only watches it; one opened without sends.
  state.sends = !task;
  $("send").addEventListener("submit", submit);
  if (task) {
    watch(addTurn(task, "", ""));
    return;
  }
  offerForm(null, null);
}

// ---- rendering ----

// toolKey is the key a block's tool call is grouped by (merge: the
// streamKey, or the tool_call_id when the streamKey is empty).
function toolKey(b) {
  return b.streamKey || (b.payload && b.payload.tool_call_id) || "";
}

function render() {
  for (const t of state.turns) {
    if (t.rendered) continue; // a finished, drawn turn does not change
    renderTurn(t);
    if (t.done) t.rendered = true;
  }
}

function renderTurn(t) {
  const ids = t.rx.turns();
  const id = turnID(t);
  const n = id ? ids.indexOf(id) + 1 : 0;
  t.section.querySelector(".turn-label").textContent = n > 1 ? ` · turn ${n}` : "";
  // The elapsed time of a turn sent from this page; a watched task started
  // before the page did, so its time here would say nothing.
  const end = t.ended || Date.now();
  t.section.querySelector(".turn-elapsed").textContent = t.asked ? ` · ${fmtElapsed(end - t.started)}` : "";
  const view = viewOf(t);
  if (!view) {
    renderVerdict(t, null, false);
    return;
  }
  if (t.shown !== id) {
    // Another turn than the one drawn (a watch page learns of a later
    // one): items are keyed by (streamKey, seq), which a turn numbers
    // afresh, so none of the old turn's may be reused.
    t.shown = id;
    t.items.clear();
    t.list.replaceChildren();
  }
  const calls = new Map((view.toolCalls || []).map((c) => [c.key, c]));
  const times = new Map(); // tool key → {start, end} from the blocks' at
  for (const b of view.blocks || []) {
    if (!b.at || !(b.kind === "tool_call" || b.kind === "tool_output_append")) continue;
    const k = toolKey(b);
    const tm = times.get(k) || {};
    const at = Date.parse(b.at);
    if (!Number.isNaN(at)) {
      if (tm.start === undefined || at < tm.start) tm.start = at;
      if (b.status !== "running" && (tm.end === undefined || at < tm.end)) tm.end = at;
    }
    times.set(k, tm);
  }
  const order = [];
  const placed = new Set();
  for (const b of view.blocks || []) {
    if (b.kind === "tool_call") {
      const k = toolKey(b);
      if (placed.has(k) || !calls.has(k)) continue;
      placed.add(k);
      order.push(toolItem(t, calls.get(k), times.get(k), view.sealed));
      continue;
    }
    order.push(blockItem(t, b));
  }
  for (const c of view.toolCalls || []) {
    if (!placed.has(c.key)) order.push(toolItem(t, c, times.get(c.key), view.sealed));
  }
  const keep = new Set(order);
  for (const [k, li] of t.items) {
    if (!keep.has(li)) {
      li.remove();
      t.items.delete(k);
    }
  }
  place(t.list, nest(view, order, blockKey));
  const gaps = (view.counters && view.counters.gaps) || 0;
  t.gaps.hidden = gaps === 0;
  // A seq jump is legal (an agent may number sparsely): say what is
  // missing, not whose fault it is.
  t.gaps.textContent = gaps === 0 ? "" : `${plural(gaps, "seq")} not received (numbering gaps; output may be incomplete)`;
  renderVerdict(t, outcomeOf(t), view.sealed);
}

function item(t, key, cls) {
  let li = t.items.get(key);
  if (!li) {
    li = el("li", cls);
    li.dataset.key = key;
    t.items.set(key, li);
  }
  return li;
}

function blockKey(b) {
  return b.source === "envelope" ? `b:${b.streamKey}:${b.seq}` : `b:${b.id}`;
}

function blockItem(t, b) {
  const li = item(t, blockKey(b), "");
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

function toolItem(t, c, tm, sealedView) {
  const li = item(t, "t:" + c.key, "tool");
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
  if (tm && tm.start !== undefined && tm.end !== tm.start) {
    // A call whose start and close carry the same at was recovered from
    // history (whose messages have no timestamps of their own, PROTOCOL.md
    // §4.4): its duration is unknown, not zero.
    const end = tm.end !== undefined ? tm.end : sealedView ? undefined : Date.now();
    elapsed.textContent = end !== undefined ? fmtElapsed(end - tm.start) : "";
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
  all.firstChild.textContent = `all output (${plural(lines.length, "line")}${c.truncated ? `, ${c.truncated} bytes cut` : ""})`;
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

function renderVerdict(t, r, sealedView) {
  const box = t.verdict;
  if (!r && t.left) {
    box.hidden = false;
    box.dataset.verdict = "left";
    const watchIt = el("a", "", "Watch it");
    watchIt.href = "?task=" + encodeURIComponent(t.task);
    watchIt.target = "_blank";
    watchIt.rel = "noopener";
    const reason = el("div", "reason", "A new message was sent; this task may still be running. ");
    reason.append(watchIt);
    box.replaceChildren(el("span", "label", "Not followed further"), reason);
    return;
  }
  if (!r) {
    box.hidden = !sealedView;
    if (sealedView) {
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

// Running tool calls and the turn's elapsed time tick.
setInterval(() => {
  if (state.current && !state.current.done) schedule();
}, 1000);

start();
