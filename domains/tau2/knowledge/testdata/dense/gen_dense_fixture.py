#!/usr/bin/python3
"""Expected dense KB_search results of tau2's embedding pipeline over the
fake embeddings endpoint of proctor's tests.

Run from this directory (it starts the fake, Go's TestServeFakeEmbeddings):

    LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas \\
    PYTHONPATH=<tau2-bench>/src:<dir holding numpy, loguru> \\
        /usr/bin/python3 gen_dense_fixture.py DOCS_DIR ../dense.json

LD_LIBRARY_PATH picks Debian's reference BLAS (libblas3 3.11) under
Debian 12's python3-numpy 1.24.2 (Python 3.11); with OpenBLAS instead the
script still checks that ids and printed scores agree, and says by how
much raw scores differ. The code that ranks and prints is tau2's own
(a2c0247), imported: OpenAIEmbedder, OpenRouterEmbedder, EmbeddingIndexer,
EmbeddingEncoder, CosineRetriever and RetrievalPipeline, configured as
create_embedding_retrieval_pipeline configures them; the text is
_format_kb_search_result's, with a zero timing. The openai package here
is a stand-in for openai-python's embeddings call (tau2-bench's
dependencies cannot be installed here); third-party packages tau2's other
retrieval modules import (rerankers, BM25) are stubbed.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # the openai stand-in

import importlib.abc, importlib.machinery, types  # noqa: E402


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    names = {"pydantic", "rank_bm25", "litellm", "torch", "transformers", "FlagEmbedding"}

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = types.ModuleType(spec.name)
        m.__path__ = []
        m.__getattr__ = lambda name: type(name, (), {})
        return m

    def exec_module(self, module):
        pass


sys.meta_path.append(_Stubs())

# tau2's package __init__ imports its whole runner; its knowledge modules
# need none of it.
_tau2 = types.ModuleType("tau2")
_tau2.__path__ = [os.path.join(p, "tau2") for p in sys.path if os.path.isdir(os.path.join(p, "tau2", "knowledge"))]
sys.modules["tau2"] = _tau2

import numpy as np  # noqa: E402
from tau2.knowledge.pipeline import RetrievalPipeline, RetrievalResult, RetrievalTiming  # noqa: E402


def format_kb_search_result(pipeline, retrieval_result):
    # tau2.domains.banking_knowledge.retrieval_mixins._format_kb_search_result
    results = retrieval_result.results
    timing = retrieval_result.timing
    if not results:
        output = "No relevant documents found."
        output += f"\n\n[Timing: retrieval={timing.retrieval_ms:.0f}ms"
        if timing.postprocessing_ms > 0:
            output += f", reranking={timing.postprocessing_ms:.0f}ms"
        output += f", total={timing.total_ms:.0f}ms]"
        return output
    formatted = []
    for i, (doc_id, score) in enumerate(results, 1):
        title = pipeline.get_document_title(doc_id) or "Untitled"
        content = pipeline.get_document_content(doc_id) or ""
        formatted.append(
            f"{i}. {title}\n"
            f"   ID: {doc_id}\n"
            f"   Score: {score:.4f}\n"
            f"   Content: {content}\n"
        )
    output = "\n".join(formatted)
    output += f"\n\n[Timing: retrieval={timing.retrieval_ms:.0f}ms"
    if timing.postprocessing_ms > 0:
        output += f", reranking={timing.postprocessing_ms:.0f}ms"
    output += f", total={timing.total_ms:.0f}ms]"
    return output


def pipeline(docs, embedder_type, model, top_k):
    # tau2.domains.banking_knowledge.retrieval.create_embedding_retrieval_pipeline
    params = {"model": model}
    p = RetrievalPipeline({
        "document_preprocessors": [{"type": "embedding_indexer",
                                    "params": {"embedder_type": embedder_type, "embedder_params": params}}],
        "input_preprocessors": [{"type": "embedding_encoder",
                                 "params": {"embedder_type": embedder_type, "embedder_params": params}}],
        "retriever": {"type": "cosine", "params": {"top_k": top_k}},
        "postprocessors": [],
    })
    p.index_documents(docs)
    return p


# Synthetic documents whose fake vectors tie: equal texts, the same words
# in another order, texts without words (zero vectors), more than 16 so
# that numpy's argsort partitions.
SYNTHETIC = [
    {"id": f"syn_{i:02d}", "title": f"Synthetic {i}", "text": t}
    for i, t in enumerate([
        "overdraft fee", "fee overdraft", "overdraft fee", "wire transfer fee", "",
        "credit card", "card credit", "overdraft", "fee", "!!!", "wire transfer",
        "transfer wire", "credit card fee", "overdraft fee", "savings account",
        "account savings", "fee overdraft", "credit", "card", "overdraft fee fee",
        "savings", "account", "wire", "transfer", "overdraft fee", "fee overdraft",
        "credit card", "---", "overdraft", "fee",
    ])
]

CASES = [
    # (documents, embedder_type, model, top_k, queries)
    ("banking", "openai", "fake-wide", 10,
     ["overdraft fee", "How do I dispute a credit card charge?", "wire transfer limits for business accounts",
      "zzzz qqqq", "!!!", "  overdraft  ", "Overdraft FEE overdraft"]),
    ("banking", "openai", "fake-wide", 3, ["savings account interest rate"]),
    ("synthetic", "openai", "fake", 10, ["overdraft fee", "credit card", "???", "wire", "fee"]),
    ("synthetic", "openai", "fake", 30, ["overdraft fee", "nothing matches"]),
    ("synthetic", "openrouter", "qwen-fake", 10, ["overdraft fee", "credit card"]),
]


def serve_fake():
    fd, path = tempfile.mkstemp(prefix="fake-embeddings-")
    os.close(fd)
    os.remove(path)
    proc = subprocess.Popen(["go", "test", "-count=1", "-run", "^TestServeFakeEmbeddings$", "."],
                            cwd=os.path.dirname(os.path.dirname(HERE)), env={**os.environ, "KNOWLEDGE_FAKE_EMBEDDINGS": path})
    for _ in range(600):
        if proc.poll() is not None:
            raise SystemExit("the fake embeddings server exited")
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return proc, path, open(path).read()
        time.sleep(0.2)
    raise SystemExit("the fake embeddings server did not start")


def main():
    docs_dir, out = sys.argv[1], os.path.abspath(sys.argv[2])
    banking = []
    for f in sorted(os.listdir(docs_dir)):
        if f.endswith(".json"):
            d = json.load(open(os.path.join(docs_dir, f)))
            banking.append({"id": d["id"], "text": d["content"], "title": d["title"]})
    sets = {"banking": banking, "synthetic": SYNTHETIC}
    proc, flag, url = serve_fake()
    os.environ["OPENAI_BASE_URL"] = url
    os.environ["OPENAI_API_KEY"] = os.environ["OPENROUTER_API_KEY"] = "fixture-key"
    cases = []
    try:
        with tempfile.TemporaryDirectory() as cwd:  # tau2's embeddings cache writes to ./data
            os.chdir(cwd)
            for docs_name, etype, model, top_k, queries in CASES:
                p = pipeline(sets[docs_name], etype, model, top_k)
                for q in queries:
                    try:
                        r = p.retrieve(q, return_timing=True)
                    except ValueError as e:
                        cases.append({"documents": docs_name, "embedder_type": etype, "model": model,
                                      "top_k": top_k, "query": q, "error": str(e)})
                        continue
                    cases.append({
                        "documents": docs_name, "embedder_type": etype, "model": model, "top_k": top_k, "query": q,
                        "hits": [{"id": i, "score": f"{s:.4f}", "raw": s} for i, s in r.results],
                        "text": format_kb_search_result(p, RetrievalResult(results=r.results, timing=RetrievalTiming())),
                    })
    finally:
        os.remove(flag)
        proc.wait()
    blas = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libblas" in l})
    json.dump({
        "generator": "gen_dense_fixture.py: tau2 a2c0247 embedding pipeline, numpy %s, Python %s, %s" % (
            np.__version__, sys.version.split()[0], " ".join(blas) or "no libblas loaded"),
        "synthetic": SYNTHETIC,
        "cases": cases,
    }, open(out, "w"), indent=1, ensure_ascii=False)
    print(f"{len(cases)} cases written to {out}")


if __name__ == "__main__":
    main()
