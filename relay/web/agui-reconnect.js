// Reconnecting an AG-UI client to a run the relay still serves.
//
// AG-UI's way to attach to a run in progress is AbstractAgent.connectAgent(),
// which subscribes to the agent's connect(input). @ag-ui/client 1.0.0's
// HttpAgent does not implement connect(): the base class throws
// AGUIConnectNotImplementedError, which connectAgent() swallows — it resolves
// having done nothing. withTaskReconnect adds the missing connect(): it POSTs
// the RunAgentInput the client would send for a run to the relay's task events
// endpoint, POST /tasks/{task}/events?format=ag-ui, which answers with a
// MESSAGES_SNAPSHOT that restates the input's messages and the turn so far,
// then the rest of the run (PROTOCOL.md §9.1).
//
// The class takes HttpAgent as an argument, so this file has no dependency of
// its own: it works with the @ag-ui/client the application already bundles.
//
//   import { HttpAgent } from "@ag-ui/client";
//   import { withTaskReconnect } from "@tfrs/a2a-progress-receiver/agui-reconnect";
//   const Agent = withTaskReconnect(HttpAgent);
//   const agent = new Agent({ url: "/ag-ui", threadId,
//     reconnectUrl: "/tasks/{task}/events?format=ag-ui" });
//   try { await agent.runAgent(); } catch { await agent.connectAgent(); } // after a cut
//   agent.abortRun(); await agent.connectAgent(); // or after the user stopped it
//
// The task is the one the run named in its CUSTOM "a2a.task" event (the agent
// remembers it), or config.task.

/**
 * @template {new (config: any) => any} B
 * @param {B} HttpAgent @ag-ui/client's HttpAgent (or a subclass of it)
 */
export function withTaskReconnect(HttpAgent) {
  return class TaskReconnectAgent extends HttpAgent {
    constructor(config) {
      super(config);
      /** The events endpoint; "{task}" stands for the task. */
      this.reconnectUrl = config.reconnectUrl;
      /** The A2A task of the thread's run, once known. */
      this.task = config.task ?? null;
      this.subscribe({
        onCustomEvent: ({ event }) => {
          if (event.name === "a2a.task" && event.value && typeof event.value.task === "string") {
            this.task = event.value.task;
          }
        },
      });
    }

    /**
     * connectAgent() with an abort controller of its own: HttpAgent's fetch
     * takes this.abortController's signal, and only runAgent() makes a new
     * one — after abortRun() the old, aborted one would end the reconnect
     * before it starts (connectAgent() resolves having added nothing).
     */
    connectAgent(parameters, subscriber) {
      this.abortController = parameters?.abortController ?? new AbortController();
      return super.connectAgent(parameters, subscriber);
    }

    /** What connectAgent() subscribes to: the run, from the relay's events endpoint. */
    connect(input) {
      if (!this.reconnectUrl || !this.task) {
        throw new Error("withTaskReconnect: no task to reconnect to (no run named one, and no config.task)");
      }
      // run() POSTs to this.url: run it on a view of this agent whose url is
      // the task's events endpoint (headers, fetch and abort signal are this
      // agent's).
      const via = Object.create(this);
      via.url = this.reconnectUrl.replaceAll("{task}", encodeURIComponent(this.task));
      return via.run(input);
    }
  };
}
