// Runs the Vercel AI SDK's own UI-message-stream readers against the relay
// and prints what they assembled, as one JSON object on stdout.
//
//   node aisdk.mjs '<config JSON>'
//
// config: {
//   api:     the chat endpoint (the relay's /api/chat),
//   id:      the chat id,
//   text:    the user message to send,
//   mode:    "chat"  — the Chat class useChat wraps (AbstractChat with an
//                      in-memory state, DefaultChatTransport): sendMessage,
//                      then, when resume is set, resumeStream() (the GET
//                      <api>/<id>/stream that useChat({resume: true}) makes);
//            "read"  — DefaultChatTransport.sendMessages() piped into
//                      readUIMessageStream(): the last UIMessage it yields.
//   resume:  true to call resumeStream() after the first request ended
//            (finished, failed or cut).
//   replay:  false to build the transport with resumeStreamIsReplay: false
//            (a resumed stream then continues the message it has).
// }
import { AbstractChat, DefaultChatTransport, readUIMessageStream } from "ai";

const cfg = JSON.parse(process.argv[2]);
const warnings = [];
// A connection the test cuts makes undici fail a read nobody awaits; it is
// reported, not fatal, so the script can go on to reconnect.
process.on("uncaughtException", (err) => warnings.push("uncaught: " + String(err && err.message ? err.message : err)));
process.on("unhandledRejection", (err) => warnings.push("unhandled: " + String(err && err.message ? err.message : err)));
for (const level of ["warn", "error"]) {
  console[level] = (...args) =>
    warnings.push(args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
}

// MemoryState is the ChatState that @ai-sdk/react keeps in React state,
// without React.
class MemoryState {
  constructor() {
    this.status = "ready";
    this.error = undefined;
    this.messages = [];
  }
  pushMessage = (m) => {
    this.messages = this.messages.concat(m);
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (i, m) => {
    this.messages = [...this.messages.slice(0, i), this.snapshot(m), ...this.messages.slice(i + 1)];
  };
  snapshot = (x) => structuredClone(x);
}

class Chat extends AbstractChat {
  constructor(init) {
    const state = new MemoryState();
    super({ ...init, state });
    this.memory = state;
  }
}

const out = { messages: null, status: null, errors: [], finishes: [], resumed: null, warnings };

if (cfg.mode === "read") {
  const transport = new DefaultChatTransport({ api: cfg.api });
  let last = null;
  try {
    const stream = await transport.sendMessages({
      chatId: cfg.id,
      trigger: "submit-message",
      messageId: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: cfg.text }] }],
      abortSignal: undefined,
    });
    for await (const m of readUIMessageStream({ stream, onError: (e) => out.errors.push(String(e.message ?? e)) })) {
      last = m;
    }
  } catch (err) {
    out.errors.push(String(err.message ?? err));
  }
  out.messages = last ? [last] : [];
} else {
  const chat = new Chat({
    id: cfg.id,
    transport: new DefaultChatTransport({ api: cfg.api, resumeStreamIsReplay: cfg.replay ?? true }),
    onError: (e) => out.errors.push(String(e.message ?? e)),
    onFinish: (f) => out.finishes.push({ finishReason: f.finishReason ?? null, isError: f.isError, isDisconnect: f.isDisconnect }),
  });
  await chat.sendMessage({ text: cfg.text });
  if (cfg.resume) {
    const before = chat.messages.length;
    await chat.resumeStream();
    out.resumed = { before, after: chat.messages.length };
  }
  out.messages = chat.messages;
  out.status = chat.status;
}
process.stdout.write(JSON.stringify(out));
