"""Writes banking_tau2_rewards.json: tau2-bench's own re-grade of proctor's
tau2 export of the banking_knowledge oracle runs.

Run by hand (tau2's data is not committed, nor is anything of it here):
    PROCTOR_TAU2_EXPORT_DIR=/tmp/export go test -run TestBankingOracleRegrades ./evaluation/
    TAU2_DATA_DIR=D PYTHONPATH=TAU2/src:LIBS python3.11 banking_tau2_regrade.py /tmp/export \
        > banking_tau2_rewards.json
where D/tau2/domains/banking_knowledge is tau2's data, TAU2/src tau2-bench's
sources and LIBS holds loguru, dateutil, pandas and numpy (pydantic 2 installed).
For every banking_<config>.json it calls what `tau2 evaluate-trajs` calls,
tau2.scripts.evaluate_trajectories.compute_simulation_rewards, once with the
tasks embedded in the file and once with --fresh-tasks, and writes every
simulation's reward. Disagreements with the exported rewards go to stderr,
with the number of replayed tool calls whose output differs from the one
the export recorded (tau2 re-grades leniently; a live run would fail them).
Third-party packages tau2 imports but this path never calls (LLM clients,
TOML, rank_bm25, openai, ...) are inert stubs; addict, which the database update uses, is a
small Dict with its recursive update. evaluate-trajs builds every banking
environment with tau2's default retrieval configuration (alltools: OpenAI
embeddings of the knowledge base and a shell sandbox needing srt, rg, bwrap
and socat), whatever the run's; the script makes the default the run's own
(info.retrieval_config), as a live run builds it. Retrieval tools touch no
database, and the oracle never searches. The one task judged on NL assertions
(task_102) gets a judge that finds them all met, as in the Go test."""
import importlib.abc
import importlib.machinery
import json
import sys
import types
from pathlib import Path

STUBBED = {"toml", "deepdiff", "docstring_parser", "httpx", "litellm", "rich", "rank_bm25", "openai"}


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


class AddictDict(dict):
    """addict.Dict as tau2 uses it: update merges nested dicts."""

    def __init__(self, data=None):
        super().__init__()
        for k, v in (data or {}).items():
            self[k] = AddictDict(v) if isinstance(v, dict) else v

    def update(self, other):
        for k, v in other.items():
            if isinstance(v, dict) and isinstance(self.get(k), dict):
                self[k].update(v)
            else:
                self[k] = AddictDict(v) if isinstance(v, dict) else v

    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, AddictDict) else v for k, v in self.items()}


sys.meta_path.append(_Finder())
sys.modules["addict"] = types.ModuleType("addict")
sys.modules["addict"].Dict = AddictDict

from tau2.data_model.simulation import Results  # noqa: E402
from tau2.domains.banking_knowledge import environment  # noqa: E402
from tau2.environment import environment as env_module  # noqa: E402
from tau2.evaluator import evaluator_nl_assertions  # noqa: E402
from tau2.scripts.evaluate_trajectories import compute_simulation_rewards  # noqa: E402


def judge_all_met(**kwargs):
    """The NL-assertion judge (an LLM in tau2): every assertion is met, as
    the oracle's judge in proctor's test says."""
    met = {"expectedOutcome": "all", "reasoning": "oracle", "metExpectation": True}
    return types.SimpleNamespace(content=json.dumps({"results": [met]}))


class ReplayDrift:
    """Counts the replayed calls whose output differs from the recorded one
    (evaluate-trajs replays leniently and logs each)."""

    def __init__(self, logger):
        self.logger, self.count = logger, 0

    def warning(self, msg, *args, **kwargs):
        if str(msg).startswith("Replayed tool call"):
            self.count += 1
            return None
        return self.logger.warning(msg, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.logger, name)


def rewards(path, fresh):
    results = Results.load(path)
    evaluator_nl_assertions.generate = judge_all_met
    environment.DEFAULT_RETRIEVAL_VARIANT = results.info.retrieval_config
    drift = env_module.logger = ReplayDrift(env_module.logger)
    results = compute_simulation_rewards(results, fresh_tasks=fresh)
    env_module.logger = drift.logger
    return {s.id: s.reward_info.reward for s in results.simulations}, drift.count


def main(export_dir):
    out = {}
    for path in sorted(Path(export_dir).glob("banking_*.json")):
        config = path.stem.removeprefix("banking_")
        exported = {s.id: s.reward_info.reward for s in Results.load(path).simulations}
        out[config] = {}
        for how, fresh in (("embedded", False), ("fresh", True)):
            got, drift = rewards(path, fresh)
            out[config][how] = got
            differ = sorted(k for k in exported if got.get(k) != exported[k])
            print(f"{config} {how}: {len(got)} simulations, {len(got) - len(differ)} agree, "
                  f"differ: {differ}; replayed outputs unlike the recorded: {drift}", file=sys.stderr)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
