// What the framework peers' server.mjs scripts share (adkts, mastra,
// voltagent): their command line, their lifecycle, and, for the two built on
// the AI SDK (mastra, voltagent), the scripted model. It imports nothing but
// node's own modules, so each npm project can use it by relative path; the
// AI SDK's classes are passed in from the project that has them.

import { parseArgs } from 'node:util';

// peerFlags parses --mode refuse|toolcall, --port and --host, and exits 2
// with a usage line naming the peer on anything else.
export function peerFlags(name) {
  const usage = (msg) => {
    process.stderr.write(`${name}: ${msg}\nusage: node server.mjs --mode refuse|toolcall [--port 0] [--host 127.0.0.1]\n`);
    process.exit(2);
  };
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
  return { mode: flags.mode, port, host: flags.host };
}

// exitWithParent calls shutdown on SIGTERM, SIGINT and when stdin (held by
// the test that started the peer) closes, so that a peer never outlives its
// test.
export function exitWithParent(shutdown) {
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  process.stdin.on('end', () => shutdown(0));
  process.stdin.on('close', () => shutdown(0));
  process.stdin.on('error', () => shutdown(0));
  process.stdin.resume();
}

// urlHost is host as a URL writes it (IPv6 in brackets).
export function urlHost(host) {
  return host.includes(':') ? `[${host}]` : host;
}

// The AI SDK peers' script, which their Go tests assert word for word:
//
//   refuse:   every turn -> REFUSAL
//   toolcall: the first turn (proctor's agentbeats profile sends <policy>)
//             -> TOOL_CALL, a find_user_by_email call as JSON text;
//             every later turn -> FINAL_TEXT
export const REFUSAL = "I'm sorry, but I can't help with Taskly accounts.";
export const TOOL_CALL = JSON.stringify({
  name: 'find_user_by_email',
  arguments: { email: 'omar.haddad@example.com' },
});
export const FINAL_TEXT = 'I looked up your account, but I cannot say more about your tasks.';

// CHUNK is how many characters each streamed text delta carries.
const CHUNK = 7;

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

// scriptedModel is an AI SDK model (MockLanguageModelV3 from ai/test, given
// by the caller with simulateReadableStream) that plays the script for mode,
// streaming its text in small chunks.
export function scriptedModel({ MockLanguageModelV3, simulateReadableStream }, mode) {
  const reply = (text) => {
    if (mode === 'refuse') return REFUSAL;
    return text.includes('<policy>') ? TOOL_CALL : FINAL_TEXT;
  };
  return new MockLanguageModelV3({
    provider: 'proctor-script',
    modelId: `scripted-${mode}`,
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
}
