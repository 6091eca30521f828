// Runs the configs of the Go tests of a package in one node process, so
// that a test run starts node with the client libraries once, not once
// per case (about a second of CPU each).
//
//   node serve.mjs
//
// Each line of stdin is {"id", "script", "cfg"}: script is one of this
// directory's scripts (agui.mjs, aisdk.mjs, aisdk-chunks.mjs, nested.mjs),
// cfg one config of it, as its own command line takes. The configs run at
// once, as the tests that send them do; each, as it ends, prints one line,
// {"id", "out"}: what the script prints for that config, with the warnings
// logged while it ran — those of the calls it made (AsyncLocalStorage
// follows them), and those that belong to no run (an unhandled rejection)
// to every run then in flight. A script that throws answers
// {"id", "out": {"crash"}}. The process ends when stdin does.
import { AsyncLocalStorage } from "node:async_hooks";
import { createInterface } from "node:readline";
import { captureWarnings, withWarnings } from "./harness.mjs";

const scripts = new Set(["agui.mjs", "aisdk.mjs", "aisdk-chunks.mjs", "nested.mjs"]);
const als = new AsyncLocalStorage();
const inFlight = new Set();
captureWarnings((w) => {
  const own = als.getStore();
  for (const ws of own ? [own] : inFlight) ws.push(w);
});

async function run(script, cfg, warnings) {
  if (!scripts.has(script)) throw new Error(`no script ${JSON.stringify(script)}`);
  const { runCase } = await import("./" + script);
  return withWarnings(await runCase(cfg, warnings), warnings);
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "") continue;
  const { id, script, cfg } = JSON.parse(line);
  const warnings = [];
  inFlight.add(warnings);
  als
    .run(warnings, () => run(script, cfg, warnings))
    .catch((err) => ({ warnings, crash: `${script}: ${String(err && err.stack ? err.stack : err)}` }))
    .then((out) => {
      inFlight.delete(warnings);
      process.stdout.write(JSON.stringify({ id, out }) + "\n");
    });
}
