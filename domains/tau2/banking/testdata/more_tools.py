"""Writes more_tools_expected.json: tau2's own answers to more_tools_cases.json.

Run by hand where tau2-bench's src/ and pydantic 2 are importable (third-party
packages tau2 imports but these tools never use may be stubs):
    python3 more_tools.py TAU2_DB_JSON > more_tools_expected.json
Each case starts from the fresh database with its agent_data merged in as
addict's update does; each call unlocks the tool and calls it through
call_discoverable_agent_tool, an exception becoming "Error: ..." with error
true as Environment.get_response does. Outputs and database hashes are kept
as SHA-256 only."""
import hashlib, json, os, sys

from tau2.domains.banking_knowledge.data_model import TransactionalDB
from tau2.domains.banking_knowledge.tools import KnowledgeTools


def merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge(dst[k], v)
        else:
            dst[k] = v


def run(case, fresh):
    dump = fresh.model_dump()
    merge(dump, case.get("agent_data") or {})
    tools = KnowledgeTools(TransactionalDB.model_validate(dump))
    out = []
    for call in case["calls"]:
        tools.unlock_discoverable_agent_tool(call["tool"])
        try:
            res, err = tools.call_discoverable_agent_tool(call["tool"], json.dumps(call["arguments"])), False
        except Exception as e:
            res, err = f"Error: {e}", True
        out.append({"tool": call["tool"], "error": err,
                    "content_sha256": hashlib.sha256(res.encode()).hexdigest()})
    return {"name": case["name"], "calls": out, "db_hash": tools.get_db_hash()}


cases = json.load(open(os.path.join(os.path.dirname(__file__), "more_tools_cases.json")))["cases"]
fresh = TransactionalDB.load(sys.argv[1])
json.dump({"cases": [run(c, fresh) for c in cases]}, sys.stdout, indent=1)
print()
