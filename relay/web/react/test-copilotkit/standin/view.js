// A stand-in for ../view.js (the package's NestedCallView), for the test
// only, used while ../view.js is not in this checkout: the same props, the
// same class names the test reads, plainer markup. Text only, never markup.
import { createElement as h, useState } from "react";

function tree(items) {
  const tools = new Set(items.filter((it) => it.kind === "tool").map((it) => it.id));
  const kids = new Map();
  const top = [];
  for (const it of items) {
    const p = it.parent && tools.has(it.parent) ? it.parent : "";
    if (!p) top.push(it);
    else kids.set(p, [...(kids.get(p) || []), it]);
  }
  return { top, kids };
}

function Items({ items, kids, depth }) {
  return h("ol", { className: depth ? "a2a-items a2a-children" : "a2a-items" }, items.map((it) => {
    if (it.kind === "tool") {
      const k = kids.get(it.id) || [];
      return h("li", { key: it.id, className: "a2a-tool", "data-status": it.status, "data-depth": depth },
        h("div", { className: "a2a-tool-head" }, h("span", { className: "a2a-status" }, it.status), " ", h("span", { className: "a2a-name" }, it.tool)),
        it.output ? h("pre", { className: "a2a-tail" }, it.output) : null,
        k.length ? h(Items, { items: k, kids, depth: depth + 1 }) : null);
    }
    const cls = it.kind === "thinking" ? "a2a-thinking" : it.kind === "error" ? "a2a-error" : "a2a-text";
    return h("li", { key: it.id, className: cls, "data-depth": depth }, it.kind === "error" ? "Error: " + it.text : it.text);
  }));
}

export function NestedCallView({ view, phase, errorText = "", title = "Remote agent", onRespond, answerable = true }) {
  const [text, setText] = useState("");
  const [sent, setSent] = useState(false);
  const ph = phase || (view && view.verdict ? "ended" : "running");
  const verdict = view && view.verdict ? view.verdict : ph === "failed" ? "failed" : "";
  const { top, kids } = view ? tree(view.items) : { top: [], kids: new Map() };
  const waits = verdict === "input-required" || verdict === "auth-required";
  return h("section", { className: "a2a-call", "data-phase": ph, "data-verdict": verdict },
    h("p", { className: "a2a-head" }, h("span", { className: "a2a-title" }, title)),
    !view && ph === "running" ? h("p", { className: "a2a-waiting" }, "Waiting for the remote agent…") : null,
    top.length ? h(Items, { items: top, kids, depth: 0 }) : null,
    verdict ? h("div", { className: "a2a-verdict", "data-verdict": verdict },
      h("span", { className: "a2a-label" }, verdict),
      view && view.reply ? h("div", { className: "a2a-reply" }, view.reply) : null,
      (view && view.error) || errorText ? h("div", { className: "a2a-reason" }, (view && view.error) || errorText) : null,
      view && view.interrupt ? h("div", { className: "a2a-question" }, view.interrupt.question) : null) : null,
    waits && onRespond && answerable && !sent
      ? h("form", { className: "a2a-answer", onSubmit: async (e) => { e.preventDefault(); await onRespond(text.trim()); setSent(true); } },
          h("label", null, "Your answer"), h("textarea", { value: text, onChange: (e) => setText(e.target.value) }), h("button", { type: "submit" }, "Answer"))
      : null);
}
