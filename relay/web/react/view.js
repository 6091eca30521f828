// view.js — a remote (nested) call's view in React: the sub-agent view
// JSON of schema/subagent-view.schema.json (PROTOCOL.md §9.3) as thinking,
// text, errors and tool calls (a chain as a tree), the verdict, the reply
// and the colleague's question with its answer box.
//
// Plain ESM without JSX (React.createElement), so no build step is needed.
// Every string of the view is the remote agent's text: it reaches the page
// only as React text children, never as markup.
import { createElement as h, Fragment, useEffect, useId, useRef, useState } from "react";

const TAIL_LINES = 6;

const LABELS = {
  completed: "Completed",
  failed: "Failed",
  rejected: "Rejected",
  canceled: "Canceled",
  incomplete: "Incomplete",
  "input-required": "Input required",
  "auth-required": "Authorization required",
};

const KINDS = new Set(["thinking", "text", "error", "tool"]);
const STATUSES = new Set(["running", "done", "aborted", "unfinished"]);

const isStr = (v) => typeof v === "string";
const isCount = (v) => Number.isInteger(v) && v >= 0;

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** isSubagentView: the fields the component reads, with their types. */
export function isSubagentView(v) {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  if (v.schemaVersion !== 1 && v.schemaVersion !== 2) return false;
  if (!isStr(v.task) || !isStr(v.turn) || !Array.isArray(v.items)) return false;
  if (v.verdict !== undefined && !Object.hasOwn(LABELS, v.verdict)) return false;
  for (const k of ["reply", "error"]) if (v[k] !== undefined && !isStr(v[k])) return false;
  for (const k of ["omitted", "gaps"]) if (v[k] !== undefined && !isCount(v[k])) return false;
  if (v.interrupt !== undefined) {
    const q = v.interrupt;
    if (!q || typeof q !== "object" || !isStr(q.question)) return false;
    if (q.items !== undefined && !(Array.isArray(q.items) && q.items.every((it) => it && isStr(it.toolCallId) && isStr(it.toolName) && isStr(it.message)))) return false;
  }
  return v.items.every(
    (it) =>
      it && typeof it === "object" && isStr(it.id) && it.id !== "" && KINDS.has(it.kind) &&
      ["text", "tool", "toolCallId", "output", "parent"].every((k) => it[k] === undefined || isStr(it[k])) &&
      (it.status === undefined || STATUSES.has(it.status)) &&
      (it.outputBytes === undefined || isCount(it.outputBytes)) &&
      (it.depth === undefined || isCount(it.depth)),
  );
}

function fmtElapsed(ms) {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

// utf8Length is the UTF-8 size of s: outputBytes counts bytes.
function utf8Length(s) {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

// tree groups the view's items under their parent tool items, in view
// order. An item whose parent is not in the view (it gave way to the size
// cap) is shown at the top level rather than dropped.
function tree(items) {
  const byId = new Map();
  for (const it of items) if (it.kind === "tool" && !byId.has(it.id)) byId.set(it.id, it);
  const children = new Map();
  const top = [];
  const seen = new Set();
  for (const it of items) {
    if (seen.has(it.id)) continue; // a repeated id would be a repeated React key
    seen.add(it.id);
    const p = it.parent !== undefined && it.parent !== it.id && byId.has(it.parent) ? it.parent : "";
    if (!p) {
      top.push(it);
      continue;
    }
    if (!children.has(p)) children.set(p, []);
    children.get(p).push(it);
  }
  return { top, children };
}

// useClock re-renders every second while on is true (running calls tick).
function useClock(on) {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!on) return undefined;
    const id = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(id);
  }, [on]);
  return Date.now();
}

// useTimes remembers, per tool item, when this component first saw it
// running and when it first saw it end: the view carries no timestamps. A
// call first seen ended (a reload) has no elapsed time: it is unknown, not
// zero.
function useTimes(view, now) {
  const ref = useRef({ turn: "", times: new Map() });
  const st = ref.current;
  if (view && st.turn !== view.task + "\u0000" + view.turn) {
    st.turn = view.task + "\u0000" + view.turn;
    st.times = new Map();
  }
  if (view) {
    for (const it of view.items) {
      if (it.kind !== "tool") continue;
      const tm = st.times.get(it.id);
      if (!tm) st.times.set(it.id, it.status === "running" ? { start: now } : { start: undefined });
      else if (it.status !== "running" && tm.end === undefined && tm.start !== undefined) tm.end = now;
    }
  }
  return st.times;
}

function Lines({ lines, className }) {
  return h(
    "pre",
    { className },
    lines.map((l, i) =>
      h("span", { key: i, className: /^\[gap: \d+ seqs? missing\]$/.test(l) ? "a2a-gap-line" : undefined }, l + "\n"),
    ),
  );
}

function ToolItem({ it, ctx, depth }) {
  const out = it.output || "";
  const lines = out.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const cut = isCount(it.outputBytes) ? Math.max(0, it.outputBytes - utf8Length(out)) : 0;
  const tm = ctx.times.get(it.id);
  let elapsed = "";
  if (tm && tm.start !== undefined) {
    const end = tm.end !== undefined ? tm.end : it.status === "running" && ctx.live ? ctx.now : undefined;
    // A running call's clock ticks by the second: "0 ms" would only say
    // that it was just seen.
    if (end !== undefined && (tm.end !== undefined || end - tm.start >= 1000)) elapsed = fmtElapsed(end - tm.start);
  }
  const status = it.status || "running";
  const name = it.tool || it.toolCallId || "tool";
  const kids = ctx.children.get(it.id) || [];
  const summary = `all output (${plural(lines.length, "line")}${cut ? `, ${cut} earlier bytes not kept` : ""})`;
  return h(
    "li",
    { className: "a2a-tool", "data-status": status, "data-depth": depth },
    h(
      "div",
      { className: "a2a-tool-head" },
      h("span", { className: "a2a-status" }, status),
      " ",
      h("span", { className: "a2a-name" }, name),
      elapsed ? h("span", { className: "a2a-elapsed" }, " · " + elapsed) : null,
    ),
    lines.length > 0 ? h(Lines, { className: "a2a-tail", lines: lines.slice(-ctx.tailLines) }) : null,
    lines.length > ctx.tailLines || cut
      ? h("details", { className: "a2a-all" }, h("summary", null, summary), h(Lines, { className: "a2a-output", lines }))
      : null,
    kids.length > 0
      ? h(Items, { items: kids, ctx, depth: depth + 1, label: `Inside ${name}` })
      : null,
  );
}

function Item({ it, ctx, depth }) {
  switch (it.kind) {
    case "tool":
      return h(ToolItem, { it, ctx, depth });
    case "thinking":
      return h(
        "li",
        { className: "a2a-thinking", "data-depth": depth },
        h("details", null, h("summary", null, "Thinking"), h("pre", null, it.text || "")),
      );
    case "error":
      return h("li", { className: "a2a-error", "data-depth": depth }, "Error: " + (it.text || ""));
    default:
      return h("li", { className: "a2a-text", "data-depth": depth }, it.text || "");
  }
}

function Items({ items, ctx, depth, label }) {
  return h(
    "ol",
    { className: depth === 0 ? "a2a-items" : "a2a-items a2a-children", "aria-label": label },
    items.map((it) => h(Item, { key: it.id, it, ctx, depth })),
  );
}

/** ResponseBox: the colleague's question, and the user's response to it in a labelled form. */
export function ResponseBox({ question, onRespond, label = "Your answer", disabled = false }) {
  const id = useId();
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const submit = async (ev) => {
    ev.preventDefault();
    const answer = text.trim();
    if (!answer || busy || disabled) return;
    setBusy(true);
    setError("");
    try {
      await onRespond(answer);
      setText("");
    } catch (e) {
      setError("Not sent: " + String((e && e.message) || e));
    } finally {
      setBusy(false);
    }
  };
  return h(
    "form",
    { className: "a2a-answer", onSubmit: submit, "aria-label": "Answer the question: " + question },
    h("label", { htmlFor: id }, label),
    h("textarea", {
      id,
      rows: 2,
      value: text,
      // Typing goes on while the app is busy; only sending waits.
      disabled: busy,
      onChange: (e) => setText(e.target.value),
      // Enter sends, Shift+Enter is a new line (as chat boxes do).
      onKeyDown: (e) => {
        if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) submit(e);
      },
    }),
    h("button", { type: "submit", disabled: disabled || busy || !text.trim() }, busy ? "Sending…" : "Answer"),
    error ? h("p", { className: "a2a-answer-error", role: "alert" }, error) : null,
  );
}

function Verdict({ view, phase, errorText, onRespond, canRespond, busy, answered, setAnswered }) {
  const verdict = view && view.verdict ? view.verdict : phase === "failed" ? "failed" : "";
  if (!verdict) return null;
  const reason = (view && view.error) || (phase === "failed" ? errorText : "") || "";
  const q = view && view.interrupt;
  const waits = verdict === "input-required" || verdict === "auth-required";
  return h(
    Fragment,
    null,
    h(
      "div",
      { className: "a2a-verdict", role: "status", "data-verdict": verdict },
      h("span", { className: "a2a-label" }, LABELS[verdict] || verdict),
      view && view.reply ? h("div", { className: "a2a-reply" }, view.reply) : null,
      reason ? h("div", { className: "a2a-reason" }, reason) : null,
      q ? h("div", { className: "a2a-question" }, q.question) : null,
      q && q.items && q.items.length
        ? h(
            "ul",
            { className: "a2a-interrupt-items" },
            q.items.map((it, i) => h("li", { key: i }, `${it.toolName || it.toolCallId || "?"}: ${it.message || ""}`)),
          )
        : null,
    ),
    waits && onRespond && canRespond && !answered
      ? h(ResponseBox, {
          question: (q && q.question) || LABELS[verdict],
          disabled: busy,
          onRespond: async (a) => {
            await onRespond(a);
            setAnswered(true);
          },
        })
      : waits && answered
        ? h("p", { className: "a2a-answered" }, "Answer sent.")
        : null,
  );
}

/** NestedCallView: one nested call's view (see view.d.ts for the props). */
export function NestedCallView({
  view,
  phase,
  errorText = "",
  title = "Remote agent",
  onRespond,
  canRespond = true,
  busy = false,
  tailLines = TAIL_LINES,
  className = "",
}) {
  const valid = view === null || view === undefined || isSubagentView(view);
  const v = valid ? view : null;
  const ph = phase || (v && v.verdict ? "ended" : "running");
  const live = ph === "running";
  const anyRunning = !!v && v.items.some((it) => it.kind === "tool" && it.status === "running");
  const now = useClock(live && anyRunning);
  const times = useTimes(v, now);
  const [answered, setAnswered] = useState(false);
  const headId = useId();
  const { top, children } = v ? tree(v.items) : { top: [], children: new Map() };
  const ctx = { times, children, now, live, tailLines: Math.max(1, tailLines | 0) };
  const verdict = v && v.verdict ? v.verdict : ph === "failed" ? "failed" : "";
  return h(
    "section",
    {
      className: "a2a-call" + (className ? " " + className : ""),
      role: "region",
      "aria-labelledby": headId,
      "aria-busy": live ? "true" : "false",
      "data-phase": ph,
      "data-verdict": verdict,
    },
    h(
      "p",
      { className: "a2a-head" },
      h("span", { className: "a2a-title", id: headId }, title),
      h("span", { className: "a2a-phase" }, live ? "running…" : ""),
    ),
    !valid ? h("p", { className: "a2a-invalid", role: "alert" }, "The remote call's view is not in a form this page can show.") : null,
    valid && !v && live ? h("p", { className: "a2a-waiting" }, "Waiting for the remote agent…") : null,
    v && v.omitted
      ? h("p", { className: "a2a-omitted" }, `${plural(v.omitted, "earlier item")} not shown (the view keeps the latest)`)
      : null,
    v && v.gaps
      ? h("p", { className: "a2a-gaps" }, `${plural(v.gaps, "seq")} not received (numbering gaps; output may be incomplete)`)
      : null,
    top.length > 0 ? h(Items, { items: top, ctx, depth: 0, label: "Progress of " + title }) : null,
    h(Verdict, { view: v, phase: ph, errorText, onRespond, canRespond, busy: !!busy, answered, setAnswered }),
  );
}
