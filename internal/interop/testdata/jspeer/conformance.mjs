// An A2A agent that exercises the whole task lifecycle, served with the
// official JavaScript SDK (@a2a-js/sdk) on every binding at once, for
// proctor's conformance suite (package conformance) to check.
//
//   node conformance.mjs [--protocol 1.0|0.3|both] [--port 0] [--host 127.0.0.1]
//
// JSON-RPC is mounted at /a2a/jsonrpc and HTTP+JSON (REST) at /a2a/rest of
// one HTTP server, gRPC listens on a second port; the card at
// /.well-known/agent-card.json lists the three interfaces at each protocol
// version asked for (protocol 0.3 goes through the SDK's compat layer,
// which serves 0.3 beside 1.0 on the same URLs). Once everything listens,
// one line goes to stdout:
//
//   READY http://127.0.0.1:43211
//
// It exits on SIGTERM, SIGINT and when its stdin closes.
//
// The agent follows agenttest's lifecycle agent (internal/agenttest):
//
//   a message containing "work slowly" -> a task that reports working every
//                                         50 ms for 20 s, until canceled
//   a message containing "ask me"      -> a task in input-required; the next
//                                         message on it completes it
//   anything else                      -> a task: working (with a message),
//                                         an artifact echoing the text 50 ms
//                                         later, then completed

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import express from 'express';
import { Server, ServerCredentials } from '@grpc/grpc-js';

import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';

function usage(msg) {
  process.stderr.write(`jspeer conformance: ${msg}\nusage: node conformance.mjs [--protocol 1.0|0.3|both] [--port 0] [--host 127.0.0.1]\n`);
  process.exit(2);
}

let flags;
try {
  flags = parseArgs({
    options: {
      protocol: { type: 'string', default: 'both' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
    strict: true,
  }).values;
} catch (err) {
  usage(err.message);
}
const versions = { '1.0': ['1.0'], '0.3': ['0.3'], both: ['1.0', '0.3'] }[flags.protocol];
if (!versions) usage(`unknown --protocol ${JSON.stringify(flags.protocol)}`);
const port = Number(flags.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad --port ${JSON.stringify(flags.port)}`);
const host = flags.host;
const legacyCompat = { enabled: versions.includes('0.3') };

const SLOW = 'work slowly';
const ASK = 'ask me';
const TICK_MS = 50;
const SLOW_FOR_MS = 20_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function incomingText(message) {
  return (message?.parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('');
}

function agentMessage(taskId, contextId, text) {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

// running maps the id of a slow task to its state, so that cancelTask can
// stop it.
const running = new Map();

class LifecycleExecutor {
  async execute(requestContext, bus) {
    const { taskId, contextId } = requestContext;
    const text = incomingText(requestContext.userMessage);
    const status = (state, say) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, message: say ? agentMessage(taskId, contextId, say) : undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      });
    if (requestContext.task) {
      // The answer to a question: the task first, as the SDK requires.
      bus.publish(AgentEvent.task(requestContext.task));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, `Thanks, noted: ${text}`));
      bus.finished();
      return;
    }
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [requestContext.userMessage],
        metadata: undefined,
      })
    );
    if (text.includes(ASK)) {
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which one do you mean?'));
      bus.finished();
      return;
    }
    if (text.includes(SLOW)) {
      const run = { stopped: false, contextId };
      running.set(taskId, run);
      bus.publish(status(TaskState.TASK_STATE_WORKING));
      const end = Date.now() + SLOW_FOR_MS;
      while (!run.stopped && Date.now() < end) {
        await sleep(TICK_MS);
        if (!run.stopped) bus.publish(status(TaskState.TASK_STATE_WORKING));
      }
      running.delete(taskId);
      if (!run.stopped) bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      bus.finished();
      return;
    }
    bus.publish(status(TaskState.TASK_STATE_WORKING, 'Working on it.'));
    await sleep(TICK_MS);
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: randomUUID(), name: 'echo', description: '', parts: [textPart(`You said: ${text}`)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      })
    );
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, 'Done.'));
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    const run = running.get(taskId);
    if (run) run.stopped = true;
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: run?.contextId ?? '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      })
    );
  }
}

const card = {
  name: 'proctor conformance peer (a2a-js)',
  description: `A lifecycle test agent served with @a2a-js/sdk on JSON-RPC, HTTP+JSON and gRPC, protocol ${versions.join(' and ')}.`,
  supportedInterfaces: [],
  provider: { organization: 'proctor interop tests', url: 'https://github.com/proctor-eval/proctor' },
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'lifecycle',
      name: 'Lifecycle',
      description: 'Echoes, works slowly or asks for input, on request.',
      tags: ['test', 'conformance'],
      examples: ['hello', `please ${SLOW} on this`, `please ${ASK} something`],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      securityRequirements: [],
    },
  ],
  signatures: [],
};

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new LifecycleExecutor());
const userBuilder = UserBuilder.noAuthentication;

const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
app.use('/a2a/rest', restHandler({ requestHandler, userBuilder, legacyCompat }));

const grpcServer = new Server();
if (versions.includes('1.0')) grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder }));
if (versions.includes('0.3')) grpcServer.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder }));

function hostPort(h, p) {
  return h.includes(':') ? `[${h}]:${p}` : `${h}:${p}`;
}

const httpServer = http.createServer(app);

let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  httpServer.closeAllConnections();
  httpServer.close();
  grpcServer.forceShutdown();
  process.exit(code);
}
process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.stdin.on('end', () => shutdown(0));
process.stdin.on('close', () => shutdown(0));
process.stdin.on('error', () => shutdown(0));
process.stdin.resume();

try {
  const httpPort = await new Promise((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => resolve(httpServer.address().port));
  });
  const grpcPort = await new Promise((resolve, reject) => {
    grpcServer.bindAsync(hostPort(host, 0), ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  const base = `http://${hostPort(host, httpPort)}`;
  for (const v of versions) {
    card.supportedInterfaces.push({ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: v });
    card.supportedInterfaces.push({ url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: v });
    card.supportedInterfaces.push({ url: hostPort(host, grpcPort), protocolBinding: 'GRPC', tenant: '', protocolVersion: v });
  }
  process.stdout.write(`READY ${base}\n`);
} catch (err) {
  process.stderr.write(`jspeer conformance: cannot listen: ${err?.stack ?? err}\n`);
  process.exit(1);
}
