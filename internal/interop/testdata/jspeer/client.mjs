// An A2A client built with the official JavaScript SDK (@a2a-js/sdk), for
// proctor's interoperability tests of `proctor serve`: it sends one message,
// follows the task it starts to a terminal state and prints what it saw.
//
//   node client.mjs --card-url URL --transport jsonrpc|rest|grpc --protocol 1.0|0.3 \
//                   --mode stream|poll (--request JSON | --text TEXT) \
//                   [--auth-token T] [--timeout 60] [--interval 100]
//
// --card-url is the agent's base URL (the card is read from
// /.well-known/agent-card.json below it) or the card's own URL (ending in
// .json). The card is resolved with the SDK's DefaultAgentCardResolver and
// the client is made with its ClientFactory, from the card restricted to the
// one interface asked for (the factory itself prefers 1.0 whenever a binding
// is declared at both versions). Protocol 0.3 goes through the SDK's v0.3
// compat transports (legacyCompat).
//
// --request is the JSON object sent as the message's data part; --text sends
// a text part instead. --auth-token sends "Authorization: Bearer T" (an HTTP
// header, gRPC metadata) on every call.
//
// --mode stream uses SendStreamingMessage and consumes events until the task
// reaches a terminal state (or the stream ends). --mode poll sends
// SendMessage with returnImmediately (the SDK's `polling` client config),
// expects a Message or a Task at once, then calls GetTask every --interval
// milliseconds until the task is terminal.
//
// On success it prints ONE JSON line to stdout and exits 0:
//
//   {"states": [...], "final": {...}, "final_kind": "task"|"message",
//    "artifact_names": [...], "result": {...}|null, "message_text": "...",
//    "events": [...], "protocol_version": "1.0"|"0.3"}
//
//   states          task states seen, in order, as the SDK's JSON names
//                   (TASK_STATE_WORKING, ...), repeats of the same state in a
//                   row collapsed
//   final           the final Task or Message as the SDK's toJSON gives it; in
//                   stream mode the Task of the first event with every later
//                   status and artifact update applied
//   artifact_names  names of the final task's artifacts
//   result          the data part of the artifact named "Result", if any
//   message_text    the text parts of the reply Message, or of the final
//                   task's status message
//   events          stream mode: the kind of each stream event
//                   (task, message, statusUpdate, artifactUpdate); poll mode:
//                   "send" then one "getTask" per poll
//
// Any error (bad flags, unreachable agent, a protocol error, a timeout) goes
// to stderr as one line starting with "client.mjs: " and the exit status is 1
// (2 for bad flags).

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import { Message, Role, Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

// ---------------------------------------------------------------- flags

function usage(msg) {
  process.stderr.write(
    `client.mjs: ${msg}\n` +
      'usage: node client.mjs --card-url URL --transport jsonrpc|rest|grpc --protocol 1.0|0.3 ' +
      '--mode stream|poll (--request JSON | --text TEXT) [--auth-token T] [--timeout 60] [--interval 100]\n'
  );
  process.exit(2);
}

let flags;
try {
  flags = parseArgs({
    options: {
      'card-url': { type: 'string' },
      transport: { type: 'string', default: 'jsonrpc' },
      protocol: { type: 'string', default: '1.0' },
      mode: { type: 'string', default: 'stream' },
      'auth-token': { type: 'string' },
      request: { type: 'string' },
      text: { type: 'string' },
      timeout: { type: 'string', default: '60' },
      interval: { type: 'string', default: '100' },
    },
    strict: true,
  }).values;
} catch (err) {
  usage(err.message);
}

const BINDINGS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' };
const binding = BINDINGS[flags.transport];
if (!binding) usage(`unknown --transport ${JSON.stringify(flags.transport)}`);
if (!['1.0', '0.3'].includes(flags.protocol)) usage(`unknown --protocol ${JSON.stringify(flags.protocol)}`);
if (!['stream', 'poll'].includes(flags.mode)) usage(`unknown --mode ${JSON.stringify(flags.mode)}`);
if (!flags['card-url']) usage('--card-url is required');
if ((flags.request === undefined) === (flags.text === undefined)) usage('give exactly one of --request and --text');
const timeoutMs = Number(flags.timeout) * 1000;
if (!(timeoutMs > 0)) usage(`bad --timeout ${JSON.stringify(flags.timeout)}`);
const intervalMs = Number(flags.interval);
if (!(intervalMs >= 0)) usage(`bad --interval ${JSON.stringify(flags.interval)}`);

let part;
if (flags.request !== undefined) {
  let data;
  try {
    data = JSON.parse(flags.request);
  } catch (err) {
    usage(`--request is not JSON: ${err.message}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) usage('--request must be a JSON object');
  part = { content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' };
} else {
  part = { content: { $case: 'text', value: flags.text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

// ---------------------------------------------------------------- helpers

function fail(msg) {
  process.stderr.write(`client.mjs: ${msg}\n`);
  process.exit(1);
}

function describeError(err) {
  if (!(err instanceof Error)) return String(err);
  let msg = `${err.name}: ${err.message}`;
  // What the SDK's errors carry beside the message: the transport, the HTTP
  // status, the JSON-RPC or gRPC code, the google.rpc.ErrorInfo reason.
  const extra = [];
  if (err.transport !== undefined) extra.push(`transport ${err.transport}`);
  if (err.statusCode !== undefined) extra.push(`HTTP ${err.statusCode}`);
  if (err.code !== undefined) extra.push(`code ${err.code}`);
  if (err.envelopeCode !== undefined) extra.push(`JSON-RPC code ${err.envelopeCode}`);
  if (err.reason !== undefined && err.reason !== 'INTERNAL_ERROR') extra.push(`reason ${err.reason}`);
  if (extra.length > 0) msg += ` (${extra.join(', ')})`;
  for (let cause = err.cause; cause; cause = cause.cause) {
    msg += `; cause: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`;
    if (!(cause instanceof Error)) break;
  }
  return msg.replace(/\s*\n\s*/g, ' ');
}

// A hard deadline, whatever the SDK does with the abort signal.
const deadline = setTimeout(() => fail(`timed out after ${flags.timeout}s`), timeoutMs);
deadline.unref();
const signal = AbortSignal.timeout(timeoutMs);

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
// States in which the agent waits for the client: following the task any
// further would wait forever.
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

const states = [];
function sawState(state) {
  const name = taskStateToJSON(state);
  if (states[states.length - 1] !== name) states.push(name);
}

function textOf(parts) {
  return (parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('\n');
}

// applyArtifact adds or extends an artifact of task, as a streaming client
// must: a chunk with append=true extends the artifact with the same id.
function applyArtifact(task, ev) {
  const art = ev.artifact;
  if (!art) return;
  const i = task.artifacts.findIndex((a) => a.artifactId === art.artifactId);
  if (i < 0) {
    task.artifacts.push({ ...art, parts: [...art.parts] });
  } else if (ev.append) {
    task.artifacts[i].parts.push(...art.parts);
  } else {
    task.artifacts[i] = { ...art, parts: [...art.parts] };
  }
}

// ---------------------------------------------------------------- the client

async function makeClient() {
  const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } });
  const cardURL = flags['card-url'];
  const card = cardURL.endsWith('.json') ? await resolver.resolve(cardURL, '') : await resolver.resolve(cardURL);
  const declared = (card.supportedInterfaces ?? []).map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`);
  const chosen = (card.supportedInterfaces ?? []).filter(
    (i) => i.protocolBinding.toUpperCase() === binding && i.protocolVersion === flags.protocol
  );
  if (chosen.length === 0) {
    fail(`the agent card declares no ${binding} interface at protocol ${flags.protocol} (it declares: ${declared.join(', ') || 'none'})`);
  }
  const legacyCompat = { enabled: true };
  const transports = [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })];
  if (binding === 'GRPC') {
    // Loaded only when needed: @grpc/grpc-js takes a while to load.
    const { GrpcTransportFactory } = await import('@a2a-js/sdk/client/grpc');
    transports.push(new GrpcTransportFactory({ legacyCompat }));
  }
  const factory = new ClientFactory({
    transports,
    preferredTransports: [binding],
    cardResolver: resolver,
    clientConfig: { polling: flags.mode === 'poll' },
  });
  const client = await factory.createFromAgentCard({ ...card, supportedInterfaces: chosen.slice(0, 1) });
  if (client.protocolVersion !== flags.protocol) {
    fail(`the SDK chose a transport at protocol ${client.protocolVersion}, not ${flags.protocol}`);
  }
  return client;
}

function callOptions() {
  const serviceParameters = {};
  if (flags['auth-token'] !== undefined) serviceParameters.Authorization = `Bearer ${flags['auth-token']}`;
  return { signal, serviceParameters };
}

function request() {
  return {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [part],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

async function stream(client) {
  const events = [];
  let task;
  let message;
  for await (const ev of client.sendMessageStream(request(), callOptions())) {
    const kind = ev.payload?.$case ?? 'empty';
    events.push(kind);
    switch (kind) {
      case 'message':
        message = ev.payload.value;
        break;
      case 'task':
        task = structuredClone(ev.payload.value);
        task.artifacts ??= [];
        if (task.status) sawState(task.status.state);
        break;
      case 'statusUpdate': {
        const up = ev.payload.value;
        if (!task) task = { id: up.taskId, contextId: up.contextId, status: undefined, artifacts: [], history: [], metadata: undefined };
        task.status = up.status;
        if (up.status) sawState(up.status.state);
        break;
      }
      case 'artifactUpdate': {
        const up = ev.payload.value;
        if (!task) task = { id: up.taskId, contextId: up.contextId, status: undefined, artifacts: [], history: [], metadata: undefined };
        applyArtifact(task, up);
        break;
      }
      default:
        fail(`stream event with no payload: ${JSON.stringify(ev)}`);
    }
    if (message) break;
    const state = task?.status?.state;
    if (TERMINAL.has(state) || INTERRUPTED.has(state)) break;
  }
  if (message) return { kind: 'message', value: message, events };
  if (!task) fail('the stream ended without a task or a message');
  return { kind: 'task', value: task, events };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function poll(client) {
  const events = ['send'];
  const res = await client.sendMessage(request(), callOptions());
  if ('messageId' in res) return { kind: 'message', value: res, events };
  let task = res;
  if (task.status) sawState(task.status.state);
  while (!TERMINAL.has(task.status?.state) && !INTERRUPTED.has(task.status?.state)) {
    await sleep(intervalMs);
    events.push('getTask');
    task = await client.getTask({ tenant: '', id: task.id }, callOptions());
    if (task.status) sawState(task.status.state);
  }
  return { kind: 'task', value: task, events };
}

// ---------------------------------------------------------------- main

try {
  const client = await makeClient();
  const out = flags.mode === 'stream' ? await stream(client) : await poll(client);
  let line;
  if (out.kind === 'message') {
    line = {
      states,
      final_kind: 'message',
      final: Message.toJSON(out.value),
      artifact_names: [],
      result: null,
      message_text: textOf(out.value.parts),
      events: out.events,
      protocol_version: client.protocolVersion,
    };
  } else {
    const task = out.value;
    const resultArt = task.artifacts.find((a) => a.name === 'Result');
    const data = resultArt?.parts.find((p) => p.content?.$case === 'data');
    line = {
      states,
      final_kind: 'task',
      final: Task.toJSON(task),
      artifact_names: task.artifacts.map((a) => a.name),
      result: data ? data.content.value : null,
      message_text: textOf(task.status?.message?.parts),
      events: out.events,
      protocol_version: client.protocolVersion,
    };
  }
  process.stdout.write(JSON.stringify(line) + '\n', () => process.exit(0));
} catch (err) {
  fail(describeError(err));
}
