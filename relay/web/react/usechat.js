// usechat.js — the renderer of the Vercel AI SDK useChat tool part whose
// output is a remote call's view (PROTOCOL.md §9.3): preliminary outputs
// while the call runs, the final output once it completed or asks, and a
// failed call's kept view (the AI SDK drops a failed part's output; the
// caller puts the view in toolMetadata.a2a).
import { createElement as h } from "react";
import { NestedCallView, isSubagentView } from "./view.js";

/** The tool name examples/orchestrator (and frontend.ChatStream's callers) use. */
export const NESTED_TOOL = "ask_colleague";

const STATES = new Set([
  "input-streaming",
  "input-available",
  "approval-requested",
  "approval-responded",
  "output-available",
  "output-error",
  "output-denied",
]);

/** isNestedCallPart: a useChat tool part of toolName (default ask_colleague), static or dynamic. */
export function isNestedCallPart(part, toolName = NESTED_TOOL) {
  if (!part || typeof part !== "object") return false;
  if (typeof part.toolCallId !== "string" || !STATES.has(part.state)) return false;
  if (part.type === "tool-" + toolName) return true;
  return part.type === "dynamic-tool" && part.toolName === toolName;
}

/** nestedCallOf: what NestedCallView needs from a tool part. */
export function nestedCallOf(part) {
  const input = part.input && typeof part.input === "object" ? part.input : {};
  const title = typeof input.question === "string" ? "Asked: " + input.question : typeof input.answer === "string" ? "Answer: " + input.answer : undefined;
  switch (part.state) {
    case "output-available":
      return { view: part.output, phase: part.preliminary ? "running" : "ended", errorText: "", title };
    case "output-error": {
      const kept = part.toolMetadata && part.toolMetadata.a2a;
      return { view: isSubagentView(kept) ? kept : null, phase: "failed", errorText: String(part.errorText || ""), title };
    }
    case "output-denied":
      return { view: null, phase: "failed", errorText: "The call was denied.", title };
    default:
      return { view: null, phase: "running", errorText: "", title };
  }
}

/** NestedCallPart: NestedCallView for one useChat tool part. */
export function NestedCallPart({ part, title, ...rest }) {
  const c = nestedCallOf(part);
  return h(NestedCallView, { ...rest, view: c.view, phase: c.phase, errorText: c.errorText, title: title || c.title });
}
