// Types of copilotkit.js: remote A2A calls nested as AG-UI sub-agents of
// the caller's tool calls, shown inside those tool calls in CopilotKit's
// chat (@copilotkit/react-core/v2) and kept out of its main transcript.
import type { ComponentType } from "react";
import type { ReactToolCallRenderer, CopilotChatMessageViewProps } from "@copilotkit/react-core/v2";
import type { NestedCallPhase, SubagentView } from "./view.js";

export interface A2ANestingOptions {
  /**
   * The caller's tools whose calls run a remote agent as a sub-agent
   * (SUBAGENT_STARTED's parentToolCallId): each gets a renderer. Default
   * ["ask_colleague"].
   */
  tools?: string[];
  /** The agent the chat talks to; default the chat's own (CopilotChat's agentId, else "default"). */
  agentId?: string;
  /** The heading of every box; default the call's `question` (or `answer`) argument, else the tool's name. */
  title?: string;
}

export interface A2ANesting {
  /** Give to the CopilotKit provider: `renderToolCalls={nesting.renderToolCalls}`. */
  renderToolCalls: ReactToolCallRenderer<any>[];
  /**
   * Give to CopilotChat: `messageView={nesting.messageView}`. CopilotKit's
   * own message view over the messages the agent wrote itself; it also
   * subscribes to the agent's sub-agent events, which the renderers read.
   */
  messageView: ComponentType<CopilotChatMessageViewProps>;
}

/**
 * The parts a CopilotKit page adds to show a remote call inside the tool
 * call that made it: a tool-call renderer per caller tool, and a message
 * view that keeps every message a sub-agent opened out of the transcript
 * and remembers which sub-agent runs under which call (a chain: under
 * which sub-agent). Make it once (module scope or useMemo).
 *
 * A question of the remote agent (a sub-agent that ended suspended, the
 * run ending with an interrupt) is answered in the box: the answer resumes
 * the run (`resume` with the interrupt's id). When several calls ask at
 * once, the run resumes once each has an answer (AG-UI refuses a run
 * that leaves one unanswered).
 */
export function a2aNesting(options?: A2ANestingOptions): A2ANesting;

/** A record of an agent's sub-agents, as a2aNesting's subscriber keeps it. */
export interface SubagentRecord {
  subs: Map<string, {
    id: string;
    name: string;
    parentToolCallId: string;
    parentSubagentRunId: string;
    /** "" while it runs; "success", "suspended", "error", or "dropped" (finished without an outcome). */
    end: string;
    error?: string;
    code?: string;
    interruptIds?: string[];
  }>;
  interrupts: Map<string, { message: string; reason: string; subagentRunId: string }>;
}

/**
 * The view of the remote call(s) under the caller's tool call toolCallId,
 * from the agent's messages and the record (null before a sub-agent
 * started under it): what the renderer shows. `waiting` are the interrupt
 * ids the latest sub-agent asks.
 */
export function callView(
  messages: readonly unknown[],
  record: SubagentRecord,
  toolCallId: string,
  result?: string,
): { view: SubagentView; phase: NestedCallPhase; errorText: string; waiting: string[] } | null;
