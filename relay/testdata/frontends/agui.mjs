// Runs @ag-ui/client's HttpAgent against the relay and prints what the
// library assembled, as one JSON object on stdout.
//
//   node agui.mjs '<JSON array of configs>'
//
// It runs each config in turn (one process for all of a test's cases) and
// prints a JSON array of their results, each with the warnings logged
// while it ran. config: {
//   url:       POST target of HttpAgent.runAgent() (the relay's /ag-ui),
//   threadId:  the AG-UI thread,
//   messages:  the agent's initial messages (the last user message is sent),
//   resume:    optional RunAgentParameters.resume,
//   answer:    optional; after a run that ended on an interrupt, a second
//              run answers every pending interrupt with this payload,
//   connectUrl: optional; after the run (finished, failed or cut), a second
//              agent with the same thread and the messages the first one
//              holds calls connectAgent(), whose connect() (relay/web's
//              withTaskReconnect) POSTs the same RunAgentInput to connectUrl
//              (the task events endpoint), in which "{task}" stands for the
//              task the run named.
// }
//
// Every console.warn / console.error of the libraries is captured
// (harness.mjs's captureWarnings; serve.mjs runs it for the Go tests'
// shared node process): the Go test fails on any, since the client only warns on material it had
// to strip or events it could not apply.
import { HttpAgent } from "@ag-ui/client";
import { withTaskReconnect } from "../../web/agui-reconnect.js";
import { main } from "./harness.mjs";

// The reconnect is the one relay/web ships: AG-UI's connectAgent() on an
// HttpAgent given the connect() that 1.0.0 leaves unimplemented.
const ConnectAgent = withTaskReconnect(HttpAgent);

function recorder(out) {
  return {
    onEvent({ event }) {
      out.events.push(event.type);
    },
    onCustomEvent({ event }) {
      if (event.name === "a2a.task") out.task = event.value.task;
    },
    onRunErrorEvent({ event }) {
      out.runError = { message: event.message, code: event.code };
    },
    onRunFinishedEvent(params) {
      out.finished = { outcome: params.outcome, result: params.event.result ?? null };
    },
  };
}

async function drive(agent, fn) {
  const out = { events: [], runError: null, finished: null, error: null, task: null };
  try {
    await fn(recorder(out));
  } catch (err) {
    out.error = String(err && err.message ? err.message : err);
  }
  out.messages = agent.messages;
  out.state = agent.state;
  out.pendingInterrupts = agent.pendingInterrupts;
  return out;
}

// runCase runs one config; warnings is where its warnings go.
export async function runCase(cfg, warnings) {
  const agent = new HttpAgent({ url: cfg.url, threadId: cfg.threadId, initialMessages: cfg.messages ?? [] });
  const result = { run: null, answer: null, connect: null, warnings: null };
  result.run = await drive(agent, (sub) =>
    agent.runAgent(cfg.resume ? { resume: cfg.resume } : undefined, sub),
  );
  // answer: after a run that ended on an interrupt, run again answering every
  // pending interrupt with this payload (RunAgentInput.resume).
  if (cfg.answer !== undefined && agent.pendingInterrupts.length > 0) {
    const resume = agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: cfg.answer }));
    result.answer = await drive(agent, (sub) => agent.runAgent({ resume }, sub));
  }
  if (cfg.connectUrl) {
    // "{task}" in connectUrl is the A2A task the run named (CUSTOM a2a.task).
    const again = new ConnectAgent({
      url: cfg.url,
      threadId: cfg.threadId,
      initialMessages: agent.messages,
      reconnectUrl: cfg.connectUrl,
      task: result.run.task,
    });
    result.connect = await drive(again, (sub) => again.connectAgent(undefined, sub));
  }
  result.warnings = warnings;
  return result;
}

await main(import.meta.url, runCase);
