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
// The model is the AI SDK's MockLanguageModelV3 (ai/test), scripted in ../peerkit.mjs;
// VoltAgent drives it as it would any provider's model. It streams its text
// in small chunks:
//
//   refuse:   every turn -> REFUSAL
//   toolcall: the first turn (proctor's agentbeats profile sends <policy>)
//             -> TOOL_CALL, a find_user_by_email call as JSON text;
//             every later turn -> FINAL_TEXT
//
// internal/interop/voltagent_test.go asserts these exact texts.

import { exitWithParent, peerFlags, scriptedModel, urlHost } from '../peerkit.mjs';

const flags = peerFlags('voltagent peer');
const { port } = flags;

// Nothing may leave loopback: outside production, @voltagent/core refreshes
// its model registry from models.dev as it loads, so the environment is set
// before the framework is imported.
process.env.NODE_ENV = 'production';
const { serve } = await import('@hono/node-server');
const { Agent, VoltAgent } = await import('@voltagent/core');
const { A2AServer } = await import('@voltagent/a2a-server');
const { createVoltAgentApp } = await import('@voltagent/server-hono');
const { MockLanguageModelV3, simulateReadableStream } = await import('ai/test');

// The model plays the script of peerkit.mjs.
const model = scriptedModel({ MockLanguageModelV3, simulateReadableStream }, flags.mode);

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
      const host = urlHost(flags.host);
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

exitWithParent(shutdown);

new VoltAgent({
  agents: { [flags.mode]: agent },
  a2aServers: {
    [flags.mode]: new A2AServer({ id: flags.mode, name: flags.mode, version: '1.0.0', agents: { [flags.mode]: agent } }),
  },
  server: listener,
  logger: stderrLogger(),
  checkDependencies: false,
});
