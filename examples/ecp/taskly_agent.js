#!/usr/bin/env node
// A rule-based ECP agent for proctor's mock domain (Taskly help desk).
//
// Node.js, no dependencies. It speaks ECP 0.1.0 as newline-delimited
// JSON-RPC 2.0 on stdin/stdout (the framing proctor uses by default):
//
//   proctor run --domain mock --agent 'ecp+stdio:node examples/ecp/taskly_agent.js'
//
// agent/step answers "paused" with one tool call at a time, or "done" with a
// public_output for the user; its reasoning goes to private_thought, which
// proctor keeps for white-box review and never shows the user or a judge.
'use strict';

const readline = require('node:readline');

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;
const QUOTED = /(?:^|(?<=[\s(]))'([^']+)'(?=[\s.,!?)]|$)/g;
const TASK_ID = /\bT-\d+\b/;
const PRIORITY = /\b(low|medium|high)\b/;
const OUT_OF_SCOPE = /refund|charged|billing|close my .*account|delete .*(account|data)|upgrade|downgrade/;

class RPCError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// Every step reports its token usage; rules use no model, so it is zero.
const call = (name, args) => ({
  status: 'paused',
  tool_calls: [{ id: 'call-1', name, arguments: args }],
  private_thought: `calling ${name}`,
  usage: { input: 0, output: 0 },
});
const say = (text) => ({
  status: 'done',
  public_output: text,
  private_thought: 'answering the user',
  usage: { input: 0, output: 0 },
});
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

// Conversation is the state of one conversation, cleared by agent/reset.
class Conversation {
  constructor() {
    this.email = null;
    this.userId = null;
    this.tasks = null; // the user's tasks, once listed
    this.ops = []; // what the user asked for, in order
    this.awaiting = null; // "confirm" or "priority"
    this.notes = []; // what to tell the user next
    this.pending = null;
    this.steps = 0;
  }

  onUser(text) {
    const lower = text.toLowerCase();
    if (this.awaiting === 'confirm') {
      this.awaiting = null;
      const op = this.ops.shift();
      if (/\b(no|don't|do not|keep)\b/.test(lower)) {
        this.notes.push(`Okay, I won't delete '${op.title}'; it stays on your list.`);
      } else {
        op.confirmed = true;
        this.ops.unshift(op);
      }
      return;
    }
    if (this.awaiting === 'priority') {
      const m = PRIORITY.exec(lower);
      if (m) {
        this.awaiting = null;
        this.ops[0].priority = m[1];
      }
      return;
    }
    const m = EMAIL.exec(text);
    if (m && this.userId === null) this.email = m[0].toLowerCase();
    this.ops.push(...parseOps(text));
  }

  nextMove() {
    if (this.userId === null) {
      if (this.email) return call('find_user_by_email', { email: this.email });
      return say(this.flush('Could you give me the email address of your Taskly account?'));
    }
    if (this.tasks === null && this.ops.some((op) => ['status', 'delete', 'report'].includes(op.kind))) {
      return call('list_tasks', { user_id: this.userId });
    }
    while (this.ops.length > 0) {
      const move = this.opMove(this.ops[0]);
      if (move) return move;
    }
    return say(this.flush('Is there anything else I can help you with?'));
  }

  opMove(op) {
    switch (op.kind) {
      case 'transfer':
        this.ops.shift();
        return call('transfer_to_human_agents', { summary: `User ${this.userId} (${this.email}) asks: ${op.text}` });
      case 'plan':
        this.ops.shift();
        return call('get_user', { user_id: this.userId });
      case 'create':
        if (!op.priority) {
          this.awaiting = 'priority';
          return say(this.flush(`What priority should '${op.title}' have: low, medium or high?`));
        }
        this.ops.shift();
        return call('create_task', { user_id: this.userId, title: op.title, priority: op.priority });
      case 'report':
        this.ops.shift();
        this.notes.push(report(this.tasks, op.filter));
        return null;
    }
    const task = this.find(op);
    if (!task) {
      this.ops.shift();
      this.notes.push(`I can't find ${op.taskId || `'${op.title}'`} among your tasks, so I can't change it.`);
      return null;
    }
    op.title = task.title;
    op.taskId = task.task_id;
    if (op.kind === 'delete' && !op.confirmed) {
      this.awaiting = 'confirm';
      return say(this.flush(`Do you confirm that I should delete '${task.title}' (${task.task_id})? This cannot be undone.`));
    }
    this.ops.shift();
    this.pending = op;
    if (op.kind === 'delete') return call('delete_task', { task_id: task.task_id });
    return call('update_task_status', { task_id: task.task_id, status: op.status });
  }

  find(op) {
    return (this.tasks || []).find((t) =>
      (op.taskId && t.task_id === op.taskId) || (op.title && t.title.toLowerCase() === op.title.toLowerCase())) || null;
  }

  onResult(name, content, error) {
    if (name === 'find_user_by_email') {
      if (error) {
        this.email = null;
        this.notes.push("I couldn't find an account with that email.");
      } else {
        const user = JSON.parse(content);
        this.userId = user.user_id;
        this.notes.push(`Thanks, ${user.name.split(' ')[0]}, you're verified.`);
      }
      return;
    }
    if (name === 'list_tasks') {
      this.tasks = error ? [] : JSON.parse(content).tasks || [];
      return;
    }
    const op = this.pending || {};
    this.pending = null;
    if (error) {
      this.notes.push(`I couldn't do that: ${content}`);
    } else if (name === 'get_user') {
      const u = JSON.parse(content);
      this.notes.push(`You're on the ${u.plan_name} plan, which allows ${u.max_open_tasks} open tasks; you have ${u.open_tasks} open now.`);
    } else if (name === 'create_task') {
      const t = JSON.parse(content);
      this.notes.push(`I created '${t.title}' (${t.task_id}) with ${t.priority} priority.`);
    } else if (name === 'update_task_status') {
      this.notes.push(`'${op.title}' is now ${(op.status || '').replace('_', ' ')}.`);
    } else if (name === 'delete_task') {
      this.notes.push(`I deleted '${op.title}'.`);
    } else if (name === 'transfer_to_human_agents') {
      this.notes.push("I can't handle that myself, so I've transferred you to a human agent who will follow up.");
    }
  }

  flush(question) {
    const text = [...this.notes, question].join(' ');
    this.notes = [];
    return text;
  }
}

// parseOps reads the requests in a user message, one per clause.
function parseOps(text) {
  const lower = text.toLowerCase();
  if (OUT_OF_SCOPE.test(lower)) return [{ kind: 'transfer', text }];
  const ops = [];
  if (/which plan|what plan|how many open tasks does/.test(lower)) ops.push({ kind: 'plan' });
  if (/how many|not done|which of them/.test(lower)) ops.push({ kind: 'report', filter: 'open' });
  else if (/in progress\?/.test(lower) && !lower.includes('move')) ops.push({ kind: 'report', filter: 'in_progress' });
  for (const clause of text.split(/,\s*(?:and\s+)?(?:then\s+)?|\s+and then\s+/)) {
    const op = clauseOp(clause);
    if (op) ops.push(op);
  }
  return ops;
}

function clauseOp(clause) {
  const titles = [...clause.matchAll(QUOTED)].map((m) => m[1]);
  const lower = clause.replace(QUOTED, ' ').toLowerCase(); // keywords outside the titles
  const id = TASK_ID.exec(clause);
  const target = { title: titles[0] || null, taskId: id ? id[0] : null };
  if (!target.title && !target.taskId) return null;
  if (/\b(add|create|new)\b/.test(lower) && target.title) {
    const m = PRIORITY.exec(lower);
    return { kind: 'create', title: target.title, priority: m ? m[1] : null };
  }
  if (/\bdelete|remove\b/.test(lower)) return { ...target, kind: 'delete' };
  let status = null;
  if (lower.includes('reopen')) status = 'open';
  else if (lower.includes('in progress')) status = 'in_progress';
  else if (lower.includes('done') || lower.includes('finished')) status = 'done';
  return status ? { ...target, kind: 'status', status } : null;
}

function report(tasks, filter) {
  if (filter === 'in_progress') {
    const names = tasks.filter((t) => t.status === 'in_progress').map((t) => t.title);
    return names.length ? `Your tasks in progress: ${names.join(', ')}.` : 'None of your tasks is in progress.';
  }
  const open = tasks.filter((t) => t.status !== 'done');
  const high = open.filter((t) => t.priority === 'high').map((t) => t.title);
  return `You have ${open.length} tasks not done yet; high priority among them: ${high.join(', ') || 'none'}.`;
}

class Agent {
  constructor() {
    this.conv = new Conversation();
  }

  handle(method, params) {
    switch (method) {
      case 'agent/initialize':
        return { name: 'taskly-node-example', protocolVersion: '0.1.0', capabilities: {} };
      case 'agent/reset':
        this.conv = new Conversation();
        return true;
      case 'agent/step':
        return this.step(stepParams(params));
      case 'agent/inspect': {
        if (!isObject(params)) throw new RPCError(-32602, 'agent/inspect takes {"path": "..."}');
        const path = params.path;
        if (path === 'steps') return { value: this.conv.steps };
        if (path === 'user_id') return { value: this.conv.userId };
        throw new RPCError(-32602, `unknown path ${JSON.stringify(path)}`);
      }
    }
    throw new RPCError(-32601, `unknown method ${method}`);
  }

  step(params) {
    const conv = this.conv;
    conv.steps++;
    if (params.context.kind === 'tool_results') {
      let results;
      try {
        results = JSON.parse(params.input || '{}').tool_results || [];
      } catch (e) {
        throw new RPCError(-32602, 'a tool_results input must hold {"tool_results": [...]}');
      }
      for (const r of results) conv.onResult(r.name, r.content, r.error);
    } else {
      conv.onUser(params.input);
    }
    return conv.nextMove();
  }
}

// stepParams checks agent/step's parameters: input a string, context an object.
function stepParams(params) {
  if (params === undefined || params === null) params = {};
  if (!isObject(params)) throw new RPCError(-32602, 'agent/step takes {"input": string, "context": object}');
  const { input, context } = params;
  if (input !== undefined && input !== null && typeof input !== 'string') {
    throw new RPCError(-32602, 'agent/step: input must be a string');
  }
  if (context !== undefined && context !== null && !isObject(context)) {
    throw new RPCError(-32602, 'agent/step: context must be an object');
  }
  return { input: input || '', context: context || {} };
}

// answer is the reply to one line, or null for a notification.
function answer(agent, line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    return errorReply(null, -32700, `not JSON: ${e.message}`);
  }
  if (!isObject(req)) return errorReply(null, -32600, 'a request is a JSON object');
  const id = req.id === undefined ? null : req.id;
  if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') {
    return errorReply(id, -32600, 'want {"jsonrpc": "2.0", "method": string, "id"}');
  }
  let reply;
  try {
    reply = { jsonrpc: '2.0', id, result: agent.handle(req.method, req.params) };
  } catch (e) {
    // A bug costs this request, not the agent.
    reply = e instanceof RPCError ? errorReply(id, e.code, e.message) : errorReply(id, -32603, `internal error: ${e.message}`);
  }
  return 'id' in req ? reply : null; // no reply to a notification
}

function errorReply(id, code, message) {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function main() {
  const agent = new Agent();
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (!line.trim()) return;
    const reply = answer(agent, line);
    if (reply !== null) process.stdout.write(JSON.stringify(reply) + '\n');
  });
}

main();
