// Runs the real AG-UI and AI SDK clients against an orchestrator that nests
// a remote A2A call under its own tool call (relay.AGUIRun,
// relay.ChatStream; examples/orchestrator), and prints what they assembled
// as one JSON object on stdout.
//
//   node nested.mjs '<config JSON>'
//
// config: {
//   mode:   "agui"   — @ag-ui/client's HttpAgent.runAgent() POSTs to url
//                      (its event verifier runs on every event); out:
//                      every event, the messages, the run's error.
//           "read"   — DefaultChatTransport.sendMessages() to api piped into
//                      readUIMessageStream(); out: the states of the
//                      ask_colleague tool parts as they changed, and the
//                      last message.
//           "reload" — a Chat (what useChat wraps) sends the message and,
//                      once a tool part shows a preliminary output, stops
//                      (the page goes away); GETs release (the test then
//                      lets the remote agent finish); a second Chat — the
//                      reloaded page, holding only the user message —
//                      calls resumeStream(); out: its messages.
//   url, api, id, text, release: as above.
// }
//
// console.warn / console.error of the libraries are captured: the Go test
// fails on any.
import { HttpAgent } from "@ag-ui/client";
import { AbstractChat, DefaultChatTransport, readUIMessageStream } from "ai";

const cfg = JSON.parse(process.argv[2]);
const warnings = [];
process.on("uncaughtException", (err) => warnings.push("uncaught: " + String(err && err.message ? err.message : err)));
process.on("unhandledRejection", (err) => warnings.push("unhandled: " + String(err && err.message ? err.message : err)));
for (const level of ["warn", "error"]) {
  console[level] = (...args) =>
    warnings.push(args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
}

const out = { warnings };

class MemoryState {
  constructor(messages = []) {
    this.status = "ready";
    this.error = undefined;
    this.messages = messages;
  }
  pushMessage = (m) => {
    this.messages = this.messages.concat(m);
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (i, m) => {
    this.messages = [...this.messages.slice(0, i), this.snapshot(m), ...this.messages.slice(i + 1)];
    this.onChange?.(this.messages);
  };
  snapshot = (x) => structuredClone(x);
}

class Chat extends AbstractChat {
  constructor(init, messages) {
    const state = new MemoryState(messages);
    super({ ...init, state });
    this.memory = state;
  }
}

const toolParts = (m) => (m?.parts ?? []).filter((p) => p.type === "tool-ask_colleague");

if (cfg.mode === "agui") {
  const agent = new HttpAgent({
    url: cfg.url,
    threadId: cfg.id,
    initialMessages: [{ id: "u1", role: "user", content: cfg.text }],
  });
  out.events = [];
  out.error = null;
  try {
    await agent.runAgent({ runId: "run-1" }, { onEvent: ({ event }) => void out.events.push(event) });
  } catch (err) {
    out.error = String(err && err.message ? err.message : err);
  }
  out.messages = agent.messages;
} else if (cfg.mode === "read") {
  const transport = new DefaultChatTransport({ api: cfg.api });
  out.states = [];
  out.errors = [];
  let last = null;
  try {
    const stream = await transport.sendMessages({
      chatId: cfg.id,
      trigger: "submit-message",
      messageId: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: cfg.text }] }],
      abortSignal: undefined,
    });
    let prev = "";
    for await (const m of readUIMessageStream({ stream, onError: (e) => out.errors.push(String(e.message ?? e)) })) {
      last = m;
      const now = JSON.stringify(toolParts(m).map((p) => ({ id: p.toolCallId, state: p.state, preliminary: p.preliminary ?? false, output: p.output ?? null, errorText: p.errorText ?? null })));
      if (now !== prev) {
        out.states.push(JSON.parse(now));
        prev = now;
      }
    }
  } catch (err) {
    out.errors.push(String(err.message ?? err));
  }
  out.message = last;
} else if (cfg.mode === "reload") {
  out.errors = [];
  const user = { id: "u1", role: "user", parts: [{ type: "text", text: cfg.text }] };
  const first = new Chat({ id: cfg.id, transport: new DefaultChatTransport({ api: cfg.api }), onError: (e) => out.errors.push("first: " + String(e.message ?? e)) }, []);
  // The state tells each change of the message: stop at the first
  // preliminary output.
  const seen = new Promise((resolve) => {
    first.memory.onChange = (msgs) => {
      if (toolParts(msgs[msgs.length - 1]).some((p) => p.preliminary)) resolve();
    };
  });
  const sent = first.sendMessage(user);
  await Promise.race([seen, sent]);
  out.beforeReload = structuredClone(first.messages);
  await first.stop();
  await sent.catch(() => {});
  await fetch(cfg.release);
  const second = new Chat({ id: cfg.id, transport: new DefaultChatTransport({ api: cfg.api }), onError: (e) => out.errors.push("second: " + String(e.message ?? e)) }, [user]);
  await second.resumeStream();
  out.messages = second.messages;
  out.status = second.status;
}
process.stdout.write(JSON.stringify(out));
