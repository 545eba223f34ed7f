// A scripted A2A agent built with VoltAgent (@voltagent/core, served over
// A2A by @voltagent/a2a-server through @voltagent/server-hono's routes), for
// proctor's interoperability tests.
//
//   node server.mjs --mode refuse|toolcall [--port 0] [--host 127.0.0.1]
//
// VoltAgent publishes each A2A server's card at
// /.well-known/<server id>/agent-card.json and executes JSON-RPC at
// /a2a/<server id>; the card is VoltAgent's own, unmodified (a 0.3-style card
// with only `url`). Once the server listens, one line goes to stdout with the
// card's URL, which proctor dials as it is:
//
//   READY http://127.0.0.1:43211/.well-known/refuse/agent-card.json
//
// Nothing leaves loopback (see NODE_ENV below). The process exits on SIGTERM, SIGINT and when its stdin closes, so that it
// never outlives the test that started it.
//
// The HTTP app is server-hono's own (createVoltAgentApp, with every route
// VoltAgent registers); only the listener is this script's, because
// VoltAgent's built-in one picks its port from a fixed list (3141, ...) rather
// than binding port 0, and prints a banner to stdout.
//
// The model is the AI SDK's MockLanguageModelV3 (ai/test), scripted here;
// VoltAgent drives it as it would any provider's model. It streams its text
// in small chunks:
//
//   refuse:   every turn -> REFUSAL
//   toolcall: the first turn (proctor's agentbeats profile sends <policy>)
//             -> TOOL_CALL, a find_user_by_email call as JSON text;
//             every later turn -> FINAL_TEXT
//
// internal/interop/voltagent_test.go asserts these exact texts.

import { parseArgs } from 'node:util';

const REFUSAL = "I'm sorry, but I can't help with Taskly accounts.";
const TOOL_CALL = JSON.stringify({
  name: 'find_user_by_email',
  arguments: { email: 'omar.haddad@example.com' },
});
const FINAL_TEXT = 'I looked up your account, but I cannot say more about your tasks.';

// CHUNK is how many characters each streamed text delta carries.
const CHUNK = 7;

function usage(msg) {
  process.stderr.write(`voltagent peer: ${msg}\nusage: node server.mjs --mode refuse|toolcall [--port 0] [--host 127.0.0.1]\n`);
  process.exit(2);
}

let flags;
try {
  flags = parseArgs({
    options: {
      mode: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
    strict: true,
  }).values;
} catch (err) {
  usage(err.message);
}
if (!['refuse', 'toolcall'].includes(flags.mode)) usage(`--mode must be refuse or toolcall, not ${JSON.stringify(flags.mode)}`);
const port = Number(flags.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad --port ${JSON.stringify(flags.port)}`);

// Nothing may leave loopback: outside production, @voltagent/core refreshes
// its model registry from models.dev as it loads, so the environment is set
// before the framework is imported.
process.env.NODE_ENV = 'production';
const { serve } = await import('@hono/node-server');
const { Agent, VoltAgent } = await import('@voltagent/core');
const { A2AServer } = await import('@voltagent/a2a-server');
const { createVoltAgentApp } = await import('@voltagent/server-hono');
const { MockLanguageModelV3, simulateReadableStream } = await import('ai/test');

// ---------------------------------------------------------------- the model

// promptText is the text of the last user message of an AI SDK prompt.
function promptText(prompt) {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role !== 'user') continue;
    return (Array.isArray(m.content) ? m.content : [])
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
  }
  return '';
}

// reply is the script: what the agent answers to the text proctor sent.
function reply(text) {
  if (flags.mode === 'refuse') return REFUSAL;
  return text.includes('<policy>') ? TOOL_CALL : FINAL_TEXT;
}

const usageCounts = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function streamParts(text) {
  const parts = [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't0' }];
  for (let i = 0; i < text.length; i += CHUNK) {
    parts.push({ type: 'text-delta', id: 't0', delta: text.slice(i, i + CHUNK) });
  }
  parts.push({ type: 'text-end', id: 't0' });
  parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usageCounts });
  return parts;
}

const model = new MockLanguageModelV3({
  provider: 'proctor-script',
  modelId: `scripted-${flags.mode}`,
  doGenerate: async ({ prompt }) => ({
    content: [{ type: 'text', text: reply(promptText(prompt)) }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usageCounts,
    warnings: [],
  }),
  doStream: async ({ prompt }) => ({
    stream: simulateReadableStream({ chunks: streamParts(reply(promptText(prompt))), initialDelayInMs: null, chunkDelayInMs: null }),
  }),
});

// ---------------------------------------------------------------- logging

// stderrLogger keeps VoltAgent's logs off stdout, which carries only the
// READY line; it writes warnings and errors to stderr.
function stderrLogger(bindings = {}) {
  const write = (level) => (msg, ctx) => {
    const text = typeof msg === 'string' ? msg : JSON.stringify(msg);
    process.stderr.write(`voltagent ${level}: ${text}${ctx ? ' ' + JSON.stringify(ctx) : ''}\n`);
  };
  const quiet = () => {};
  return {
    trace: quiet,
    debug: quiet,
    info: quiet,
    warn: write('warn'),
    error: write('error'),
    fatal: write('fatal'),
    child: (more) => stderrLogger({ ...bindings, ...more }),
  };
}

// ---------------------------------------------------------------- VoltAgent

const agent = new Agent({
  id: flags.mode,
  name: flags.mode,
  purpose: `A scripted Taskly help-desk agent (${flags.mode}) for proctor's interop tests.`,
  instructions: 'Follow the script.',
  model,
});

let httpServer;
let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  httpServer?.closeAllConnections?.();
  httpServer?.close();
  process.exit(code);
}

// listener is the server provider VoltAgent starts: server-hono's app,
// served on the port asked for.
function listener(deps) {
  let running = false;
  return {
    async start() {
      const { app } = await createVoltAgentApp(deps, {}, port);
      const bound = await new Promise((resolve, reject) => {
        httpServer = serve({ fetch: app.fetch.bind(app), port, hostname: flags.host }, (info) => resolve(info.port));
        httpServer.once('error', reject);
      });
      running = true;
      const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
      process.stdout.write(`READY http://${host}:${bound}/.well-known/${flags.mode}/agent-card.json\n`);
      return { port: bound };
    },
    async stop() {
      httpServer?.close();
      running = false;
    },
    isRunning: () => running,
  };
}

process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.stdin.on('end', () => shutdown(0));
process.stdin.on('close', () => shutdown(0));
process.stdin.on('error', () => shutdown(0));
process.stdin.resume();

new VoltAgent({
  agents: { [flags.mode]: agent },
  a2aServers: {
    [flags.mode]: new A2AServer({ id: flags.mode, name: flags.mode, version: '1.0.0', agents: { [flags.mode]: agent } }),
  },
  server: listener,
  logger: stderrLogger(),
  checkDependencies: false,
});
