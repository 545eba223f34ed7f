// A scripted agent built with ADK for TypeScript (@google/adk), served over
// A2A with the framework's own toA2a, for proctor's interoperability tests.
//
//   node server.mjs --mode refuse|toolcall [--port 0] [--host 127.0.0.1]
//
// toA2a builds the agent card (protocol 0.3: url and preferredTransport for
// JSON-RPC at /jsonrpc, additionalInterfaces for JSON-RPC and HTTP+JSON at
// /rest) and mounts both bindings on one express app. The card is left as
// the framework makes it. Once the server listens, one line goes to stdout:
//
//   READY http://127.0.0.1:43211
//
// The process exits on SIGTERM, SIGINT and when its stdin closes, so that it
// never outlives the test that started it.
//
// The model is scripted (ScriptedLlm, a BaseLlm): no provider is called. It
// plays task mock-01 of proctor's mock domain under the agentbeats profile:
//
//   refuse:   every turn -> REFUSAL (plain text)
//   toolcall: the first turn (the one carrying <policy>) -> a find_user_by_email
//             call as JSON; every later turn -> FINAL (plain text)
//
// Streamed (toA2a runs the agent with SSE streaming), the model answers the
// way ADK's Gemini model does: partial responses of CHUNK characters each,
// then one final response with the whole text.

import http from 'node:http';
import { exitWithParent, peerFlags } from '../peerkit.mjs';

import { BaseLlm, LlmAgent, LogLevel, setLogger } from '@google/adk';
import { toA2a } from '@google/adk/a2a';

export const REFUSAL = "I'm sorry, but I can't help with that request.";
export const TOOL_CALL = JSON.stringify({
  name: 'find_user_by_email',
  arguments: { email: 'omar.haddad@example.com' },
});
export const FINAL = 'I have looked up your account. Is there anything else I can do for you?';
const CHUNK = 16;

const flags = peerFlags('adkts');
const { port } = flags;

// ADK logs to stdout, which carries only the READY line: its warnings and
// errors go to stderr instead.
function stderrLogger() {
  let min = LogLevel.WARN;
  const log = (level, ...args) => {
    if (level >= min) console.error(`adkts: [${LogLevel[level]}]`, ...args);
  };
  return {
    log,
    debug: (...a) => log(LogLevel.DEBUG, ...a),
    info: (...a) => log(LogLevel.INFO, ...a),
    warn: (...a) => log(LogLevel.WARN, ...a),
    error: (...a) => log(LogLevel.ERROR, ...a),
    setLogLevel: (level) => {
      min = level;
    },
  };
}
setLogger(stderrLogger());

// latestUserText is the text of the last user content of a request: the A2A
// message proctor sent this turn.
function latestUserText(request) {
  const contents = request.contents ?? [];
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i].role === 'user') {
      return (contents[i].parts ?? []).map((p) => p.text ?? '').join('');
    }
  }
  return '';
}

function reply(request) {
  if (flags.mode === 'refuse') return REFUSAL;
  return latestUserText(request).includes('<policy>') ? TOOL_CALL : FINAL;
}

function response(text, partial) {
  return {
    content: { role: 'model', parts: [{ text }] },
    partial,
    turnComplete: !partial,
    finishReason: partial ? undefined : 'STOP',
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
  };
}

class ScriptedLlm extends BaseLlm {
  constructor() {
    super({ model: 'proctor-script' });
  }

  async *generateContentAsync(request, stream = false) {
    const text = reply(request);
    if (stream) {
      for (let i = 0; i < text.length; i += CHUNK) {
        yield response(text.slice(i, i + CHUNK), true);
      }
    }
    yield response(text, false);
  }

  async connect() {
    throw new Error('ScriptedLlm has no live connection');
  }
}

const agent = new LlmAgent({
  name: flags.mode === 'refuse' ? 'refusing_agent' : 'toolcall_agent',
  description: 'A scripted help-desk agent for the Taskly mock domain, built with ADK for TypeScript.',
  instruction: 'Follow the policy in the first message.',
  model: new ScriptedLlm(),
});

// toA2a needs the port for the card's URLs: listen first, then mount the
// app it returns.
let app;
const server = http.createServer((req, res) => {
  if (app) return app(req, res);
  res.writeHead(503).end();
});

let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections();
  server.close();
  process.exit(code);
}
exitWithParent(shutdown);

try {
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, flags.host, resolve);
  });
  const bound = server.address().port;
  app = await toA2a(agent, { host: flags.host, port: bound, allowUnauthenticated: true });
  process.stdout.write(`READY http://${flags.host}:${bound}\n`);
} catch (err) {
  process.stderr.write(`adkts: cannot start: ${err?.stack ?? err}\n`);
  process.exit(1);
}
