// A scripted A2A agent built with Mastra (@mastra/core and its Hono server
// adapter, @mastra/hono), for proctor's interoperability tests.
//
//   node server.mjs --mode refuse|toolcall [--port 0] [--host 127.0.0.1]
//
// Mastra serves one agent card per agent under its API prefix, at
// /api/.well-known/<agent id>/agent-card.json, and executes A2A JSON-RPC at
// /api/a2a/<agent id>; the card is Mastra's own, unmodified (a 0.3-style card
// with only `url`). Once the server listens, one line goes to stdout with the
// card's URL, which proctor dials as it is:
//
//   READY http://127.0.0.1:43211/api/.well-known/refuse/agent-card.json
//
// Nothing leaves loopback (see MASTRA_TELEMETRY_DISABLED below). The
// process exits on SIGTERM, SIGINT and when its stdin closes, so that it
// never outlives the test that started it.
//
// The model is the AI SDK's MockLanguageModelV3 (ai/test), scripted here;
// Mastra drives it as it would any provider's model. It streams its text in
// small chunks, so that a tool-call JSON reaches A2A as several appended
// artifact chunks:
//
//   refuse:   every turn -> REFUSAL
//   toolcall: the first turn (proctor's agentbeats profile sends <policy>)
//             -> TOOL_CALL, a find_user_by_email call as JSON text;
//             every later turn -> FINAL_TEXT
//
// internal/interop/mastra_test.go asserts these exact texts.

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
  process.stderr.write(`mastra peer: ${msg}\nusage: node server.mjs --mode refuse|toolcall [--port 0] [--host 127.0.0.1]\n`);
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

// Nothing may leave loopback: Mastra reports usage to PostHog unless told
// not to, so the environment is set before the framework is imported.
process.env.MASTRA_TELEMETRY_DISABLED = '1';
const { serve } = await import('@hono/node-server');
const { Hono } = await import('hono');
const { Agent } = await import('@mastra/core/agent');
const { Mastra } = await import('@mastra/core/mastra');
const { MastraServer } = await import('@mastra/hono');
const { InMemoryTaskStore } = await import('@mastra/server/a2a/store');
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

// ---------------------------------------------------------------- Mastra

const agent = new Agent({
  id: flags.mode,
  name: flags.mode,
  description: `A scripted Taskly help-desk agent (${flags.mode}) for proctor's interop tests.`,
  instructions: 'Follow the script.',
  model,
});

const mastra = new Mastra({ agents: { [flags.mode]: agent }, logger: false });
const app = new Hono();
const server = new MastraServer({ app, mastra, taskStore: new InMemoryTaskStore() });
await server.init();

// ---------------------------------------------------------------- lifecycle

let httpServer;
let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  httpServer?.closeAllConnections?.();
  httpServer?.close();
  process.exit(code);
}

process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.stdin.on('end', () => shutdown(0));
process.stdin.on('close', () => shutdown(0));
process.stdin.on('error', () => shutdown(0));
process.stdin.resume();

httpServer = serve({ fetch: app.fetch, port, hostname: flags.host }, (info) => {
  const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
  process.stdout.write(`READY http://${host}:${info.port}/api/.well-known/${flags.mode}/agent-card.json\n`);
});
httpServer.on('error', (err) => {
  process.stderr.write(`mastra peer: cannot listen: ${err?.stack ?? err}\n`);
  process.exit(1);
});
