// copilotkit.js — a remote A2A call, nested as an AG-UI sub-agent of the
// caller's tool call (PROTOCOL.md §9.3), shown inside that tool call in
// CopilotKit's chat and kept out of its main transcript.
//
// CopilotKit (@copilotkit/react-core 1.74, its v2 API) passes the
// SUBAGENT_* events through and @ag-ui/client 0.0.59 stamps every message a
// sub-agent opens with its subagentRunId, but nothing reads them: the
// callee's texts would show as the agent's own words and its tools as the
// agent's own calls. Three parts fix that, all made by a2aNesting:
//
//   - an agent subscriber (attached by the message view) that remembers
//     each sub-agent — its parent tool call, its parent sub-agent (a chain),
//     how it ended — and the interrupts the run ended with;
//   - a message view that leaves out every message a sub-agent opened;
//   - a tool-call renderer per caller tool that gathers the messages of the
//     sub-agents under its call into the sub-agent view of
//     schema/subagent-view.schema.json and shows it with NestedCallView.
//
// Every string of the view is the remote agent's text: NestedCallView
// renders it as React text, never as markup.
import { createElement as h, useCallback, useEffect, useMemo, useSyncExternalStore } from "react";
import {
  CopilotChatMessageView,
  useCopilotChatConfiguration,
  useCopilotKit,
} from "@copilotkit/react-core/v2";
import { NestedCallView } from "./view.js";

// The caps of one agent's record: sub-agents and interrupts remembered (the
// oldest give way first), and a tool output's tail in the view (the view
// schema's).
const MAX_SUBAGENTS = 1024;
const MAX_INTERRUPTS = 256;
const MAX_OUTPUT = 2048;
const MAX_DEPTH = 9;

const VERDICTS = new Set(["completed", "failed", "rejected", "canceled", "input-required", "auth-required", "incomplete"]);
const TOOL_STATUSES = new Set(["running", "done", "aborted", "unfinished"]);
const OUTPUT_TYPE = "a2a-tool-output";

const str = (v) => (typeof v === "string" ? v : "");

// put adds k → v to m, dropping the oldest entries past max.
function put(m, k, v, max) {
  m.delete(k);
  m.set(k, v);
  while (m.size > max) m.delete(m.keys().next().value);
}

// Record is what one agent's subscriber has seen: its sub-agents and the
// interrupts its last run ended with. Its version changes with every
// change, and with the agent's messages, so a renderer re-renders.
class Record {
  constructor(agent) {
    this.agent = agent;
    this.subs = new Map(); // subagentRunId → {id, name, parentToolCallId, parentSubagentRunId, end, error, code, interruptIds}
    this.interrupts = new Map(); // interruptId → {message, reason, subagentRunId}
    this.answers = new Map(); // interruptId → the answer given, until the run that sends them all
    this.version = 0;
    this.listeners = new Set();
    this.unsubscribe = null;
  }
  changed() {
    this.version++;
    for (const l of this.listeners) l();
  }
  subscriber() {
    const started = ({ event: e }) => {
      if (!str(e.subagentRunId)) return;
      put(this.subs, e.subagentRunId, {
        id: e.subagentRunId,
        name: str(e.name),
        parentToolCallId: str(e.parentToolCallId),
        parentSubagentRunId: str(e.parentSubagentRunId),
        end: "",
      }, MAX_SUBAGENTS);
      this.changed();
    };
    const ended = (kind) => ({ event: e }) => {
      const s = this.subs.get(str(e.subagentRunId));
      if (!s) return;
      if (kind === "error") {
        s.end = "error";
        s.error = str(e.message);
        s.code = str(e.code);
      } else {
        const o = e.outcome && typeof e.outcome === "object" ? e.outcome : {};
        s.end = o.type === "suspended" ? "suspended" : o.type === "success" ? "success" : "dropped";
        s.interruptIds = Array.isArray(o.interruptIds) ? o.interruptIds.filter((id) => typeof id === "string") : [];
      }
      this.changed();
    };
    // A run that stops with sub-agents still open (an error, a cut, a
    // stop) leaves them unfinished: they are shown as incomplete, not as
    // running forever.
    const stopped = (why) => () => {
      let any = false;
      for (const s of this.subs.values()) {
        if (s.end) continue;
        s.end = "error";
        s.code = "incomplete";
        s.error = why;
        any = true;
      }
      if (any) this.changed();
    };
    return {
      onSubagentStartedEvent: started,
      onSubagentFinishedEvent: ended("finished"),
      onSubagentErrorEvent: ended("error"),
      onRunFinishedEvent: ({ event: e }) => {
        const o = e.outcome && typeof e.outcome === "object" ? e.outcome : {};
        if (o.type !== "interrupt" || !Array.isArray(o.interrupts)) return;
        for (const it of o.interrupts) {
          if (!it || !str(it.id)) continue;
          put(this.interrupts, it.id, { message: str(it.message), reason: str(it.reason), subagentRunId: str(it.subagentRunId) }, MAX_INTERRUPTS);
        }
        this.changed();
      },
      // @ag-ui/client sets agent.pendingInterrupts only after the
      // RUN_FINISHED subscribers ran: a render caused by that event alone
      // can miss the question as open (no answer box), so the run's end
      // renders again once the agent holds it.
      onRunFinalized: () => this.changed(),
      onRunErrorEvent: stopped("the caller's run failed"),
      onRunFailed: stopped("the caller's run failed"),
      onMessagesChanged: () => this.changed(),
    };
  }
}

// messageOwned reports whether m was opened by a sub-agent.
const ownedBySubagent = (m) => typeof m?.subagentRunId === "string" && m.subagentRunId !== "";

// utf8Length is the UTF-8 size of s.
function utf8Length(s) {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

function tail(s) {
  const cps = Array.from(s);
  return cps.length > MAX_OUTPUT ? cps.slice(-MAX_OUTPUT).join("") : s;
}

function meta(m, key) {
  const a = m && m.metadata && typeof m.metadata === "object" ? m.metadata.a2a : undefined;
  return a && typeof a === "object" ? a[key] : undefined;
}

/**
 * callView gathers, from an agent's messages and its record, the view of
 * the remote call(s) nested under the caller's tool call toolCallId: the
 * items of every sub-agent under it (a chain's deeper ones under their
 * tool items), in message order, and how the latest one ended. It returns
 * null before any sub-agent started under the call.
 */
export function callView(messages, record, toolCallId, result) {
  // The sub-agents of the call: its own (the first one and those that
  // continue it after an answer), then, down a chain, those under a tool
  // call of one of them.
  const top = [];
  for (const s of record.subs.values()) {
    if (s.parentToolCallId === toolCallId && !s.parentSubagentRunId) top.push(s);
  }
  if (top.length === 0) return null;
  const inTree = new Map(top.map((s) => [s.id, s]));
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of record.subs.values()) {
      if (!inTree.has(s.id) && s.parentSubagentRunId && inTree.has(s.parentSubagentRunId)) {
        inTree.set(s.id, s);
        grew = true;
      }
    }
  }
  // Tool outputs: the activity message of a call, or its result.
  const outputs = new Map(); // callee toolCallId → {output, status}
  for (const m of messages) {
    if (!ownedBySubagent(m) || !inTree.has(m.subagentRunId)) continue;
    if (m.role === "activity" && m.activityType === OUTPUT_TYPE && m.content && typeof m.content === "object") {
      const id = str(m.id).replace(/-output$/, "");
      const chunks = Array.isArray(m.content.chunks) ? m.content.chunks.map(str).join("") : "";
      const prev = outputs.get(id) || {};
      outputs.set(id, { output: prev.final ? prev.output : chunks, status: prev.final ? prev.status : str(m.content.status), final: prev.final });
    } else if (m.role === "tool" && str(m.toolCallId)) {
      outputs.set(m.toolCallId, { output: str(m.content), status: str(meta(m, "status")) || "done", final: true });
    }
  }
  const items = [];
  const toolDepth = new Map(); // callee toolCallId → its item's depth (0 at the top)
  const seen = new Set();
  const place = (s) => {
    // A sub-agent under a tool call of another (a chain) belongs under
    // that call's item; the call's own sub-agents at the top.
    if (s.parentSubagentRunId && toolDepth.has(s.parentToolCallId)) {
      const d = toolDepth.get(s.parentToolCallId) + 1;
      return d <= MAX_DEPTH ? { parent: "t:" + s.parentToolCallId, depth: d } : {};
    }
    return {};
  };
  const add = (it) => {
    if (seen.has(it.id)) return;
    seen.add(it.id);
    items.push(it);
  };
  // A call asked, was answered, and went on: the question stays in the
  // view, where the sub-agent that asked ended.
  const asked = new Set();
  const ask = (s) => {
    const q = s && s.end === "suspended" && !asked.has(s.id) ? questionOf(record, s) : "";
    if (s) asked.add(s.id);
    if (q) items.push({ id: "q:" + s.id, kind: "text", text: "Asked: " + q });
  };
  const rootOf = (s) => {
    for (let n = 0; s && s.parentSubagentRunId && n < MAX_DEPTH + 1; n++) s = inTree.get(s.parentSubagentRunId) || s;
    return s;
  };
  let prevRoot = null;
  for (const m of messages) {
    if (!ownedBySubagent(m) || !inTree.has(m.subagentRunId)) continue;
    const root = rootOf(inTree.get(m.subagentRunId));
    if (prevRoot && root !== prevRoot) ask(prevRoot);
    prevRoot = root;
    const at = place(inTree.get(m.subagentRunId));
    if (m.role === "reasoning") {
      add({ id: "m:" + m.id, kind: "thinking", text: str(m.content), ...at });
    } else if (m.role === "assistant") {
      const text = str(m.content);
      if (text) add({ id: "m:" + m.id, kind: meta(m, "kind") === "error" ? "error" : "text", text, ...at });
      for (const tc of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
        if (!tc || !str(tc.id)) continue;
        const o = outputs.get(tc.id) || { output: "", status: "running" };
        const status = TOOL_STATUSES.has(o.status) ? o.status : "running";
        const it = { id: "t:" + tc.id, kind: "tool", tool: str(tc.function && tc.function.name) || "tool", toolCallId: tc.id, status, ...at };
        if (o.output) {
          it.output = tail(o.output);
          it.outputBytes = utf8Length(o.output);
        }
        toolDepth.set(tc.id, at.depth || 0);
        add(it);
      }
    }
  }
  const latest = top[top.length - 1];
  for (const s of top) if (s !== latest) ask(s);
  const view = { schemaVersion: 2, task: toolCallId, turn: latest.id, items };
  let phase = "running";
  let errorText = "";
  if (latest.end === "success") {
    view.verdict = "completed";
    if (typeof result === "string" && result) view.reply = result;
    phase = "ended";
  } else if (latest.end === "suspended") {
    const reason = (latest.interruptIds || []).map((id) => record.interrupts.get(id)?.reason).find(Boolean);
    view.verdict = reason === "auth_required" ? "auth-required" : "input-required";
    const q = questionOf(record, latest);
    view.interrupt = { question: q || "The remote agent needs an answer." };
    phase = "ended";
  } else if (latest.end === "error" || latest.end === "dropped") {
    view.verdict = VERDICTS.has(latest.code) ? latest.code : "failed";
    view.error = latest.error || (typeof result === "string" ? result : "") || "the remote call did not finish";
    phase = "failed";
    errorText = view.error;
  }
  return { view, phase, errorText, waiting: latest.end === "suspended" ? latest.interruptIds || [] : [] };
}

function questionOf(record, s) {
  for (const id of s.interruptIds || []) {
    const q = record.interrupts.get(id);
    if (q && q.message) return q.message;
  }
  return "";
}

/**
 * a2aNesting makes the parts a CopilotKit page adds to show remote A2A
 * calls inside the tool calls that made them. Give renderToolCalls to the
 * CopilotKit provider and messageView to CopilotChat.
 */
export function a2aNesting({ tools = ["ask_colleague"], agentId, title } = {}) {
  const records = new WeakMap(); // agent → Record

  const recordOf = (agent) => {
    let r = records.get(agent);
    if (!r) {
      r = new Record(agent);
      records.set(agent, r);
    }
    return r;
  };

  // useRecord is the record of the chat's agent, kept current: it attaches
  // the subscriber while a message view shows the agent.
  const useAgentOf = () => {
    const config = useCopilotChatConfiguration();
    const { copilotkit } = useCopilotKit();
    const id = agentId || (config && config.agentId) || "default";
    return { copilotkit, agent: copilotkit.getAgent(id) };
  };

  const useRecord = (agent) => {
    const r = agent ? recordOf(agent) : null;
    const subscribe = useCallback(
      (l) => {
        if (!r) return () => {};
        r.listeners.add(l);
        return () => r.listeners.delete(l);
      },
      [r],
    );
    useSyncExternalStore(subscribe, () => (r ? r.version : -1));
    return r;
  };

  function MessageView(props) {
    const { agent } = useAgentOf();
    const r = agent ? recordOf(agent) : null;
    // Attached once per agent and kept: CopilotKit remounts the message
    // view as a run ends, and a subscriber detached meanwhile missed the
    // RUN_FINISHED that carries a question's interrupt id (no answer box).
    // The record's maps are bounded; it lives as long as its agent.
    useEffect(() => {
      if (r && !r.unsubscribe) r.unsubscribe = r.agent.subscribe(r.subscriber()).unsubscribe;
    }, [r]);
    const messages = props.messages || [];
    const own = useMemo(() => messages.filter((m) => !ownedBySubagent(m)), [messages]);
    return h(CopilotChatMessageView, { ...props, messages: own });
  }

  function CallView({ name, toolCallId, args, status, result }) {
    const { copilotkit, agent } = useAgentOf();
    const r = useRecord(agent);
    if (!agent || !r) return null;
    const messages = agent.messages || [];
    // A callee's own tool with the caller's tool's name (a chain's
    // ask_colleague) is not a call of the caller: it is shown inside the
    // box it belongs to, never as a box of its own.
    const holder = messages.find((m) => Array.isArray(m.toolCalls) && m.toolCalls.some((tc) => tc && tc.id === toolCallId));
    if (holder && ownedBySubagent(holder)) return null;
    const got = callView(messages, r, toolCallId, result);
    const heading = str(title) || str(args && args.question) || str(args && args.answer) || name;
    if (!got) {
      // No sub-agent ran: the call's result (when it has one) says why.
      const ended = status === "complete";
      return h(NestedCallView, {
        view: null,
        title: heading,
        phase: ended ? "failed" : "running",
        errorText: ended ? str(result) || "the remote call did not start" : "",
      });
    }
    const open = new Set((agent.pendingInterrupts || []).map((i) => i && i.id));
    const waiting = got.waiting.filter((id) => open.has(id));
    const onRespond = waiting.length
      ? async (answer) => {
          for (const id of waiting) r.answers.set(id, answer);
          // AG-UI refuses a run that leaves an interrupt of the last one
          // unanswered: the answers go together, once every question
          // of the run has one.
          const pending = [...open];
          if (!pending.every((id) => r.answers.has(id))) return;
          const resume = pending.map((id) => ({ interruptId: id, status: "resolved", payload: r.answers.get(id) }));
          r.answers.clear();
          await copilotkit.runAgent({ agent, resume });
        }
      : undefined;
    return h(NestedCallView, {
      view: got.view,
      phase: got.phase,
      errorText: got.errorText,
      title: heading,
      onRespond,
      canRespond: waiting.length > 0,
    });
  }

  return {
    renderToolCalls: tools.map((name) => ({ name, ...(agentId ? { agentId } : {}), render: CallView })),
    messageView: MessageView,
  };
}
