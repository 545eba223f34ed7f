// Gemini CLI's A2A server (@google/gemini-cli-a2a-server), run as shipped
// against a fake Gemini API, for proctor's interoperability tests.
//
//   node server.mjs --model-url http://127.0.0.1:PORT [--port 0] [--host 127.0.0.1] [--home DIR]
//
// The agent is the CLI's own coder agent; what it says is what its model
// says, so the scripted behaviour (refusing, or calling a tool) lives in the
// fake Gemini API at --model-url (the Go tests serve it with
// internal/llmtest). This script runs the package's executable,
// dist/a2a-server.mjs (a bundle that exports nothing; the package's
// unbundled dist/index.js does not load, as it imports dotenv, which the
// package does not depend on), in this very process, and confines it:
//
//   - it listens on --host (the executable listens on every interface) on
//     --port (0: any free port, which the executable writes into its card);
//   - its stdout (log lines) goes to stderr, so that stdout carries one line
//     once the server listens:
//
//       READY http://127.0.0.1:43211
//
//   - nothing leaves loopback: the API key is a placeholder only the fake
//     model sees; HOME, GEMINI_CLI_HOME and the agent's workspace are
//     --home, an empty directory, or else a fresh temporary one (removed on
//     exit), so no user settings,
//     GEMINI.md or credentials are read; the agent's tools (settings.json's
//     coreTools) are two read-only ones; a stub stands in for ripgrep,
//     which the executable would otherwise download from GitHub; and every
//     TCP connection to a host other than loopback fails at once, which
//     turns the CLI's usage statistics (sent to play.googleapis.com unless
//     a setting the A2A server never passes on turns them off) into local
//     errors.
//
// The card is left as the package makes it (protocol 0.3, JSON-RPC at
// http://localhost:PORT/, no preferredTransport). The process exits on
// SIGTERM, SIGINT and when its stdin closes, so that it never outlives the
// test that started it.

import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

function usage(msg) {
  process.stderr.write(
    `geminicli: ${msg}\nusage: node server.mjs --model-url http://127.0.0.1:PORT [--port 0] [--host 127.0.0.1] [--home DIR]\n`
  );
  process.exit(2);
}

let flags;
try {
  flags = parseArgs({
    options: {
      'model-url': { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      home: { type: 'string' },
    },
    strict: true,
  }).values;
} catch (err) {
  usage(err.message);
}
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);
let modelURL;
try {
  modelURL = new URL(flags['model-url'] ?? '');
} catch {
  usage('--model-url must be the http:// URL of a fake Gemini API on loopback');
}
if (modelURL.protocol !== 'http:' || !LOOPBACK.has(modelURL.hostname)) {
  usage(`--model-url ${JSON.stringify(flags['model-url'])} is not an http:// URL on loopback`);
}
const port = Number(flags.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad --port ${JSON.stringify(flags.port)}`);

// ---------------------------------------------------------------- isolation

const ownHome = flags.home === undefined;
const home = ownHome ? fs.mkdtempSync(path.join(os.tmpdir(), 'proctor-geminicli-')) : path.resolve(flags.home);
if (!ownHome && (!fs.existsSync(home) || fs.readdirSync(home).length > 0)) usage(`--home ${JSON.stringify(flags.home)} is not an empty directory`);
const workspace = path.join(home, 'workspace');
fs.mkdirSync(workspace);
Object.assign(process.env, {
  HOME: home,
  GEMINI_CLI_HOME: home,
  CODER_AGENT_WORKSPACE_PATH: workspace,
  GEMINI_API_KEY: 'proctor-fake-key',
  GOOGLE_GEMINI_BASE_URL: modelURL.origin,
});
for (const name of ['GOOGLE_API_KEY', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_APPLICATION_CREDENTIALS', 'USE_CCPA', 'GCS_BUCKET_NAME']) {
  delete process.env[name];
}

// The executable looks for ripgrep in ~/.gemini/tmp/bin and downloads it
// from GitHub when it is missing. A stub takes its place: the scripted
// model never calls a tool.
const binDir = path.join(home, '.gemini', 'tmp', 'bin');
fs.mkdirSync(binDir, { recursive: true });
fs.writeFileSync(path.join(binDir, 'rg'), '#!/bin/sh\necho "ripgrep is stubbed in proctor\'s interop tests" >&2\nexit 2\n', {
  mode: 0o755,
});

// The agent's tools: two read-only ones. Without a coreTools setting the
// executable registers every tool, and its shell tool alone costs seconds
// of start-up (it decodes tree-sitter's bash grammar); the web tools would
// reach beyond loopback if the model called them.
fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ coreTools: ['read_file', 'list_directory'] }));

// Every TCP connection (fetch, got, the Gemini client) goes through
// net.Socket's connect: one to a host other than loopback fails at once.
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // connect(options[, cb]), connect(port[, host][, cb]), or, from net's own
  // callers (http agents, tls), connect([options, cb]).
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const opts = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  // An IPC connection names a path and no port; http's options name the
  // request's path too, with a port.
  const ipc = opts.port === undefined && typeof opts.path === 'string';
  const host = (typeof opts.host === 'string' ? opts.host : 'localhost').replace(/^\[|\]$/g, '');
  if (!ipc && !LOOPBACK_HOSTS.has(host)) {
    process.stderr.write(`geminicli: refused a connection beyond loopback: ${host}\n`);
    process.nextTick(() => this.destroy(new Error(`proctor interop: no network beyond loopback (${host})`)));
    return this;
  }
  return connect.apply(this, args);
};

// ---------------------------------------------------------------- server

const servers = [];
let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  if (ownHome) fs.rmSync(home, { recursive: true, force: true });
  process.exit(code);
}
process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.stdin.on('end', () => shutdown(0));
process.stdin.on('close', () => shutdown(0));
process.stdin.on('error', () => shutdown(0));
process.stdin.resume();

// The executable's HTTP server: bound to --host, and announced once the
// executable has written the port into its card (in its own 'listening'
// callback, which runs after this one).
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    args = typeof args[1] === 'string' ? args : [args[0], flags.host, ...args.slice(1)];
  }
  servers.push(this);
  this.once('listening', () =>
    setImmediate(() => {
      const announced = `READY http://${flags.host}:${this.address().port}\n`;
      fs.writeSync(stdoutFD, announced);
    })
  );
  this.once('error', (err) => {
    process.stderr.write(`geminicli: cannot listen: ${err?.stack ?? err}\n`);
    shutdown(1);
  });
  return listen.apply(this, args);
};

// stdout is the READY line's alone: everything else written to it goes to
// stderr.
const stdoutFD = 1;
process.stdout.write = process.stderr.write.bind(process.stderr);

if (port !== 0) process.env.CODER_AGENT_PORT = String(port);
delete process.env.NODE_ENV; // "test" keeps the executable from starting
const executable = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'node_modules/@google/gemini-cli-a2a-server/dist/a2a-server.mjs'
);
// The executable starts its server only when it is the main module.
process.argv[1] = executable;
try {
  await import(executable);
} catch (err) {
  process.stderr.write(`geminicli: cannot load ${executable}: ${err?.stack ?? err}\n`);
  shutdown(1);
}
