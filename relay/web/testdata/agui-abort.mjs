// Drives agui-reconnect.js's withTaskReconnect with the real @ag-ui/client:
// a run is started, names its task, and is stopped with abortRun(); then
// connectAgent() must reach the task's events endpoint and apply what it
// answers. Prints one JSON object: the requests the server saw and what
// connectAgent() returned.
//
//   node agui-abort.mjs <path of @ag-ui/client's dist/index.mjs>
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { withTaskReconnect } from "../agui-reconnect.js";

const { HttpAgent } = await import(pathToFileURL(process.argv[2]).href);
const warnings = [];
for (const level of ["warn", "error"]) console[level] = (...a) => warnings.push(a.map(String).join(" "));

const sse = (res, events) => {
  res.writeHead(200, { "Content-Type": "text/event-stream" });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
};
const requests = [];
let named; // resolves once the run named its task
const namedP = new Promise((r) => (named = r));
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    requests.push(`${req.method} ${req.url}`);
    const input = JSON.parse(body || "{}");
    const ids = { threadId: input.threadId, runId: input.runId };
    if (req.url === "/run") {
      // A run that names its task and then goes on (never finishes).
      sse(res, [{ type: "RUN_STARTED", ...ids }, { type: "CUSTOM", name: "a2a.task", value: { task: "task-1" } }]);
      setTimeout(named, 50);
      return;
    }
    if (req.url === "/tasks/task-1/events?format=ag-ui") {
      sse(res, [
        { type: "RUN_STARTED", ...ids },
        { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "still working" },
        { type: "TEXT_MESSAGE_END", messageId: "m1" },
        { type: "RUN_FINISHED", ...ids },
      ]);
      res.end();
      return;
    }
    res.writeHead(404).end();
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const Agent = withTaskReconnect(HttpAgent);
const agent = new Agent({ url: base + "/run", threadId: "thread-1", reconnectUrl: base + "/tasks/{task}/events?format=ag-ui" });
const run = agent.runAgent().then(() => "resolved", (e) => "rejected: " + (e && e.message));
await namedP;
agent.abortRun();
const runEnd = await run;
let connect;
try {
  const got = await agent.connectAgent();
  connect = { newMessages: got.newMessages.map((m) => ({ id: m.id, role: m.role, content: m.content })) };
} catch (e) {
  connect = { error: String(e && e.message) };
}
server.closeAllConnections();
server.close();
process.stdout.write(JSON.stringify({ task: agent.task, runEnd, requests, connect, warnings }));
