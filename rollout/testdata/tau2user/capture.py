"""Captures the requests tau2-bench's own UserSimulator sends to its model, for
rollout/tau2user_test.go (see README.md beside this file).

Run from a checkout of sierra-research/tau2-bench (its src/ and data/), with
docstring_parser (0.16 or later, the one tau2 requires; pure Python) importable,
e.g. its source tree in ./stubs:

    python3 capture.py OUT_DIR

tau2's other third-party imports are stood in for here: litellm, addict,
deepdiff, numpy and httpx are mocks, loguru a no-op, toml is tomllib;
rank_bm25 and openai, which banking_knowledge's retrieval imports (its bm25
configuration is built, never searched: the user side does not use it), are
mocks too. The real docstring_parser matters: tau2 builds the tools'
descriptions and parameter schemas from the docstrings with it.
"""
import json, os, sys, types, importlib.abc, importlib.machinery, tomllib
from unittest import mock
os.environ["TAU2_DATA_DIR"] = os.path.abspath("data")
sys.path[:0] = ["stubs", "src"]
pkg = types.ModuleType("tau2"); pkg.__path__ = ["src/tau2"]; sys.modules["tau2"] = pkg
loguru = types.ModuleType("loguru")
loguru.logger = types.SimpleNamespace(**{n: (lambda *a, **k: None) for n in ("debug", "info", "warning", "error", "exception", "trace", "success", "critical", "add", "remove")})
sys.modules["loguru"] = loguru
toml = types.ModuleType("toml")
toml.load = lambda fp, **k: tomllib.loads(fp.read())
toml.loads = lambda s, **k: tomllib.loads(s)
sys.modules["toml"] = toml
import docstring_parser  # noqa: F401 (fails here, not deep in tau2, when it is missing)
STUB = {"litellm", "addict", "deepdiff", "numpy", "httpx", "rank_bm25", "openai"}
class F(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUB:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = mock.MagicMock(); m.__path__ = []; m.__name__ = spec.name; m.__spec__ = spec; return m
    def exec_module(self, m): pass
sys.meta_path.insert(0, F())

import tau2.utils.llm_utils as lu
from tau2.data_model.message import AssistantMessage, ToolCall
from tau2.data_model.tasks import Task
from tau2.user.user_simulator import UserSimulator

REQUESTS, REPLIES = [], []
def fake_completion(**kw):
    REQUESTS.append({k: kw[k] for k in ("model", "messages", "tools", "tool_choice")} | {"temperature": kw.get("temperature")})
    text, calls = REPLIES.pop(0)
    msg = types.SimpleNamespace(role="assistant", content=text, tool_calls=[
        types.SimpleNamespace(id=i, function=types.SimpleNamespace(name=n, arguments=json.dumps(a))) for i, n, a in calls] or None)
    resp = types.SimpleNamespace(to_dict=lambda: {}, choices=[types.SimpleNamespace(message=msg, finish_reason="stop")])
    return resp
lu.completion = fake_completion
lu.get_response_cost = lambda r: 0.0
lu.get_response_usage = lambda r: None
lu._write_llm_log = lambda *a, **k: None

GREETING = "Hi! How can I help you today?"
def env_of(domain):
    mod = __import__(f"tau2.domains.{domain}.environment", fromlist=["get_environment"])
    if domain == "banking_knowledge":  # a retrieval configuration that needs no network
        return mod.get_environment(retrieval_variant="bm25")
    return mod.get_environment()

def run(domain, task, agent_turns, replies, agent_calls=None):
    """agent_turns: agent texts, in order; replies: per user LLM call (text, [(id, name, args)]);
    agent_calls: {turn index: [(name, args)]}, the agent's tool calls run on env before that turn
    (the user never sees them; they change what the user's tools answer)."""
    env = env_of(domain)
    try:
        tools = env.get_user_tools(include=task.user_tools) or None
    except Exception:
        tools = None
    user = UserSimulator(llm="gpt-4.1-2025-04-14", instructions=str(task.user_scenario), tools=tools,
                         llm_args={"temperature": 0.0})
    state = user.get_init_state()
    REQUESTS.clear(); REPLIES[:] = list(replies)
    results = []
    for n, text in enumerate(agent_turns):
        for name, args in (agent_calls or {}).get(n, []):
            env.get_response(ToolCall(id=f"agent_{n}", name=name, arguments=args, requestor="assistant"))
        msg = AssistantMessage(role="assistant", content=text)
        while True:
            um, state = user.generate_next_message(msg, state)
            if not um.is_tool_call():
                break
            tms = [env.get_response(ToolCall(id=tc.id, name=tc.name, arguments=tc.arguments, requestor="user")) for tc in um.tool_calls]
            results += [{"id": t.id, "content": t.content, "error": t.error} for t in tms]
            msg = tms[0]  # one call per round in these scripts
    return {"domain": domain, "task_id": task.id, "user_scenario": task.user_scenario.model_dump(mode="json"),
            "user_tools": task.user_tools,
            "agent_turns": agent_turns,
            "agent_tool_calls": {str(k): [{"name": n, "arguments": a} for n, a in v] for k, v in (agent_calls or {}).items()},
            "replies": [{"text": t, "tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in c]} for t, c in replies],
            "tool_results": results, "requests": json.loads(json.dumps(REQUESTS))}

def tasks(domain, n):
    return [Task.model_validate(t) for t in json.load(open(f"data/tau2/domains/{domain}/tasks.json"))[:n]]

PLAIN_AGENT = [GREETING, "Sure. Could you give me your user id, please?", "Thank you. Is there anything else?"]
PLAIN_REPLIES = [("I need help with something.", []), ("It is in my instructions.", []), ("###STOP###", [])]
out = []
for d in ("airline", "retail", "mock"):
    for t in tasks(d, 2):
        out.append(run(d, t, PLAIN_AGENT, PLAIN_REPLIES))
TEL_AGENT = [GREETING, "Please look at your status bar and tell me what you see.", "Thanks. Please turn airplane mode off and on again.", "Is it working now?"]
TEL_REPLIES = [("My phone has no service.", []), (None, [("call_u1", "check_status_bar", {})]), ("It shows no signal.", []),
               (None, [("call_u2", "toggle_airplane_mode", {})]), ("Done, I toggled it.", []), ("###TRANSFER###", [])]
for t in tasks("telecom", 2):
    out.append(run("telecom", t, TEL_AGENT, TEL_REPLIES))
# banking_knowledge: tau2 loads its tasks from tasks/task_*.json. task_001: the user applies for a
# card with a user tool (task.user_tools restricts the tools to that one); task_015: the agent gives
# get_referral_link, the user calls it with call_discoverable_user_tool (its only tool).
def bank_task(n):
    return Task.model_validate(json.load(open(f"data/tau2/domains/banking_knowledge/tasks/task_{n}.json")))
BANK_AGENT_1 = [GREETING, "Do you have a Rho-Bank+ subscription?",
                "Then the Gold Rewards Card fits you best: 2.5% cash back on everything, no annual fee.", "Is there anything else?"]
BANK_REPLIES_1 = [("Hi, I'm looking for a credit card for my everyday purchases.", []), ("Yes, I do.", []),
                  (None, [("call_b1", "apply_for_credit_card", {"card_type": "Gold Rewards Card", "customer_name": "Sarah Bosch", "annual_income": 100000, "rho_bank_subscription": True})]),
                  ("I applied for the Gold Rewards Card.", []), ("###STOP###", [])]
out.append(run("banking_knowledge", bank_task("001"), BANK_AGENT_1, BANK_REPLIES_1))
BANK_AGENT_15 = [GREETING, "Could you give me your user ID, please?",
                 "I have given you the get_referral_link tool: call it with your user ID and the card Platinum Rewards Card.",
                 "Is there anything else?"]
BANK_REPLIES_15 = [("Hi, I'd like to refer a friend for a Platinum Rewards Card.", []), ("It's 890389b165.", []),
                   (None, [("call_b2", "call_discoverable_user_tool", {"discoverable_tool_name": "get_referral_link", "arguments": json.dumps({"user_id": "890389b165", "card_name": "Platinum Rewards Card"})})]),
                   ("Done, I have the referral link.", []), ("###STOP###", [])]
out.append(run("banking_knowledge", bank_task("015"), BANK_AGENT_15, BANK_REPLIES_15,
               {2: [("give_discoverable_user_tool", {"discoverable_tool_name": "get_referral_link"})]}))
# telecom's task ids are long: the files take short names
SHORT = {"[mobile_data_issue]user_abroad_roaming_enabled_off[PERSONA:None]": "roaming_enabled_off",
         "[mobile_data_issue]user_abroad_roaming_disabled_on[PERSONA:Easy]": "roaming_disabled_on_easy"}
for c in out:
    os.makedirs(sys.argv[1], exist_ok=True)
    name = SHORT.get(c["task_id"], c["task_id"])
    with open(os.path.join(sys.argv[1], f"{c['domain']}_{name}.json".replace("/", "_")), "w") as f:
        json.dump(c, f, indent=1, ensure_ascii=False); f.write("\n")
print(len(out), "captures")
