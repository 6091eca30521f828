// What the node scripts of this harness share: the capture of the
// libraries' warnings, and a Chat (what useChat wraps) without React.
import { pathToFileURL } from "node:url";
import { AbstractChat, DefaultChatTransport, readUIMessageStream } from "ai";

// captureWarnings collects every console.warn / console.error of the
// libraries (the Go tests fail on any) and the errors nobody awaited (a
// connection the test cuts makes undici fail a read; reported, not fatal,
// so a script can go on to reconnect). sink, when given, gets each
// warning instead of the array returned.
export function captureWarnings(sink) {
  const warnings = [];
  const add = sink ?? ((w) => warnings.push(w));
  process.on("uncaughtException", (err) => add("uncaught: " + String(err && err.message ? err.message : err)));
  process.on("unhandledRejection", (err) => add("unhandled: " + String(err && err.message ? err.message : err)));
  for (const level of ["warn", "error"]) {
    console[level] = (...args) =>
      add(args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  }
  return warnings;
}

// MemoryState is the ChatState that @ai-sdk/react keeps in React state,
// without React; onChange, when set, sees each change of the messages.
export class MemoryState {
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

// Chat is useChat's chat over a MemoryState holding messages.
export class Chat extends AbstractChat {
  constructor(init, messages = []) {
    const state = new MemoryState(messages);
    super({ ...init, state });
    this.memory = state;
  }
}

// main runs a script's runCase from the command line when the script is
// the one node was started with (not when serve.mjs imports it): each
// config of the JSON array in argv[2] in turn, printing a JSON array of
// their results — or, with single, one config object and one result.
export async function main(scriptURL, runCase, single = false) {
  if (!process.argv[1] || pathToFileURL(process.argv[1]).href !== scriptURL) return;
  const warnings = captureWarnings();
  const arg = JSON.parse(process.argv[2]);
  const results = [];
  for (const cfg of single ? [arg] : arg) {
    const from = warnings.length;
    results.push(withWarnings(await runCase(cfg, []), warnings.slice(from)));
  }
  process.stdout.write(JSON.stringify(single ? results[0] : results));
}

// withWarnings puts a run's warnings into its result — or, for a script
// whose results have no warnings (aisdk-chunks.mjs), on stderr, where the
// Go test's failure shows them.
export function withWarnings(out, warnings) {
  if (out && typeof out === "object" && "warnings" in out) out.warnings = warnings;
  else if (warnings.length > 0) process.stderr.write(warnings.join("\n") + "\n");
  return out;
}

// readChat sends cfg.text as chat cfg.id's user message to cfg.api with
// DefaultChatTransport.sendMessages() and reads the response with
// readUIMessageStream(), calling onMessage with each message it yields;
// errors collects the stream's and the request's. It returns the last
// message (null if none).
export async function readChat(cfg, errors, onMessage = () => {}) {
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
    for await (const m of readUIMessageStream({ stream, onError: (e) => errors.push(String(e.message ?? e)) })) {
      last = m;
      onMessage(m);
    }
  } catch (err) {
    errors.push(String(err.message ?? err));
  }
  return last;
}
