// nest.js — the page's rendering of nested calls (the nesting extension,
// PROTOCOL.md §10): a sub-agent's calls and blocks, forwarded by an agent
// into one of its tool calls, are shown inside that call's item, in view
// order, at any depth the view gives.

// nest moves the items of order (the page's items in view order: tool
// calls keyed "t:" + key, blocks keyed by blockKey) that belong under a
// call into an <ol class="nested"> at the end of that call's item, and
// returns the items left at the top level, in order. A call belongs under
// its parent when the view gives it a depth (≥ 1); any other block with a
// parent belongs under that call when the call is on the page. Nothing
// here reads agent text: it only moves the items app.js filled.
export function nest(view, order, blockKey) {
  const callItem = new Map(); // call key → its item
  for (const li of order) {
    const k = li.dataset.key || "";
    if (k.startsWith("t:")) callItem.set(k.slice(2), li);
  }
  const parentOf = new Map(); // item key → the key of the call it belongs under
  for (const c of view.toolCalls || []) {
    if (c.depth > 0) parentOf.set("t:" + c.key, c.parent);
  }
  for (const b of view.blocks || []) {
    if (b.parent && b.kind !== "tool_call") parentOf.set(blockKey(b), b.parent);
  }
  const top = [];
  const kids = new Map(); // call key → its items, in order
  for (const li of order) {
    const p = parentOf.get(li.dataset.key);
    if (p !== undefined && callItem.has(p) && callItem.get(p) !== li) {
      if (!kids.has(p)) kids.set(p, []);
      kids.get(p).push(li);
    } else {
      top.push(li);
    }
  }
  for (const [key, li] of callItem) {
    const items = kids.get(key) || [];
    let ol = null;
    for (const c of li.children) if (c.tagName === "OL" && c.classList.contains("nested")) ol = c;
    if (items.length === 0) {
      if (ol !== null) ol.remove();
      continue;
    }
    if (ol === null) {
      ol = document.createElement("ol");
      ol.className = "nested";
      li.append(ol);
    }
    place(ol, items);
  }
  return top;
}

// place makes items the children of list, in order.
export function place(list, items) {
  items.forEach((li, i) => {
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
  });
  while (list.children.length > items.length) list.lastElementChild.remove();
}
