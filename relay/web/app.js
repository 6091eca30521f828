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
  agent: { up: true, timer: 0, onUp: [] }, // what GET agent said; what waits for it
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
// a stable name tests and styles use: unknown-task, bad-id, access, busy,
// store, agent (the agent cannot be reached mid-task), agent-down (its card
// could not be read yet: GET agent), relay, refused.
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
// "Retry now" skips the wait (noNow: there is nothing to skip — the server
// keeps the schedule).
function retryIn(kind, text, secs, again, detail, noNow) {
  stopRetry();
  let left = Math.max(1, Math.round(secs));
  const now = noNow ? null : el("button", "retry-now", "Retry now");
  const fire = () => {
    stopRetry();
    again();
  };
  if (now) {
    now.type = "button";
    now.addEventListener("click", fire);
  }
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

async function errorBody(resp) {
  const body = await resp.json().catch(() => ({}));
  return body && typeof body === "object" ? body : {};
}

function errorOf(body, resp) {
  return typeof body.error === "string" && body.error ? body.error : `HTTP ${resp.status}`;
}

// ---- the agent: GET agent says whether the server could read its card ----

// agentWords is the sentence for an agent the server cannot reach yet.
function agentWords(a) {
  const at = a.url ? ` at ${a.url}` : "";
  if (a.state === "connecting") return `Connecting to the agent${at}…`;
  return `The agent${at} is not reachable${a.reason ? ": " + a.reason : ""}.`;
}

// checkAgent asks GET agent and, while the agent is not up, says so with a
// countdown to the server's next attempt, and asks again then; once it is
// up, what waited for it (onUp) runs. A page that cannot reach the server
// says that instead, and asks again with the backoff.
async function checkAgent(attempt = 0) {
  clearTimeout(state.agent.timer);
  let a;
  try {
    const resp = await fetch("agent", { cache: "no-store" });
    a = await resp.json();
    if (!resp.ok || !a || typeof a.state !== "string") throw new Error("no state");
  } catch {
    const wait = BACKOFF[Math.min(attempt, BACKOFF.length - 1)];
    if (!state.current || state.current.done) setConn("closed", "server unreachable");
    retryIn("relay", "The page cannot reach the a2a-tail server (stopped, or the network is down).", wait,
      () => checkAgent(attempt + 1));
    return;
  }
  agentIs(a);
}

// agentIs shows a, the agent's state (from GET agent or a 503 that carried
// it), and schedules what follows from it.
function agentIs(a) {
  clearTimeout(state.agent.timer);
  state.agent.up = a.state === "up";
  if (state.agent.up) {
    if ($("problem").dataset.kind === "agent-down" || $("problem").dataset.kind === "relay") clearProblem();
    if (!state.current || state.current.done) setConn("idle", "agent ready");
    const waiting = state.agent.onUp;
    state.agent.onUp = [];
    for (const f of waiting) f();
    return;
  }
  if (!state.current || state.current.done) setConn("closed", "agent not reachable");
  if (a.state === "connecting") {
    showProblem("agent-down", agentWords(a));
    state.agent.timer = setTimeout(() => checkAgent(), 1000);
    return;
  }
  // The server tries again at its own pace; the page asks just after.
  const secs = Math.max(1, Number(a.wait) || 1);
  retryIn("agent-down", agentWords(a), secs, () => checkAgent(), a.error || "", true);
}

// whenAgentUp runs f once GET agent says the agent is up, showing why the
// page waits meanwhile.
function whenAgentUp(f) {
  state.agent.onUp.push(f);
  checkAgent();
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
  const body = await errorBody(resp);
  const msg = errorOf(body, resp);
  setConn("closed", "waiting to retry");
  const again = () => connect(t);
  switch (resp.status) {
    case 400:
      // The relay refuses the id itself: retrying cannot help.
      t.done = true;
      setConn("closed", "not a task id");
      showProblem("bad-id", `This address does not name a valid task: “${t.task}” is not a task id. Check the link, or start a new conversation.`,
        newConversationLink(), msg);
      t.section.remove();
      break;
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
      retryIn(...busyWords(msg), retryAfter(resp, t.attempt++), again, msg);
      break;
    case 502:
    case 504: {
      // The agent: not reached yet at all (GET agent says so, and when it
      // is up), or not answering for this task now.
      const wait = retryAfter(resp, t.attempt++);
      let a = null;
      try {
        a = await (await fetch("agent", { cache: "no-store" })).json();
      } catch {
        // the retry below says what there is to say
      }
      if (t.done) return;
      if (a && typeof a.state === "string" && a.state !== "up") {
        whenAgentUp(again);
        break;
      }
      retryIn("agent", "The agent does not answer right now; the task goes on there, and the page follows it again when the agent answers.",
        wait, again, msg);
      break;
    }
    default:
      if (resp.status >= 500) {
        retryIn("relay", `The a2a-tail server failed (${resp.status}).`, retryAfter(resp, t.attempt++), again, msg);
      } else {
        t.done = true;
        setConn("closed", "refused");
        showProblem("refused", `The a2a-tail server refused to show this task (${resp.status}).`, newConversationLink(), msg);
      }
  }
}

// busyWords is [kind, sentence] for a relay's 503 or 429 by its error: the
// shared store (Redis) down, a task with all the readers it may have, or a
// relay at one of its other caps.
function busyWords(msg) {
  if (msg.startsWith("relay: store unavailable")) {
    return ["store", "The relay's shared store (Redis) is unavailable, so it cannot read the task."];
  }
  if (msg.startsWith("relay: store:")) return ["store", "The relay is restoring this task from its shared store."];
  if (msg === "relay: too many subscribers for this task") {
    return ["busy", "The relay is busy: this task has as many readers as it allows."];
  }
  if (msg === "relay: closed" || msg === "a2a-tail: the server is stopping") return ["relay", "The a2a-tail server is stopping."];
  return ["busy", "The relay is busy (it holds as much as it may)."];
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
      throw sendFailure("Not sent: the a2a-tail server cannot be reached (stopped, or the network is down).");
    }
    const got = await errorBody(resp);
    if (!resp.ok || typeof got.task !== "string") {
      const msg = errorOf(got, resp);
      if (resp.status === 503 && got.agent && typeof got.agent.state === "string") {
        // Nothing was sent: the server has no agent yet. Say so, and send
        // this message once GET agent says the agent is up.
        if (!state.pendingSend) {
          state.pendingSend = true;
          state.agent.onUp.push(() => {
            state.pendingSend = false;
            if (!form.hidden && $("text").value.trim()) form.requestSubmit();
          });
        }
        agentIs(got.agent);
        throw sendFailure("Not sent yet: the agent is not reachable. The page sends it as soon as the agent is up.", msg);
      }
      const [, busy] = resp.status === 503 || resp.status === 429 ? busyWords(msg) : [];
      const why = busy ? `${busy} Try again in ${retryAfter(resp, 0)} s.`
        : resp.status === 404 ? `The agent does not know task ${answer} any more.`
        : resp.status === 403 ? "access refused. Open the page from the address a2a-tail printed, on the same machine."
        : resp.status === 502 || resp.status === 504 ? "The agent does not answer right now; try again in a moment."
        : `The a2a-tail server refused it (${resp.status}).`;
      throw sendFailure("Not sent: " + why[0].toLowerCase() + why.slice(1), msg);
    }
    if (state.current) stopWatching(state.current);
    if ($("problem").dataset.kind === "agent-down") clearProblem();
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
    const parts = [el("span", "", e.shown || "Not sent: " + String(e.message || e) + ".")];
    if (e.detail) {
      const d = el("details", "problem-detail");
      d.append(el("summary", "", "Details"), el("pre", "", e.detail));
      parts.push(d);
    }
    err.replaceChildren(...parts);
    err.hidden = false;
  } finally {
    button.disabled = false;
  }
}

// sendFailure is a failed send: shown, the sentence; folded, the server's
// reason.
function sendFailure(shown, detail) {
  const e = new Error(shown);
  e.shown = shown;
  e.detail = detail || "";
  return e;
}

function start() {
  const params = new URLSearchParams(location.search);
  const task = params.get("task");
  // A page opened on a task only watches it; one opened without sends, and
  // so does one opened on a task with &send (the demo's page: its turn, then
  // the conversation goes on).
  state.sends = !task || params.has("send");
  $("send").addEventListener("submit", submit);
  if (task) {
    watch(addTurn(task, "", ""));
    if (state.sends) offerForm(null, null);
    return;
  }
  offerForm(null, null);
  // Before any send: is there an agent to send to?
  checkAgent();
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
