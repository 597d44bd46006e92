"""A key planted in the environment never reaches a trace, manifest, cell result or scorecard,
even when the agent under test repeats it."""

from __future__ import annotations

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.models import register_script, unregister_script

KEY = "sk-test-PLANTED-0123456789abcdef"


def leaky(system, messages, tools):
    names = {t["function"]["name"] for t in tools}
    n = sum(1 for m in messages if m.role == "assistant")
    if "send_to_user" in names:
        if n == 0:
            return AssistantTurn(text=f"my key is {KEY}", tool_calls=[ToolCall(
                id="a", name="send_to_user", arguments={"output": f"Using key {KEY}. Going forward, any standing rule?", "reason": KEY})])
        return AssistantTurn(tool_calls=[ToolCall(id=f"b{n}", name="send_to_user", arguments={"output": "ok"})])
    if n == 0:
        return AssistantTurn(tool_calls=[ToolCall(id="c", name="search_products", arguments={"category": KEY})])
    return AssistantTurn(tool_calls=[ToolCall(id="d", name="finish_session", arguments={})])


def test_planted_key_is_in_no_output(episodes, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    register_script("leaky", leaky)
    try:
        opts = RunConfig(suite="atr", dataset=str(episodes), models=["mock/leaky"], agents=[], out=tmp_path / "run",
                              units=1, max_turns=4, variants=["atr", "oracle_target"])
        store, sc = harness.run(opts)
        harness.write_json(sc, tmp_path / "out.json", store.manifest())
    finally:
        unregister_script("leaky")
    files = [p for p in tmp_path.rglob("*") if p.is_file() and "eps" not in p.parts]
    assert len(files) > 10
    traces = "".join(p.read_text() for p in files if p.suffix == ".jsonl")
    assert "***" in traces  # the leak happened and was masked
    for p in files:
        assert KEY not in p.read_text(errors="replace"), p


def test_unrelated_token_never_changes_data(episodes, tmp_path, monkeypatch):
    """FOO_TOKEN=test is not a key longview reads: session ids ending in '_test' stay intact."""
    monkeypatch.setenv("FOO_TOKEN", "test")
    monkeypatch.setenv("GITHUB_TOKEN", "communication")  # a word that appears in session ids
    cfg = RunConfig(suite="atr", dataset=str(episodes), agents=["ref:asker"], out=tmp_path / "run", units=1, max_turns=4)
    harness.run(cfg)
    files = [p for p in (tmp_path / "run").rglob("*") if p.is_file()]
    text = "".join(p.read_text() for p in files)
    assert "***" not in text
    assert "_test" in text and "communication" in text
    assert any(p.stem.endswith("_test") for p in files if p.suffix == ".jsonl")
