// Reconnecting @ag-ui/client's HttpAgent to an orchestrator's own run
// (PROTOCOL.md §9.4; Go: frontend.AGUILog, examples/orchestrator).
//
// Each event of such a run carries an SSE id:, a cursor, which HttpAgent's
// parser ignores: the agent's fetch is wrapped to read the ids, and the
// cursor is the id of the last event the agent took in (its onEvent) — not
// the last one received: on a network error @ag-ui/client drops the events
// it had received but not yet applied, and those must come again.
// connectAgent() — whose connect() @ag-ui/client 1.0.0 leaves unimplemented
// — POSTs the RunAgentInput to runUrl + "/events" with that cursor as
// Last-Event-ID, and gets the rest of the run. abortRun() is the user's
// explicit abort: besides dropping the connection it DELETEs runUrl, so that
// the orchestrator stops the remote work (a dropped connection alone does
// not).
//
// The wrapped fetch passes whole events only. A network error while the run
// streams ends the stream cleanly rather than as an error — @ag-ui/client
// drops the events it received but had not yet applied when a stream fails
// — and sets wasCut: the caller reconnects. For the tests, it also cuts a
// connection after cutAfter events received, and each event the agent
// takes in goes to onRaw as it came ({id, data}).
//
//   const Agent = runReconnectAgent(HttpAgent);
//   const agent = new Agent({ url: "/ag-ui", threadId,
//     runUrl: "/ag-ui/threads/{thread}/runs/{run}" });
//   await agent.runAgent({ runId });
//   while (agent.wasCut) await agent.connectAgent({ runId });

/** @param {any} HttpAgent @ag-ui/client's HttpAgent */
export function runReconnectAgent(HttpAgent) {
  return class RunReconnectAgent extends HttpAgent {
    constructor(config) {
      super(config);
      this.runUrl = config.runUrl;
      /** The id: of the last event taken in (the cursor). */
      this.cursor = null;
      this.cutAfter = 0;
      this.wasCut = false;
      this.onRaw = null;
      this.aborted = Promise.resolve();
      // The events received and not yet taken in, in order ({id, data};
      // id null for an event without one).
      this.received = [];
      this.subscribe({
        onEvent: () => {
          const ev = this.received.shift();
          if (ev?.id) this.cursor = ev.id;
          if (ev) this.onRaw?.(ev);
        },
      });
      const base = this.fetch;
      this.fetch = (url, init) => this.tracked(base, url, init);
    }

    runFor(input) {
      return this.runUrl.replaceAll("{thread}", encodeURIComponent(input.threadId)).replaceAll("{run}", encodeURIComponent(input.runId));
    }

    runAgent(parameters, subscriber) {
      this.cursor = null;
      this.lastInput = { threadId: this.threadId, runId: parameters?.runId };
      return super.runAgent(parameters, subscriber);
    }

    connectAgent(parameters, subscriber) {
      // HttpAgent's fetch takes this.abortController's signal, and only
      // runAgent() makes a new one.
      this.abortController = parameters?.abortController ?? new AbortController();
      return super.connectAgent(parameters, subscriber);
    }

    connect(input) {
      const via = Object.create(this);
      via.url = this.runFor(input) + "/events";
      via.headers = { ...this.headers, ...(this.cursor ? { "Last-Event-ID": this.cursor } : {}) };
      return via.run(input);
    }

    abortRun() {
      if (this.lastInput?.runId) {
        this.aborted = fetch(this.runFor(this.lastInput), { method: "DELETE" }).then(() => {}, () => {});
      }
      super.abortRun();
    }

    async tracked(base, url, init) {
      this.wasCut = false;
      const res = await base(url, init);
      if (!res.ok || !res.body) return res;
      const received = (this.received = []);
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      const enc = new TextEncoder();
      let text = "";
      let seen = 0;
      let cutAfter = this.cutAfter;
      this.cutAfter = 0;
      const body = new ReadableStream({
        pull: async (ctl) => {
          let chunk;
          try {
            chunk = await reader.read();
          } catch {
            // A network error: the stream ends cleanly instead, so that
            // the client applies every event it received (on an error
            // @ag-ui/client drops those it had not applied yet), and the
            // caller reconnects.
            this.wasCut = true;
            ctl.close();
            return;
          }
          if (chunk.done) {
            ctl.close();
            return;
          }
          text += dec.decode(chunk.value, { stream: true });
          let i;
          while ((i = text.indexOf("\n\n")) >= 0) {
            const block = text.slice(0, i);
            text = text.slice(i + 2);
            let id = null;
            let data = null;
            for (const line of block.split("\n")) {
              if (line.startsWith("id: ")) id = line.slice(4);
              if (line.startsWith("data: ")) data = line.slice(6);
            }
            ctl.enqueue(enc.encode(block + "\n\n"));
            if (data === null) continue;
            received.push({ id, data });
            if (++seen === cutAfter) {
              // The test's cut (what a part of the next event came with
              // is held here, never passed on).
              this.wasCut = true;
              await reader.cancel();
              ctl.close();
              return;
            }
          }
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
  };
}
