// A scripted A2A agent served with the official JavaScript SDK
// (@a2a-js/sdk), for proctor's interoperability tests.
//
//   node server.mjs --transport jsonrpc|rest|grpc --protocol 1.0|0.3|both \
//                   [--port 0] [--host 127.0.0.1] [--reply message|task] [--streaming true|false] [--keep-alive-ms N]
//
// The agent card is served over HTTP at /.well-known/agent-card.json on
// --port. JSON-RPC is mounted at /a2a/jsonrpc and HTTP+JSON (REST) at
// /a2a/rest of the same HTTP server; gRPC listens on a second port, and the
// card's GRPC interface names it as host:port (the target form that both
// grpc-go and grpc-js dial). Once everything listens, one line goes to
// stdout:
//
//   READY http://127.0.0.1:43211
//
// The process exits on SIGTERM, SIGINT and when its stdin closes, so that it
// never outlives the test that started it.
//
// Protocol 0.3 uses the SDK's compat layer: the card declares a 0.3
// interface only and legacyCompat is enabled on the card, JSON-RPC and REST
// handlers; over gRPC only the legacy (a2a.v1.A2AService) service is
// registered. "--protocol both" declares 1.0 and 0.3 interfaces on the same
// URLs (1.0 first) and serves both.
//
// The agent plays proctor's agentbeats profile and follows one fixed script
// (task mock-01 of the mock domain), so every configuration produces the
// same transcript:
//
//   first message (<policy>) with an email  -> find_user_by_email(email)
//   find_user_by_email result               -> list_tasks(user_id)
//   list_tasks result                       -> respond: how many tasks are not done, and the high-priority one
//   any other user message                  -> respond "You're welcome."

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import express from 'express';
import { Server, ServerCredentials } from '@grpc/grpc-js';

import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import {
  UserBuilder,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
} from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';

// ---------------------------------------------------------------- flags

function usage(msg) {
  process.stderr.write(
    `jspeer: ${msg}\n` +
      'usage: node server.mjs --transport jsonrpc|rest|grpc --protocol 1.0|0.3|both ' +
      '[--port 0] [--host 127.0.0.1] [--reply message|task] [--streaming true|false] [--keep-alive-ms N]\n'
  );
  process.exit(2);
}

let flags;
try {
  flags = parseArgs({
    options: {
      transport: { type: 'string', default: 'jsonrpc' },
      protocol: { type: 'string', default: '1.0' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      reply: { type: 'string', default: 'message' },
      streaming: { type: 'string', default: 'true' },
      'keep-alive-ms': { type: 'string', default: '' },
    },
    strict: true,
  }).values;
} catch (err) {
  usage(err.message);
}

const TRANSPORTS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' };
const binding = TRANSPORTS[flags.transport];
if (!binding) usage(`unknown --transport ${JSON.stringify(flags.transport)}`);
const versions = { '1.0': ['1.0'], '0.3': ['0.3'], both: ['1.0', '0.3'] }[flags.protocol];
if (!versions) usage(`unknown --protocol ${JSON.stringify(flags.protocol)}`);
if (!['message', 'task'].includes(flags.reply)) usage(`unknown --reply ${JSON.stringify(flags.reply)}`);
if (!['true', 'false'].includes(flags.streaming)) usage('--streaming takes true or false');
const port = Number(flags.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad --port ${JSON.stringify(flags.port)}`);
const host = flags.host;
const keepAliveMS = flags['keep-alive-ms'] === '' ? null : Number(flags['keep-alive-ms']);
if (keepAliveMS !== null && !(Number.isInteger(keepAliveMS) && keepAliveMS >= 0)) {
  usage(`bad --keep-alive-ms ${JSON.stringify(flags['keep-alive-ms'])}`);
}
const serves10 = versions.includes('1.0');
const serves03 = versions.includes('0.3');
const legacyCompat = { enabled: serves03 };

// ---------------------------------------------------------------- the script

// Markers of proctor's agentbeats profile (translation/agentbeats.go).
const USER_PREFIX = 'User message: ';
const TOOL_RESULT = /^Tool call result \(([^)\n]+)\):\n/;

// toolResults splits a message into its "Tool call result (<name>):" blocks.
function toolResults(text) {
  const out = [];
  for (const block of text.split(/\n\n(?=Tool call result \(|User message: )/)) {
    const m = TOOL_RESULT.exec(block);
    if (m) out.push({ name: m[1], content: block.slice(m[0].length) });
  }
  return out;
}

// userText returns what follows the last "User message: " line, or null.
function userText(text) {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].startsWith(USER_PREFIX)) {
      return [lines[i].slice(USER_PREFIX.length), ...lines.slice(i + 1)].join('\n').trim();
    }
  }
  return null;
}

function call(name, args) {
  return JSON.stringify({ name, arguments: args });
}

function respond(content) {
  return call('respond', { content });
}

function parseJSON(s) {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

// decide maps the text proctor sent to the agent's one reply.
function decide(text) {
  const results = toolResults(text);
  if (results.length > 0) {
    const last = results[results.length - 1];
    if (last.content.startsWith('Error')) {
      return respond(`Sorry, that did not work: ${last.content}`);
    }
    const value = parseJSON(last.content);
    if (last.name === 'find_user_by_email' && value && typeof value.user_id === 'string') {
      return call('list_tasks', { user_id: value.user_id });
    }
    if (last.name === 'list_tasks' && value && Array.isArray(value.tasks)) {
      const open = value.tasks.filter((t) => t.status !== 'done');
      const high = open.filter((t) => t.priority === 'high').map((t) => `"${t.title}"`);
      const which =
        high.length === 0
          ? 'None of them is high priority.'
          : `The high-priority one is ${high.join(' and ')}.`;
      return respond(`You have ${open.length} tasks that are not done yet. ${which}`);
    }
    return respond('Thanks, I have noted that.');
  }
  const said = userText(text) ?? '';
  if (text.includes('<policy>')) {
    const email = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/.exec(said);
    if (email) return call('find_user_by_email', { email: email[0] });
    return respond('Could you tell me the email address of your Taskly account?');
  }
  return respond("You're welcome.");
}

// ---------------------------------------------------------------- A2A

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function incomingText(message) {
  return (message?.parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((s) => s !== '')
    .join('\n');
}

class ScriptedExecutor {
  async execute(requestContext, eventBus) {
    const reply = decide(incomingText(requestContext.userMessage));
    const { taskId, contextId } = requestContext;
    if (flags.reply === 'task') {
      eventBus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [
            {
              artifactId: randomUUID(),
              name: 'reply',
              description: '',
              parts: [textPart(reply)],
              metadata: undefined,
              extensions: [],
            },
          ],
          history: [requestContext.userMessage],
          metadata: undefined,
        })
      );
    } else {
      eventBus.publish(
        AgentEvent.message({
          messageId: randomUUID(),
          contextId,
          taskId: '',
          role: Role.ROLE_AGENT,
          parts: [textPart(reply)],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        })
      );
    }
    eventBus.finished();
  }

  async cancelTask() {}
}

// The card is filled in once the ports are known; the request handler
// serves this very object.
const card = {
  name: 'proctor interop peer (a2a-js)',
  description:
    'A scripted help-desk agent for the Taskly mock domain, served with @a2a-js/sdk ' +
    `over ${binding}, protocol ${versions.join(' and ')}.`,
  supportedInterfaces: [],
  provider: { organization: 'proctor interop tests', url: 'https://github.com/proctor-eval/proctor' },
  version: '1.0.0',
  capabilities: {
    streaming: flags.streaming === 'true',
    pushNotifications: false,
    extensions: [],
    extendedAgentCard: false,
  },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'taskly_help_desk',
      name: 'Taskly help desk',
      description: 'Answers questions about a Taskly user\u2019s tasks, following the agentbeats profile.',
      tags: ['mock', 'interop'],
      examples: ['How many of my tasks are not done yet?'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      securityRequirements: [],
    },
  ],
  signatures: [],
};

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor());
const userBuilder = UserBuilder.noAuthentication;

const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
if (binding === 'JSONRPC') {
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
}
if (binding === 'HTTP+JSON') {
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder, legacyCompat }));
}

let grpcServer;
if (binding === 'GRPC') {
  grpcServer = new Server();
  if (serves10) grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder }));
  if (serves03) grpcServer.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder }));
}

// ---------------------------------------------------------------- lifecycle

function hostPort(h, p) {
  return h.includes(':') ? `[${h}]:${p}` : `${h}:${p}`;
}

const httpServer = http.createServer(app);
// --keep-alive-ms: how long an idle kept-alive connection stays open (node's
// default is 5 s). A short one makes the race of a connection closed just as
// the client reuses it frequent, for the load test.
if (keepAliveMS !== null) httpServer.keepAliveTimeout = keepAliveMS;

function listenHTTP() {
  return new Promise((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => resolve(httpServer.address().port));
  });
}

function bindGRPC() {
  return new Promise((resolve, reject) => {
    grpcServer.bindAsync(hostPort(host, 0), ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p)
    );
  });
}

let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  httpServer.closeAllConnections();
  httpServer.close();
  grpcServer?.forceShutdown();
  process.exit(code);
}

process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.stdin.on('end', () => shutdown(0));
process.stdin.on('close', () => shutdown(0));
process.stdin.on('error', () => shutdown(0));
process.stdin.resume();

try {
  const httpPort = await listenHTTP();
  const base = `http://${hostPort(host, httpPort)}`;
  let url;
  switch (binding) {
    case 'JSONRPC':
      url = `${base}/a2a/jsonrpc`;
      break;
    case 'HTTP+JSON':
      url = `${base}/a2a/rest`;
      break;
    case 'GRPC':
      url = hostPort(host, await bindGRPC());
      break;
  }
  for (const v of versions) {
    card.supportedInterfaces.push({ url, protocolBinding: binding, tenant: '', protocolVersion: v });
  }
  process.stdout.write(`READY ${base}\n`);
} catch (err) {
  process.stderr.write(`jspeer: cannot listen: ${err?.stack ?? err}\n`);
  process.exit(1);
}
