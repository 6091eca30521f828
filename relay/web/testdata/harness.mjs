// The node side of the Go differential test (relay/web/differential_test.go):
// one case per stdin line, {"task", "caps", "ops": [op JSON text, …]}; one
// answer per stdout line: what apply said of each op, the exact JSON of
// each turn's view in turn order (the latest view alone when there is no
// turn), JSON.stringify of the latest view(), and the latest result's
// exact JSON. One process serves every case.
import { createInterface } from "node:readline";
import { Receiver } from "../receiver.js";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") continue;
  const c = JSON.parse(line);
  const r = new Receiver(c.task, { caps: c.caps });
  const effects = c.ops.map((op) => r.apply(op).effect);
  const turns = r.turns();
  const views = turns.length === 0 ? [r.viewJSON()] : turns.map((t) => r.turnViewJSON(t));
  process.stdout.write(JSON.stringify({ effects, views, plain: JSON.stringify(r.view()), result: r.resultJSON(),
    refused: r.refused() }) + "\n");
}
