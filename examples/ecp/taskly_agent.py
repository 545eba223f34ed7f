#!/usr/bin/env python3
"""A rule-based ECP agent for proctor's mock domain (Taskly help desk).

Standard library only. It speaks ECP 0.1.0 as newline-delimited JSON-RPC 2.0
on stdin/stdout (the framing proctor uses by default):

    proctor run --domain mock --agent 'ecp+stdio:python3 examples/ecp/taskly_agent.py'

agent/step answers "paused" with one tool call at a time, or "done" with a
public_output for the user; its reasoning goes to private_thought, which
proctor keeps for white-box review and never shows the user or a judge.
"""
import json
import re
import sys

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
QUOTED = re.compile(r"(?:^|(?<=[\s(]))'([^']+)'(?=[\s.,!?)]|$)")
TASK_ID = re.compile(r"\bT-\d+\b")
PRIORITY = re.compile(r"\b(low|medium|high)\b")
OUT_OF_SCOPE = re.compile(r"refund|charged|billing|close my .*account|delete .*(account|data)|upgrade|downgrade")


class Conversation:
    """The state of one conversation, cleared by agent/reset."""

    def __init__(self):
        self.email = None
        self.user_id = None
        self.tasks = None  # the user's tasks, once listed
        self.ops = []  # what the user asked for, in order
        self.awaiting = None  # "confirm" or "priority"
        self.notes = []  # what to tell the user next
        self.steps = 0

    # --- reading the user -------------------------------------------------
    def on_user(self, text):
        lower = text.lower()
        if self.awaiting == "confirm":
            self.awaiting = None
            op = self.ops.pop(0)
            if re.search(r"\b(no|don't|do not|keep)\b", lower):
                self.notes.append("Okay, I won't delete '%s'; it stays on your list." % op["title"])
            else:
                op["confirmed"] = True
                self.ops.insert(0, op)
            return
        if self.awaiting == "priority":
            m = PRIORITY.search(lower)
            if m:
                self.awaiting = None
                self.ops[0]["priority"] = m.group(1)
            return
        m = EMAIL.search(text)
        if m and self.user_id is None:
            self.email = m.group(0).lower()
        self.ops.extend(parse_ops(text))

    # --- deciding ----------------------------------------------------------
    def next_move(self):
        if self.user_id is None:
            if self.email:
                return call("find_user_by_email", email=self.email)
            return say(self.flush("Could you give me the email address of your Taskly account?"))
        if self.tasks is None and any(op["kind"] in ("status", "delete", "report", "task_id") for op in self.ops):
            return call("list_tasks", user_id=self.user_id)
        while self.ops:
            op = self.ops[0]
            move = self.op_move(op)
            if move is not None:
                return move
        return say(self.flush("Is there anything else I can help you with?"))

    def op_move(self, op):
        kind = op["kind"]
        if kind == "transfer":
            self.ops.pop(0)
            self.pending = op
            summary = "User %s (%s) asks: %s" % (self.user_id, self.email, op["text"])
            return call("transfer_to_human_agents", summary=summary)
        if kind == "plan":
            self.ops.pop(0)
            return call("get_user", user_id=self.user_id)
        if kind == "create":
            if not op.get("priority"):
                self.awaiting = "priority"
                return say(self.flush("What priority should '%s' have: low, medium or high?" % op["title"]))
            self.ops.pop(0)
            self.pending = op
            return call("create_task", user_id=self.user_id, title=op["title"], priority=op["priority"])
        if kind == "report":
            self.ops.pop(0)
            self.notes.append(report(self.tasks, op["filter"]))
            return None
        task = self.find(op)
        if task is None:
            self.ops.pop(0)
            self.notes.append("I can't find %s among your tasks, so I can't change it." % (op.get("task_id") or "'%s'" % op["title"]))
            return None
        op["title"], op["task_id"] = task["title"], task["task_id"]
        if kind == "delete" and not op.get("confirmed"):
            self.awaiting = "confirm"
            return say(self.flush("Do you confirm that I should delete '%s' (%s)? This cannot be undone." % (task["title"], task["task_id"])))
        self.ops.pop(0)
        self.pending = op
        if kind == "delete":
            return call("delete_task", task_id=task["task_id"])
        return call("update_task_status", task_id=task["task_id"], status=op["status"])

    def find(self, op):
        for t in self.tasks or []:
            if op.get("task_id") and t["task_id"] == op["task_id"]:
                return t
            if op.get("title") and t["title"].lower() == op["title"].lower():
                return t
        return None

    # --- reading tool results -----------------------------------------------
    def on_result(self, name, content, error):
        if name == "find_user_by_email":
            if error:
                self.email = None
                self.notes.append("I couldn't find an account with that email.")
            else:
                user = json.loads(content)
                self.user_id = user["user_id"]
                self.notes.append("Thanks, %s, you're verified." % user["name"].split()[0])
            return
        if name == "list_tasks":
            self.tasks = [] if error else json.loads(content).get("tasks", [])
            return
        op = getattr(self, "pending", None) or {}
        self.pending = None
        if error:
            self.notes.append("I couldn't do that: %s" % content)
        elif name == "get_user":
            u = json.loads(content)
            self.notes.append("You're on the %s plan, which allows %d open tasks; you have %d open now."
                              % (u["plan_name"], u["max_open_tasks"], u["open_tasks"]))
        elif name == "create_task":
            t = json.loads(content)
            self.notes.append("I created '%s' (%s) with %s priority." % (t["title"], t["task_id"], t["priority"]))
        elif name == "update_task_status":
            self.notes.append("'%s' is now %s." % (op.get("title"), op.get("status", "").replace("_", " ")))
        elif name == "delete_task":
            self.notes.append("I deleted '%s'." % op.get("title"))
        elif name == "transfer_to_human_agents":
            self.notes.append("I can't handle that myself, so I've transferred you to a human agent who will follow up.")

    def flush(self, question):
        text = " ".join(self.notes + [question])
        self.notes = []
        return text


def parse_ops(text):
    """Reads the requests in a user message, one per clause."""
    lower = text.lower()
    if OUT_OF_SCOPE.search(lower):
        return [{"kind": "transfer", "text": text}]
    ops = []
    if re.search(r"which plan|what plan|how many open tasks does", lower):
        ops.append({"kind": "plan"})
    if re.search(r"how many|not done|which of them", lower):
        ops.append({"kind": "report", "filter": "open"})
    elif re.search(r"in progress\?", lower) and "move" not in lower:
        ops.append({"kind": "report", "filter": "in_progress"})
    for clause in re.split(r",\s*(?:and\s+)?(?:then\s+)?|\s+and then\s+", text):
        op = clause_op(clause)
        if op:
            ops.append(op)
    return ops


def clause_op(clause):
    titles = QUOTED.findall(clause)
    lower = QUOTED.sub(" ", clause).lower()  # keywords outside the titles
    ids = TASK_ID.findall(clause)
    target = {"title": titles[0] if titles else None, "task_id": ids[0] if ids else None}
    if not target["title"] and not target["task_id"]:
        return None
    if re.search(r"\b(add|create|new)\b", lower) and target["title"]:
        m = PRIORITY.search(lower)
        return {"kind": "create", "title": target["title"], "priority": m.group(1) if m else None}
    if re.search(r"\bdelete|remove\b", lower):
        return dict(target, kind="delete")
    status = None
    if "reopen" in lower:
        status = "open"
    elif "in progress" in lower:
        status = "in_progress"
    elif "done" in lower or "finished" in lower:
        status = "done"
    if status:
        return dict(target, kind="status", status=status)
    return None


def report(tasks, filter_):
    if filter_ == "in_progress":
        names = [t["title"] for t in tasks if t["status"] == "in_progress"]
        return "Your tasks in progress: %s." % ", ".join(names) if names else "None of your tasks is in progress."
    open_ = [t for t in tasks if t["status"] != "done"]
    high = [t["title"] for t in open_ if t["priority"] == "high"]
    return "You have %d tasks not done yet; high priority among them: %s." % (len(open_), ", ".join(high) or "none")


# Every step reports its token usage; rules use no model, so it is zero.
NO_TOKENS = {"input": 0, "output": 0}


def call(name, **args):
    return {"status": "paused", "tool_calls": [{"id": "call-1", "name": name, "arguments": args}],
            "private_thought": "calling %s" % name, "usage": NO_TOKENS}


def say(text):
    return {"status": "done", "public_output": text, "private_thought": "answering the user", "usage": NO_TOKENS}


class Agent:
    def __init__(self):
        self.conv = Conversation()

    def handle(self, method, params):
        if method == "agent/initialize":
            return {"name": "taskly-python-example", "protocolVersion": "0.1.0", "capabilities": {}}
        if method == "agent/reset":
            self.conv = Conversation()
            return True
        if method == "agent/step":
            return self.step(step_params(params))
        if method == "agent/inspect":
            if not isinstance(params, dict):
                raise RPCError(-32602, "agent/inspect takes {\"path\": \"...\"}")
            path = params.get("path")
            if path == "steps":
                return {"value": self.conv.steps}
            if path == "user_id":
                return {"value": self.conv.user_id}
            raise RPCError(-32602, "unknown path %r" % path)
        raise RPCError(-32601, "unknown method %s" % method)

    def step(self, params):
        conv = self.conv
        conv.steps += 1
        if params["context"].get("kind") == "tool_results":
            try:
                results = json.loads(params["input"] or "{}").get("tool_results", [])
            except (ValueError, AttributeError):
                raise RPCError(-32602, "a tool_results input must hold {\"tool_results\": [...]}")
            for r in results:
                conv.on_result(r["name"], r["content"], r.get("error"))
        else:
            conv.on_user(params["input"])
        return conv.next_move()


def step_params(params):
    """Checks agent/step's parameters: input a string, context an object."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RPCError(-32602, "agent/step takes {\"input\": string, \"context\": object}")
    text, ctx = params.get("input"), params.get("context")
    if text is not None and not isinstance(text, str):
        raise RPCError(-32602, "agent/step: input must be a string")
    if ctx is not None and not isinstance(ctx, dict):
        raise RPCError(-32602, "agent/step: context must be an object")
    return {"input": text or "", "context": ctx or {}}


class RPCError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def answer(agent, line):
    """The reply to one line, or None for a notification."""
    try:
        req = json.loads(line)
    except ValueError as e:
        return error_reply(None, -32700, "not JSON: %s" % e)
    if not isinstance(req, dict):
        return error_reply(None, -32600, "a request is a JSON object")
    rid = req.get("id")
    if req.get("jsonrpc") != "2.0" or not isinstance(req.get("method"), str):
        return error_reply(rid, -32600, 'want {"jsonrpc": "2.0", "method": string, "id"}')
    try:
        result = agent.handle(req["method"], req.get("params"))
    except RPCError as e:
        reply = error_reply(rid, e.code, e.message)
    except Exception as e:  # a bug costs this request, not the agent
        reply = error_reply(rid, -32603, "internal error: %r" % e)
    else:
        reply = {"jsonrpc": "2.0", "id": rid, "result": result}
    if "id" not in req:
        return None  # a notification
    return reply


def error_reply(rid, code, message):
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def main():
    agent = Agent()
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(agent, line)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
