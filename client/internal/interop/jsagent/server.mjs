// An independent A2A 1.0 callee, written with the A2A JS SDK, that plays
// scripted progress trajectories for the interop test of
// github.com/tfrs/a2a-progress (client/internal/interop).
//
// The envelopes are written here by hand with JSON.stringify, not by our Go
// envelope package: the point is a second, independent producer of the wire
// format of SPEC §2–3.
//
// Usage: node server.mjs [port]   (or PORT=…; 0 or nothing = any free port)
//
// The server listens on 127.0.0.1 and prints exactly one line on stdout,
// "port <n>", once it accepts connections; everything else goes to stderr.
// It exits when its stdin reaches EOF (the Go test holds the other end, so a
// crashed test never leaves a server behind) and on SIGINT/SIGTERM.
//
// The user message text selects the scenario (see SCENARIOS below).

import http from 'node:http';
import express from 'express';

import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import {
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  UserBuilder,
} from '@a2a-js/sdk/server/express';

// --- Envelopes, by hand -----------------------------------------------------

// env writes one envelope of schema v1 as the JSON string the spec puts
// under metadata.tfrs. streamKey is left out for the default stream.
function env(seq, kind, payload, { streamKey, status = 'running' } = {}) {
  const e = { v: 1, kind };
  if (streamKey !== undefined) e.streamKey = streamKey;
  e.seq = seq;
  e.status = status;
  e.payload = payload;
  return JSON.stringify(e);
}

// The trajectory every well-formed scenario is cut from: seqs 1..9, two
// tool calls on their own stream keys, the rest on the default stream.
const BASE = {
  1: { text: 'thinking…', tfrs: env(1, 'thinking', { text: 'look up the order, then the stock' }) },
  2: {
    text: 'calling lookup_order',
    tfrs: env(2, 'tool_call', { tool: 'lookup_order', tool_call_id: 'call-1' }, { streamKey: 'call-1' }),
  },
  3: {
    text: 'lookup_order: output',
    tfrs: env(3, 'tool_output_append', { tool: 'lookup_order', chunk: 'order 42: 3 items\n', tool_call_id: 'call-1' }, { streamKey: 'call-1' }),
  },
  4: {
    text: 'lookup_order: output',
    tfrs: env(4, 'tool_output_append', { tool: 'lookup_order', chunk: 'carrier: DHL\n', tool_call_id: 'call-1' }, { streamKey: 'call-1' }),
  },
  5: {
    text: 'lookup_order: output',
    tfrs: env(5, 'tool_output_append', { tool: 'lookup_order', chunk: 'status: shipped\n', tool_call_id: 'call-1' }, { streamKey: 'call-1' }),
  },
  6: {
    text: 'lookup_order finished',
    tfrs: env(6, 'tool_call', { tool: 'lookup_order', tool_call_id: 'call-1' }, { streamKey: 'call-1', status: 'done' }),
  },
  7: { text: 'calling check_stock', tfrs: env(7, 'tool_call', { tool: 'check_stock' }, { streamKey: 'call-2' }) },
  8: {
    text: 'check_stock failed',
    tfrs: env(8, 'error', { message: 'stock service timed out' }, { streamKey: 'call-2', status: 'aborted' }),
  },
  9: { text: 'writing the answer', tfrs: env(9, 'text', { text: 'writing the answer' }) },
};

const base = (...seqs) => seqs.map((s) => BASE[s]);

// A scenario is a list of working updates — { text, tfrs?, id? }: tfrs is
// put as is into the part's metadata (a string normally, anything for the
// broken cases); id fixes the messageId (a replayed update keeps its id) —
// then the final state and its reply.
const SCENARIOS = {
  inorder: {
    updates: base(1, 2, 3, 4, 5, 6, 7, 8, 9),
    final: TaskState.TASK_STATE_COMPLETED,
    reply: 'Order 42 has shipped.',
  },
  // Arrival order is not seq order, and seq 4 never comes (the callee's
  // bounded queue dropped it): a gap inside call-1's output.
  shuffled: {
    updates: base(2, 1, 5, 3, 7, 6, 9, 8),
    final: TaskState.TASK_STATE_COMPLETED,
    reply: 'Order 42 has shipped.',
  },
  // Replays: the same (streamKey, seq) twice with the same content, one with
  // different content (a conflict, first one wins), and a plain-text update
  // replayed with its messageId.
  duplicated: {
    updates: [
      ...base(1, 2, 2, 3, 4, 3, 5, 6),
      { id: 'duplicated-plain', text: 'checking the stock' },
      ...base(7),
      { id: 'duplicated-plain', text: 'checking the stock' },
      {
        text: 'lookup_order: output',
        tfrs: env(5, 'tool_output_append', { tool: 'lookup_order', chunk: 'status: lost\n', tool_call_id: 'call-1' }, { streamKey: 'call-1' }),
      },
      ...base(8, 9, 9),
    ],
    final: TaskState.TASK_STATE_COMPLETED,
    reply: 'Order 42 has shipped.',
  },
  // Every way an update can fail to carry a usable envelope, between valid
  // ones; each must degrade to its text.
  broken: {
    updates: [
      { id: 'broken-plain', text: 'starting (plain text, no metadata)' },
      { text: 'thinking…', tfrs: env(1, 'thinking', { text: 'reading the request' }) },
      { text: 'fallback: bad json', tfrs: '{"v":1,"kind":"text","seq":2,' },
      { text: 'fallback: v2', tfrs: JSON.stringify({ v: 2, kind: 'text', seq: 2, status: 'running', payload: { text: 'from the future' } }) },
      { text: 'fallback: unknown kind', tfrs: JSON.stringify({ v: 1, kind: 'progress_bar', seq: 3, status: 'running', payload: { percent: 50 } }) },
      { text: 'fallback: no seq', tfrs: JSON.stringify({ v: 1, kind: 'text', status: 'running', payload: { text: 'where am I' } }) },
      { text: 'fallback: number', tfrs: 42 },
      // Tolerated (SPEC §2): the envelope as a nested object, not a string.
      { text: 'object form', tfrs: { v: 1, kind: 'text', seq: 4, status: 'running', payload: { text: 'object form' } } },
      { text: 'still here', tfrs: env(5, 'text', { text: 'still here' }) },
    ],
    final: TaskState.TASK_STATE_COMPLETED,
    reply: 'Survived the broken envelopes.',
  },
  // The tool's error envelope is progress; the verdict is the failed state.
  failed: {
    updates: [
      { text: 'calling deploy', tfrs: env(10, 'tool_call', { tool: 'deploy', tool_call_id: 'call-9' }, { streamKey: 'call-9' }) },
      {
        text: 'deploy: output',
        tfrs: env(11, 'tool_output_append', { tool: 'deploy', chunk: 'step 1/3 ok\n', tool_call_id: 'call-9' }, { streamKey: 'call-9' }),
      },
      {
        text: 'deploy failed',
        tfrs: env(12, 'error', { message: 'permission denied' }, { streamKey: 'call-9', status: 'aborted' }),
      },
    ],
    final: TaskState.TASK_STATE_FAILED,
    reply: 'deploy failed: permission denied',
  },
};

// --- Executor ---------------------------------------------------------------

function textPart(text, metadata) {
  return { content: { $case: 'text', value: text }, metadata, filename: '', mediaType: 'text/plain' };
}

function agentMessage(ctx, id, parts) {
  return {
    messageId: id,
    contextId: ctx.contextId,
    taskId: ctx.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function status(ctx, state, message) {
  return AgentEvent.statusUpdate({
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    status: { state, message, timestamp: new Date().toISOString() },
    metadata: undefined,
  });
}

const executor = {
  async execute(ctx, bus) {
    const query = ctx.userMessage.parts
      .filter((p) => p.content?.$case === 'text')
      .map((p) => p.content.value)
      .join('')
      .trim();
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        })
      );
    }
    const sc = SCENARIOS[query];
    if (!sc) {
      const msg = agentMessage(ctx, 'unknown-reply', [textPart(`unknown scenario ${JSON.stringify(query)}`)]);
      bus.publish(status(ctx, TaskState.TASK_STATE_REJECTED, msg));
      return;
    }
    // Message ids are fixed per scenario, so that the identity of a text
    // fallback ("msg:<messageId>") is the same on every run and transport.
    sc.updates.forEach((u, i) => {
      const metadata = 'tfrs' in u ? { tfrs: u.tfrs } : undefined;
      const msg = agentMessage(ctx, u.id ?? `${query}-u${i + 1}`, [textPart(u.text, metadata)]);
      bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, msg));
    });
    const reply = agentMessage(ctx, `${query}-reply`, [textPart(sc.reply)]);
    bus.publish(status(ctx, sc.final, reply));
  },
  async cancelTask() {},
};

// --- Server -----------------------------------------------------------------

const arg = process.argv[2] ?? process.env.PORT ?? '0';
const port = Number(arg);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`jsagent: bad port ${JSON.stringify(arg)}`);
  process.exit(2);
}

const app = express();
const server = http.createServer(app);

server.listen(port, '127.0.0.1', () => {
  const { port: bound } = server.address();
  const baseUrl = `http://127.0.0.1:${bound}`;
  const card = {
    name: 'tfrs interop agent (A2A JS SDK)',
    description: 'Plays scripted progress trajectories with tfrs envelopes in working status updates.',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      // The SDK's v0.3 compatibility layer (legacyCompat below), same URLs.
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '0.3' },
    ],
    provider: { organization: 'tfrs', url: 'https://github.com/tfrs/a2a-progress' },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'trajectories',
        name: 'Scripted trajectories',
        description: 'Send a scenario name: ' + Object.keys(SCENARIOS).join(', ') + '.',
        tags: ['test'],
        examples: Object.keys(SCENARIOS),
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  const legacyCompat = { enabled: true };
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  process.stdout.write(`port ${bound}\n`);
  console.error(`jsagent: card at ${baseUrl}/${AGENT_CARD_PATH}`);
});

server.on('error', (err) => {
  console.error(`jsagent: ${err.message}`);
  process.exit(1);
});

function shutdown() {
  server.close();
  server.closeAllConnections();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
if (!process.stdin.isTTY) {
  process.stdin.on('end', shutdown);
  process.stdin.resume();
}
