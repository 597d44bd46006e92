"""Memory systems as the paper runs them, each disclosed: Mem0 with its LLM extraction when a
model is given for the memory role (a loopback server sees the requests), a plain store offline;
simple RAG over raw messages with BM25 or a named dense embedding."""

import asyncio
import importlib.util
import json
import os

import pytest

import longview.memory.mem0  # noqa: F401  sets MEM0_TELEMETRY=False before mem0 is imported
from longview.harness.roles import Roles
from longview.kernel.agent import Message
from longview.memory import registry
from longview.memory.rag import RagMemory
from longview.suites.prefs.suite import PrefsSuite, memory_disclosure
from longview.testing.loopback import LoopbackServer, text_message

from .conftest import make_ctx

# .ci/run installs the mem0 extra and sets LONGVIEW_REQUIRE_MEM0=1: there a missing extra is a failure.
if importlib.util.find_spec("mem0") is None:
    if os.environ.get("LONGVIEW_REQUIRE_MEM0") == "1":
        raise RuntimeError("LONGVIEW_REQUIRE_MEM0=1 but the mem0 extra is not installed: pip install -e '.[mem0]'")
    needs_mem0 = pytest.mark.skip(reason="the mem0 extra is not installed (pip install -e '.[mem0]'; CI requires it)")
else:
    needs_mem0 = pytest.mark.skipif(False, reason="the mem0 extra is installed")  # a no-op mark


def extractor(body):
    """Answers Mem0's extraction prompt as a model would: one memory per call, from the new messages."""
    text = " ".join(str(m.get("content") or "") for m in body.get("messages") or [])
    new = text.split("New Messages", 1)[-1].strip().split("\n\n", 1)[0]
    return text_message(json.dumps({"memory": [{"text": f"User said something about: {new[:120]}"}]}))


def _session(i: int, request: str, reaction: str) -> list[Message]:
    return [Message(role="user", content=request), Message(role="assistant", content=f"answer {i}"),
            Message(role="user", content=reaction)]


@needs_mem0
def test_mem0_runs_its_llm_extraction_against_the_memory_model():
    with LoopbackServer(agent=extractor, latency=0.0).in_thread() as server:
        m = registry.create("mem0", user_id="u1", llm={"model": "x", "base_url": server.url, "api_key": "k"})
        try:
            m.observe("s1", _session(1, "when is the budget review", "That's a lot to wade through."), when="2026-01-02 work")
            m.observe("s2", _session(2, "book a table", "Thanks"), when="2026-01-03 personal")
            assert server.stats.requests >= 2  # Mem0's own extraction calls reached the model
            hits = m.search("budget review")
            assert hits and all(h.startswith("User said something about") for h in hits)  # extracted, not raw
            assert memory_disclosure(m).startswith("mem0; LLM extraction (x)")
        finally:
            m.close()


@needs_mem0
def test_mem0_offline_says_it_is_a_plain_store():
    m = registry.create("mem0", user_id="u1")
    try:
        assert "plain store (infer=False, no LLM)" in memory_disclosure(m)
        assert "offline feature hashing" in memory_disclosure(m)
    finally:
        m.close()


@needs_mem0
def test_a_memory_model_reaches_mem0_through_the_suite(tmp_path):
    suite = PrefsSuite()
    with LoopbackServer(agent=extractor, latency=0.0).in_thread() as server:
        roles = Roles({"memory": "hosted_vllm/extractor"}, api_base=server.url, no_cache=True)
        comps = suite.components(roles, suite.Options())
        assert comps.memory_llm == {"model": "extractor", "base_url": server.url, "api_key": ""}
        ctx = make_ctx(tmp_path, "ref:reader", "mem0", components=comps)
        ctx.roles = roles  # the run's ledger: Mem0's own calls are counted under the memory role
        journal: list[dict] = []  # what a run store appends to usage.jsonl
        roles.ledger.journal = journal.append
        res = asyncio.run(suite.run_cell(ctx))
        assert server.stats.requests >= 99  # one extraction per accumulation / change session at least
        counted = roles.ledger.role("memory")
        assert counted.calls == server.stats.requests  # every request the server saw, and nothing else
        assert sum(e.get("calls", 0) for e in journal if e["role"] == "memory") == server.stats.requests
        assert counted.input_tokens > 0 and counted.output_tokens > 0
    assert res.memory_info.startswith("mem0; LLM extraction (extractor)")
    sc = suite.score([res.model_dump_json()], ctx.dataset, suite.Options(), seed=0)
    assert sc.extra["memory_systems"]["mem0"] == [res.memory_info]


class WordCount:
    """A stand-in dense embedding (LangChain's interface): counts of a few words."""

    WORDS = ("budget", "review", "table", "book", "wade")

    def embed_documents(self, texts):
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text):
        return [float(text.lower().count(w)) + 0.01 for w in self.WORDS]


def test_rag_documents_are_raw_messages_and_a_dense_embedding_can_rank_them():
    m = RagMemory(embedding="tests.suites.prefs.test_memory_systems:WordCount")
    m.observe("s1", _session(1, "when is the budget review", "That's a lot to wade through."), when="2026-01-02 work")
    assert len(m.docs) == 3 and all(d.startswith("[2026-01-02 work]\n") for d in m.docs)
    assert m.search("budget review")[0].endswith("user: when is the budget review")
    assert m.retrieval == "dense embedding tests.suites.prefs.test_memory_systems:WordCount"
    assert RagMemory().retrieval == "BM25 (bm25s)"
    assert memory_disclosure(RagMemory()) == "rag; BM25 (bm25s)"
