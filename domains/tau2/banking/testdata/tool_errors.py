"""Writes tool_errors_expected.json: tau2's own answers to tool_errors_cases.json.

Run by hand (nothing of tau2's is committed):
    PYTHONPATH=TAU2/src:LIBS python3.11 tool_errors.py TAU2_DB_JSON > tool_errors_expected.json
where TAU2/src is tau2-bench's sources and LIBS holds loguru, dateutil and
numpy (pydantic 2 installed); the third-party packages tau2 imports but this
path never calls are inert stubs (below). Each case starts from the fresh
database with its agent_data merged in as addict's update does, then makes its
tool calls through tau2's own Environment.get_response, exactly as a live run
does: the content and error flag of every ToolMessage, and the final database
hash. Unlike more_tools.py nothing is unlocked first: a case unlocks what it
means to (or calls a discoverable tool by its own name). Outputs are kept as
SHA-256 only, except those that begin "Error:", kept whole."""
import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
import types

STUBBED = {"toml", "deepdiff", "docstring_parser", "httpx", "litellm", "rich", "rank_bm25", "openai", "addict"}


class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        cls = type(name, (), {"__init__": lambda self, *a, **k: None,
                              "__call__": lambda self, *a, **k: None,
                              "__class_getitem__": classmethod(lambda c, i: c)})
        setattr(self, name, cls)
        return cls


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _Stub(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


sys.meta_path.append(_Finder())

from tau2.data_model.message import ToolCall  # noqa: E402
from tau2.domains.banking_knowledge.data_model import TransactionalDB  # noqa: E402
from tau2.domains.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools  # noqa: E402
from tau2.environment.environment import Environment  # noqa: E402


def merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge(dst[k], v)
        else:
            dst[k] = v


def run(case, fresh):
    dump = fresh.model_dump()
    merge(dump, case.get("agent_data") or {})
    db = TransactionalDB.model_validate(dump)
    env = Environment(domain_name="banking_knowledge", policy="", tools=KnowledgeTools(db),
                      user_tools=KnowledgeUserTools(db))
    out = []
    for i, call in enumerate(case["calls"]):
        msg = env.get_response(ToolCall(id=str(i), name=call["name"], arguments=call["arguments"],
                                        requestor=call.get("requestor", "assistant")))
        res = {"name": call["name"], "error": msg.error}
        if msg.content.startswith("Error:"):
            res["content"] = msg.content
        else:
            res["content_sha256"] = hashlib.sha256(msg.content.encode()).hexdigest()
        out.append(res)
    return {"name": case["name"], "calls": out, "db_hash": env.get_db_hash()}


cases = json.load(open(os.path.join(os.path.dirname(__file__), "tool_errors_cases.json")))["cases"]
fresh = TransactionalDB.load(sys.argv[1])
json.dump({"cases": [run(c, fresh) for c in cases]}, sys.stdout, indent=1)
print()
