// Runs the Vercel AI SDK's own UI-message-stream readers against the relay
// and prints what they assembled, as one JSON object on stdout.
//
//   node aisdk.mjs '<JSON array of configs>'
//
// It runs each config in turn (one process for all of a test's cases) and
// prints a JSON array of their results, each with the warnings logged
// while it ran. config: {
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
import { DefaultChatTransport } from "ai";
import { Chat, main, readChat } from "./harness.mjs";

// runCase runs one config; warnings is where its warnings go.
export async function runCase(cfg, warnings) {
  const out = { messages: null, status: null, errors: [], finishes: [], resumed: null, warnings: null };

  if (cfg.mode === "read") {
    const last = await readChat(cfg, out.errors);
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
  out.warnings = warnings;
  return out;
}

await main(import.meta.url, runCase);
