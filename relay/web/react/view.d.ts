// Types of view.js: a remote (nested) call's view as React renders it.
import type { ReactElement } from "react";

/** One item of a nested call's view (schema/subagent-view.schema.json). */
export interface SubagentViewItem {
  /** Stable across outputs of one turn: React's key. */
  id: string;
  kind: "thinking" | "text" | "error" | "tool";
  /** thinking, text, error: the text. */
  text?: string;
  /** tool: the tool's name. */
  tool?: string;
  toolCallId?: string;
  /** tool: running, done, aborted, or unfinished (the turn ended while it ran). */
  status?: "running" | "done" | "aborted" | "unfinished";
  /** tool: the last 2 KiB of its output. */
  output?: string;
  /** tool: the whole output's size, of which `output` is the tail. */
  outputBytes?: number;
  /** The id of the tool item this item belongs under (a chain); absent at the top level. */
  parent?: string;
  /** 1 for an item directly under a top-level tool item, and so on; with parent. */
  depth?: number;
}

/** The question of a call that waits for input (input-required, auth-required). */
export interface SubagentInterrupt {
  question: string;
  items?: { toolCallId: string; toolName: string; message: string }[];
}

/** A remote call's view: the output of the caller's tool part (PROTOCOL.md §9.3). */
export interface SubagentView {
  schemaVersion: 1 | 2;
  task: string;
  turn: string;
  verdict?: "completed" | "failed" | "rejected" | "canceled" | "input-required" | "auth-required" | "incomplete";
  items: SubagentViewItem[];
  /** How many of the oldest items gave way to the view's size cap. */
  omitted?: number;
  /** How many seqs never arrived (numbering gaps). */
  gaps?: number;
  reply?: string;
  error?: string;
  interrupt?: SubagentInterrupt;
}

/**
 * What the call is doing now, as the caller's front end knows it:
 * "running" while outputs are preliminary, "ended" once the final output
 * came, "failed" when the call ended with an error (`errorText`).
 */
export type NestedCallPhase = "running" | "ended" | "failed";

export interface NestedCallViewProps {
  /** The latest view; null/undefined before the first output (shows "Waiting for the remote agent…"). */
  view: SubagentView | null | undefined;
  /** Defaults to "ended" when the view has a verdict, else "running". */
  phase?: NestedCallPhase;
  /** A failed call's reason (useChat's errorText); shown when the view has no error of its own. */
  errorText?: string;
  /** The heading, e.g. the question the caller asked; plain text. Default "Remote agent". */
  title?: string;
  /**
   * Called with the user's answer to the colleague's question (a view
   * whose verdict is input-required or auth-required). The app sends it
   * (useChat: as the chat's next user message) and the run resumes. Without
   * it, the question is shown and no answer box.
   */
  onRespond?: (answer: string) => void | Promise<void>;
  /** Whether the user may still respond to this call's question (default true); false shows the question without the box. */
  canRespond?: boolean;
  /**
   * The app cannot send an answer now (useChat: `status !== "ready"`, the
   * message that asked is still streaming): the answer can be typed, not sent.
   */
  busy?: boolean;
  /** Output lines a tool call shows before "all output" (default 6). */
  tailLines?: number;
  /** Added to the root element's class (always `a2a-call`). */
  className?: string;
}

/**
 * One nested call's view. Every string from the view is rendered as text,
 * never as markup. Themable with the CSS variables of styles.css (--a2a-*);
 * roles: the call is a `region` labelled by its title, the item list a
 * `list` (a chain a tree of nested lists), the verdict a `status`, errors
 * `alert`s.
 */
export function NestedCallView(props: NestedCallViewProps): ReactElement;

export interface ResponseBoxProps {
  /** The colleague's question (plain text). */
  question: string;
  onRespond: (answer: string) => void | Promise<void>;
  /** Label of the text field (default "Your answer"). */
  label?: string;
  /** The app cannot send now (e.g. the chat is streaming): the answer can be typed, not sent. */
  disabled?: boolean;
}

/** The box for the user's response to a colleague's question: a labelled form; Enter or the button sends. */
export function ResponseBox(props: ResponseBoxProps): ReactElement;

/** Whether v has the shape of a SubagentView (the fields the component reads, with their types). */
export function isSubagentView(v: unknown): v is SubagentView;
