// The node side of the Go differential test (relay/web/differential_test.go):
// one case per stdin line, {"task", "caps", "ops": [op JSON text, …]}; one
// answer per stdout line, {"results", "view": viewJSON(), "plain":
// JSON.stringify(view())}. One process serves every case.
import { createInterface } from "node:readline";
import { Receiver } from "../receiver.js";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") continue;
  const c = JSON.parse(line);
  const r = new Receiver(c.task, { caps: c.caps });
  const results = c.ops.map((op) => r.apply(op).result);
  process.stdout.write(JSON.stringify({ results, view: r.viewJSON(), plain: JSON.stringify(r.view()) }) + "\n");
}
