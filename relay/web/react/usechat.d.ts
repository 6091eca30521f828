// Types of usechat.js: the useChat (@ai-sdk/react) renderer of a nested call's tool part.
import type { ReactElement } from "react";
import type { NestedCallPhase, NestedCallViewProps, SubagentView } from "./view.js";

/** "ask_colleague": the tool name examples/orchestrator uses. */
export const NESTED_TOOL: string;

/**
 * The fields of an AI SDK UI tool part (`ToolUIPart` / `DynamicToolUIPart`
 * of package `ai`) that the renderer reads; any such part is assignable.
 */
export interface NestedCallToolPart {
  type: string;
  toolName?: string;
  toolCallId: string;
  state:
    | "input-streaming"
    | "input-available"
    | "approval-requested"
    | "approval-responded"
    | "output-available"
    | "output-error"
    | "output-denied";
  input?: unknown;
  /** output-available: the view (preliminary: true while the call runs). */
  output?: unknown;
  preliminary?: boolean;
  /** output-error: the reason. */
  errorText?: string;
  /** output-error: the failed call's kept view is toolMetadata.a2a. */
  toolMetadata?: { [key: string]: unknown };
}

/**
 * Whether part is the tool part of a nested call: type `tool-<toolName>`
 * (or a dynamic-tool part of that toolName) with a toolCallId and a known
 * state. toolName defaults to NESTED_TOOL.
 */
export function isNestedCallPart<P>(part: P, toolName?: string): part is P & NestedCallToolPart;

/** What NestedCallView needs from a tool part; view is null until there is one (or a failed call kept none). */
export function nestedCallOf(part: NestedCallToolPart): {
  view: SubagentView | unknown | null;
  phase: NestedCallPhase;
  errorText: string;
  /** From the call's input: "Asked: " + `question`, or "Answer: " + `answer`, if any. */
  title?: string;
};

export interface NestedCallPartProps extends Omit<NestedCallViewProps, "view" | "phase" | "errorText"> {
  part: NestedCallToolPart;
}

/**
 * NestedCallView for one useChat tool part: preliminary outputs render as
 * running, the final output as ended, output-error with the view kept in
 * toolMetadata.a2a as failed. A view that is not a SubagentView is said,
 * not rendered.
 */
export function NestedCallPart(props: NestedCallPartProps): ReactElement;
