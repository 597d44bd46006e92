import pytest

from longview.kernel.agent import Message, ToolCall
from longview.kernel.errors import ConfigError
from longview.memory import registry
from longview.memory.rag import RagMemory
from longview.memory.simple import FileMemory, NoMemory, OracleMemory


def session(i, text, reaction):
    return [Message(role="user", content=text),
            Message(role="assistant", tool_calls=[ToolCall(id="c", name="set_verbosity", arguments={"setting": "detailed"})]),
            Message(role="tool", content='{"ok": true}', tool_call_id="c", name="set_verbosity"),
            Message(role="assistant", content=f"answer {i}"),
            Message(role="user", content=reaction)]


def test_registry_builtins_and_unknown():
    assert {"none", "file", "rag", "oracle", "mem0"} <= set(registry.available())
    assert isinstance(registry.create("none"), NoMemory)
    assert isinstance(registry.create("file", embedding="ignored"), FileMemory)
    with pytest.raises(ConfigError, match="unknown memory system"):
        registry.create("nope")


def test_file_memory_tools_and_fork():
    m = FileMemory()
    tools = m.tools()
    assert tools.call("memory_append", {"text": "- prefers short answers at work"}).ok
    assert "short answers" in m.context()
    f = registry.fork(m)
    f.tools().call("memory_write", {"content": "rewritten"})
    assert "short answers" in m.text and f.text == "rewritten"
    m.restore("x")
    assert m.snapshot() == "x"


def test_file_memory_context_budget():
    m = FileMemory()
    m.text = "\n".join(f"- note {i} " + "x" * 80 for i in range(400))
    ctx = m.context()
    assert len(ctx) <= 4000 * 4 + 200 and "call memory_read" in ctx
    assert m.tools().call("memory_read", {}).output["content"] == m.text


def test_rag_top10_budget_and_relevance():
    m = RagMemory()
    for i in range(30):
        m.observe(f"s{i}", session(i, f"question about the budget review {i}" if i % 3 == 0 else f"book a table {i}",
                                   "That's a lot to wade through."), when=f"2026-01-{i + 1:02d} work")
    hits = m.search("when is the budget review")
    assert 0 < len(hits) <= 10
    assert all("budget review" in h for h in hits)
    assert sum(len(h) // 4 for h in hits) <= 4000
    snap = m.snapshot()
    f = registry.fork(m)
    f.observe("new", session(99, "budget review again", "ok"))
    assert m.snapshot() == snap


def test_oracle_memory():
    m = OracleMemory()
    m.set_current("Target: set_verbosity = terse")
    assert m.context("anything") == "Target: set_verbosity = terse"


def test_mem0_offline_if_installed():
    import longview.memory.mem0  # noqa: F401  sets MEM0_TELEMETRY=False before mem0 is imported

    pytest.importorskip("mem0")
    pytest.importorskip("langchain_core")
    m = registry.create("mem0", user_id="u1")
    try:
        m.observe("s1", session(1, "when is the budget review", "thanks"), when="2026-01-02 work")
        m.observe("s2", session(2, "book a table at Juniper", "thanks"), when="2026-01-03 personal")
        hits = m.search("budget review")
        assert hits and "budget review" in hits[0]
        assert m.snapshot() and registry.fork(m) is m
    finally:
        m.close()


def test_transcript_memory_is_dated_and_forks():
    m = registry.create("transcript")
    m.observe("s1", session(1, "when is the budget review", "thanks"), when="2026-01-02 work")
    assert m.context().startswith("[2026-01-02 work]\n[Session 1]")
    f = registry.fork(m)
    f.observe("s2", session(2, "again", "ok"), when="2026-01-03 work")
    assert "again" not in m.context()


def test_rag_forks_share_one_up_to_date_index():
    """A burst of probes forks the same memory: the index is built once in the parent, not once per
    fork, and every fork ranks as a memory built from scratch would."""
    m = RagMemory()
    for i, text in enumerate(["keep summaries short", "formal tone at work", "bullet lists please"]):
        m.observe(f"s{i}", [Message(role="user", content=text)])
    forks = [m.fork() for _ in range(4)]
    assert all(f._index is m._index is not None for f in forks)
    fresh = RagMemory()
    fresh.docs = list(m.docs)
    assert [f.search("tone at work") for f in forks] == [fresh.search("tone at work")] * 4
    assert all(f._index is m._index for f in forks)  # searching a fork built nothing new
