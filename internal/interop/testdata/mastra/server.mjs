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
// The model is the AI SDK's MockLanguageModelV3 (ai/test), scripted in ../peerkit.mjs;
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

import { exitWithParent, peerFlags, scriptedModel, urlHost } from '../peerkit.mjs';

const flags = peerFlags('mastra peer');
const { port } = flags;

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

// The model plays the script of peerkit.mjs.
const model = scriptedModel({ MockLanguageModelV3, simulateReadableStream }, flags.mode);

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

exitWithParent(shutdown);

httpServer = serve({ fetch: app.fetch, port, hostname: flags.host }, (info) => {
  const host = urlHost(flags.host);
  process.stdout.write(`READY http://${host}:${info.port}/api/.well-known/${flags.mode}/agent-card.json\n`);
});
httpServer.on('error', (err) => {
  process.stderr.write(`mastra peer: cannot listen: ${err?.stack ?? err}\n`);
  process.exit(1);
});
