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
//                      (the page goes away); a second Chat — the reloaded
//                      page, holding only the user message — calls
//                      resumeStream() and, once it shows the tool part,
//                      GETs release (the test then lets the remote agent
//                      finish); out: its messages.
//           "after"  — a Chat sends the message and reads it to its end;
//                      a second Chat (the page opened again, holding only
//                      the user message) calls resumeStream(); out: both
//                      Chats' messages.
//           "agui-runs" — one HttpAgent (thread id, user message text)
//                      makes the runs cfg.runs in turn, each
//                      {runId, resume?, payload?}: resume "pending" answers
//                      every interrupt the last run left (the client's
//                      pendingInterrupts) with payload; {from: i} those
//                      run i left; a list of ids answers those; out: runs[] of {events, error,
//                      pending (the interrupts left)}, the messages.
//           "chat-turns" — one Chat (what useChat wraps) sends the user
//                      messages cfg.texts in turn, each read to its end;
//                      out: its messages, errors, status.
//           "agui-cuts" — one HttpAgent runs (runId "run-1") through a
//                      fetch that cuts the connection — a network error,
//                      which the agent sees as the stream's end — after
//                      cfg.cuts[0] events, GETs release
//                      (when set: the remote agent may finish meanwhile),
//                      then reconnects with connectAgent() — its connect()
//                      POSTs to cfg.runUrl + "/events" ("{thread}", "{run}"
//                      replaced) with Last-Event-ID, the id: of the last
//                      whole event it got — and is cut again after
//                      cfg.cuts[1] events, and so on, until a connection
//                      ends uncut. With cfg.abortAfter it instead calls
//                      abortRun() after that many events, whose explicit
//                      abort DELETEs cfg.runUrl. out: connections[] of
//                      {raw: [{id, data}] of the events the agent took in,
//                      types, error, cut}, the messages.
//   url, api, id, text, release: as above.
// }
//
// console.warn / console.error of the libraries are captured: the Go test
// fails on any.
import { HttpAgent } from "@ag-ui/client";
import { runReconnectAgent } from "./runreconnect.mjs";
import { DefaultChatTransport } from "ai";
import { Chat, main, readChat } from "./harness.mjs";

const toolParts = (m) => (m?.parts ?? []).filter((p) => p.type === "tool-ask_colleague");

// runCase runs one config and returns what the clients assembled;
// warnings is where the libraries' warnings while it ran go.
export async function runCase(cfg, warnings) {
  const out = { warnings };

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
    out.states = [];
    out.errors = [];
    let prev = "";
    const last = await readChat(cfg, out.errors, (m) => {
      const now = JSON.stringify(toolParts(m).map((p) => ({ id: p.toolCallId, state: p.state, preliminary: p.preliminary ?? false, output: p.output ?? null, errorText: p.errorText ?? null, toolMetadata: p.toolMetadata ?? null })));
      if (now !== prev) {
        out.states.push(JSON.parse(now));
        prev = now;
      }
    });
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
    const second = new Chat({ id: cfg.id, transport: new DefaultChatTransport({ api: cfg.api }), onError: (e) => out.errors.push("second: " + String(e.message ?? e)) }, [user]);
    // The reloaded page resumes while the turn still runs (the remote agent
    // waits at its gate); once the resumed message shows its tool part, the
    // remote agent may finish.
    const restored = new Promise((resolve) => {
      second.memory.onChange = (msgs) => {
        if (toolParts(msgs[msgs.length - 1]).length > 0) resolve();
      };
    });
    const resumed = second.resumeStream();
    await Promise.race([restored, resumed]);
    await fetch(cfg.release);
    await resumed;
    out.messages = second.messages;
    out.status = second.status;
  } else if (cfg.mode === "after") {
    // The page comes back after the turn ended: a Chat holding only the user
    // message resumes and should get the whole final message.
    out.errors = [];
    const user = { id: "u1", role: "user", parts: [{ type: "text", text: cfg.text }] };
    const first = new Chat({ id: cfg.id, transport: new DefaultChatTransport({ api: cfg.api }), onError: (e) => out.errors.push("first: " + String(e.message ?? e)) }, []);
    await first.sendMessage(user);
    const second = new Chat({ id: cfg.id, transport: new DefaultChatTransport({ api: cfg.api }), onError: (e) => out.errors.push("second: " + String(e.message ?? e)) }, [user]);
    await second.resumeStream();
    out.first = first.messages;
    out.messages = second.messages;
    out.status = second.status;
  }
  else if (cfg.mode === "agui-runs") {
    const agent = new HttpAgent({
      url: cfg.url,
      threadId: cfg.id,
      initialMessages: [{ id: "u1", role: "user", content: cfg.text }],
    });
    out.runs = [];
    for (const spec of cfg.runs) {
      const run = { events: [], error: null };
      const params = { runId: spec.runId };
      if (spec.resume === "pending") {
        params.resume = agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: spec.payload }));
      } else if (spec.resume && typeof spec.resume.from === "number") {
        params.resume = out.runs[spec.resume.from].pending.map((i) => ({ interruptId: i.id, status: "resolved", payload: spec.payload }));
      } else if (Array.isArray(spec.resume)) {
        params.resume = spec.resume.map((id) => ({ interruptId: id, status: "resolved", payload: spec.payload }));
      }
      try {
        await agent.runAgent(params, { onEvent: ({ event }) => void run.events.push(event) });
      } catch (err) {
        run.error = String(err && err.message ? err.message : err);
      }
      run.pending = structuredClone(agent.pendingInterrupts);
      out.runs.push(run);
    }
    out.messages = agent.messages;
  } else if (cfg.mode === "chat-turns") {
    out.errors = [];
    const chat = new Chat({ id: cfg.id, transport: new DefaultChatTransport({ api: cfg.api }), onError: (e) => out.errors.push(String(e.message ?? e)) }, []);
    let n = 0;
    for (const text of cfg.texts) {
      n++;
      await chat.sendMessage({ id: "u" + n, role: "user", parts: [{ type: "text", text }] });
    }
    out.messages = chat.messages;
    out.status = chat.status;
  }
  else if (cfg.mode === "agui-cuts") {
    const Agent = runReconnectAgent(HttpAgent);
    const agent = new Agent({
      url: cfg.url,
      runUrl: cfg.runUrl,
      threadId: cfg.id,
      initialMessages: [{ id: "u1", role: "user", content: cfg.text }],
    });
    const cuts = [...(cfg.cuts ?? [])];
    out.connections = [];
    for (let i = 0; ; i++) {
      const conn = { raw: [], types: [], error: null };
      out.connections.push(conn);
      agent.onRaw = (ev) => {
        conn.raw.push(ev);
        if (cfg.abortAfter && conn.raw.length === cfg.abortAfter) agent.abortRun();
      };
      agent.cutAfter = cuts.shift() ?? 0;
      const sub = { onEvent: ({ event }) => void conn.types.push(event.type) };
      try {
        if (i === 0) await agent.runAgent({ runId: "run-1" }, sub);
        else await agent.connectAgent({ runId: "run-1" }, sub);
      } catch (err) {
        conn.error = String(err && err.message ? err.message : err);
      }
      conn.cut = agent.wasCut;
      if (!agent.wasCut || cfg.abortAfter) break;
      if (i === 0 && cfg.release) await fetch(cfg.release);
    }
    if (cfg.abortAfter) await agent.aborted;
    out.messages = agent.messages;
  }
  return out;
}

await main(import.meta.url, runCase, true);
