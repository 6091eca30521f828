// describe.js — evaluated by react_test.go in both pages: what a nested
// call shows, read from the DOM as the user sees it (text, status, nesting),
// in one shape for the React component (.a2a-call) and the project's own
// page (relay/web/app.js, li.entry). Elapsed times are left out: each page
// measures them itself.
(() => {
  const txt = (e) => (e ? e.textContent : "");
  const kids = (ol, item) => (ol ? [...ol.children].map(item) : []);
  function reactItem(li) {
    if (li.classList.contains("a2a-tool")) {
      return {
        kind: "tool",
        name: txt(li.querySelector(":scope > .a2a-tool-head .a2a-name")),
        status: li.dataset.status,
        tail: txt(li.querySelector(":scope > .a2a-tail")),
        children: kids(li.querySelector(":scope > ol.a2a-children"), reactItem),
      };
    }
    if (li.classList.contains("a2a-thinking")) return { kind: "thinking", text: txt(li.querySelector("pre")), children: [] };
    if (li.classList.contains("a2a-error")) return { kind: "error", text: txt(li), children: [] };
    return { kind: "text", text: txt(li), children: [] };
  }
  function pageItem(li) {
    if (li.classList.contains("tool")) {
      const tail = li.querySelector(":scope > pre.tail");
      return {
        kind: "tool",
        name: txt(li.querySelector(":scope > .head .name")),
        status: li.dataset.status,
        tail: tail && !tail.hidden ? txt(tail) : "",
        children: kids(li.querySelector(":scope > ol.nested"), pageItem),
      };
    }
    if (li.classList.contains("thinking")) return { kind: "thinking", text: txt(li.querySelector("pre")), children: [] };
    if (li.classList.contains("error-block")) return { kind: "error", text: txt(li), children: [] };
    return { kind: "text", text: txt(li), children: [] };
  }
  function verdict(box, c) {
    if (!box || box.hidden) return null;
    return {
      label: txt(box.querySelector("." + c + "label")),
      reply: txt(box.querySelector("." + c + "reply")),
      reason: txt(box.querySelector("." + c + "reason")),
      question: txt(box.querySelector("." + c + "question")),
    };
  }
  window.__describeReact = (root) => ({
    items: kids(root.querySelector(":scope > ol.a2a-items"), reactItem),
    verdict: verdict(root.querySelector(":scope > .a2a-verdict"), "a2a-"),
    gaps: txt(root.querySelector(":scope > .a2a-gaps")),
  });
  window.__describePage = (root) => {
    const gaps = root.querySelector(":scope > .gaps");
    return {
      items: kids(root.querySelector(":scope > ol.turn"), pageItem),
      verdict: verdict(root.querySelector(":scope > .verdict"), ""),
      gaps: gaps && !gaps.hidden ? txt(gaps) : "",
    };
  };
})();
