/** Config of an agent made by withTaskReconnect: HttpAgent's, plus where and what to reconnect to. */
export interface TaskReconnectConfig {
  /** The relay's task events endpoint in the AG-UI format; "{task}" stands for the task, e.g. "/tasks/{task}/events?format=ag-ui". */
  reconnectUrl: string;
  /** The A2A task to reconnect to, when no run of this agent named one yet. */
  task?: string;
}

/** The members withTaskReconnect adds. */
export interface TaskReconnect {
  reconnectUrl: string;
  /** The A2A task of the thread's run (from its CUSTOM "a2a.task" event), or null. */
  task: string | null;
}

/**
 * Returns a subclass of HttpAgent whose connect() — what AG-UI's connectAgent() calls, and
 * which @ag-ui/client 1.0.0's HttpAgent leaves unimplemented — reconnects through the relay's
 * task events endpoint. Its connectAgent() makes a fresh AbortController (or takes
 * parameters.abortController), so that it reconnects after abortRun() too.
 */
export declare function withTaskReconnect<C extends object, A extends object>(
  HttpAgent: new (config: C) => A,
): new (config: C & TaskReconnectConfig) => A & TaskReconnect;
