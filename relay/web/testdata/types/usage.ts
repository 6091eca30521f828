// Every export of the npm package's two modules, used as their .d.ts files
// declare it. TestTypes (types_test.go) type-checks this file with
// tsc --strict against the .d.ts files, then runs what tsc emits against
// the .js modules: a declaration the module does not honour (an export
// missing or extra, a member renamed, a value of another shape) fails one
// or the other.
import * as rx from "../../receiver.js";
import {
  answer, DEFAULT_CAPS, Effects, gapMarker, MAX_DEPTH, MAX_IDENT_BYTES, MAX_RECEIVER_TURNS, Receiver,
  type Applied, type Block, type Caps, type Counters, type Effect, type Kind, type Payload, type Result,
  type Source, type Status, type ToolCall, type ToolStatus, type Verdict, type View,
} from "../../receiver.js";
import * as reconnect from "../../agui-reconnect.js";
import { withTaskReconnect, type TaskReconnect, type TaskReconnectConfig } from "../../agui-reconnect.js";

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error("the module disagrees with its .d.ts: " + what);
}

// The value exports, exactly: tsc refuses a name the .d.ts lacks or one it
// is missing; the module must have these and no others.
const values: Record<keyof typeof rx, true> = {
  answer: true, DEFAULT_CAPS: true, Effects: true, gapMarker: true, MAX_DEPTH: true, MAX_IDENT_BYTES: true,
  MAX_RECEIVER_TURNS: true, Receiver: true,
};
const reconnectValues: Record<keyof typeof reconnect, true> = { withTaskReconnect: true };
const same = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
check(same(Object.keys(rx), Object.keys(values)), "receiver.js exports " + Object.keys(rx).join(", "));
check(same(Object.keys(reconnect), Object.keys(reconnectValues)), "agui-reconnect.js exports " + Object.keys(reconnect).join(", "));

const maxIdent: 1024 = MAX_IDENT_BYTES;
const maxDepth: 8 = MAX_DEPTH;
const maxTurns: 16 = MAX_RECEIVER_TURNS;
check(maxIdent === 1024 && maxDepth === 8 && maxTurns === 16, "the constants");
const caps: Required<Caps> = { ...DEFAULT_CAPS };
check(Object.values(caps).every((n) => typeof n === "number") && Object.keys(caps).length === 4, "DEFAULT_CAPS");
const marker: string = gapMarker(2) + gapMarker(3n);
check(marker === "[gap: 2 seqs missing]\n[gap: 3 seqs missing]\n", "gapMarker");

const effects: Effect[] = Object.values(Effects);
check(same(effects, ["applied", "duplicate", "conflict", "dropped_sealed", "dropped_cap", "invalid"]), "Effects");

const r = new Receiver("t1", { caps: { maxBlocks: 100 } });
const applied: Applied = r.apply('{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":9007199254740993,"id":"",' +
  '"kind":"tool_call","status":"running","payload":{"tool":"grep","tool_call_id":"c1"},"source":"envelope"}');
check(applied.effect === Effects.applied && applied.late === false, "apply: " + JSON.stringify(applied));
const bad: Applied = r.apply({ type: "seal", task: "t1", turn: "m1", SEQ: 1 });
check(bad.effect === "invalid", "apply of an op with an unknown key");
r.apply({ type: "block", task: "t1", turn: "m1", streamKey: "c1", seq: 7, id: "", kind: "tool_output_append",
  status: "done", payload: { tool: "grep", chunk: "out\n" }, source: "envelope" });

const view: View = r.view();
check(view.task === "t1" && view.turn === "m1" && view.sealed === false, "view");
check(Array.isArray(view.blocks) && Array.isArray(view.toolCalls), "view lists");
const block: Block = view.blocks[0];
const kind: Kind = block.kind;
const status: Status = block.status;
const source: Source = block.source;
const payload: Payload = block.payload;
check(typeof block.seq === "number" && kind === "tool_call" && status === "running" && source === "envelope" &&
  "tool" in payload && payload.tool === "grep", "block " + JSON.stringify(block));
const call: ToolCall = view.toolCalls[0];
const toolStatus: ToolStatus = call.status;
check(call.key === "c1" && call.output === "out\n" && toolStatus === "done" && call.started === true &&
  typeof call.firstSeq === "number" && typeof call.chunks === "number" && typeof call.bytes === "number",
  "tool call " + JSON.stringify(call));
const counters: Counters = view.counters;
check(counters.applied === 2 && counters.invalid === 1 && typeof counters.gaps === "number", "counters " + JSON.stringify(counters));
check(r.viewJSON().includes('"seq":9007199254740993,'), "viewJSON is exact");
const turnView: View | null = r.turnView("m1");
const none: View | null = r.turnView("nope");
const turnJSON: string | null = r.turnViewJSON("m1");
check(turnView !== null && none === null && turnJSON === r.viewJSON(), "turnView");
const turns: string[] = r.turns();
check(same(turns, ["m1"]), "turns");

check(r.result() === null && r.resultJSON() === "null", "result before the result op");
r.apply({ type: "result", task: "t1", turn: "m1", state: "TASK_STATE_COMPLETED", verdict: "completed",
  artifacts: [{ id: "a", text: "the answer" }], counters: { applied: 2, duplicates: 0, conflicts: 0, late: 0, gaps: 0,
    droppedAfterSeal: 0, droppedByCap: 0 } });
const result: Result | null = r.result("m1");
check(result !== null, "result");
if (result !== null) {
  const verdict: Verdict = result.verdict;
  check(verdict === "completed" && result.artifacts?.[0].text === "the answer" && result.counters.applied === 2,
    "result " + JSON.stringify(result));
  check(answer(result) === "the answer" && answer(null) === "", "answer");
}
check(r.resultJSON("m1").startsWith('{"state":"TASK_STATE_COMPLETED"'), "resultJSON");
const refused: number = r.refused();
check(refused === 0, "refused");

// withTaskReconnect over a stand-in for @ag-ui/client's HttpAgent.
class StandIn {
  url: string;
  subscribed = 0;
  constructor(config: { url: string }) {
    this.url = config.url;
  }
  subscribe(_: object): void {
    this.subscribed++;
  }
}
const Agent = withTaskReconnect(StandIn);
const config: { url: string } & TaskReconnectConfig = { url: "/ag-ui", reconnectUrl: "/tasks/{task}/events", task: "t1" };
const agent: StandIn & TaskReconnect = new Agent(config);
check(agent.url === "/ag-ui" && agent.reconnectUrl === "/tasks/{task}/events" && agent.task === "t1" &&
  agent.subscribed === 1, "withTaskReconnect");
