"""Run directories for the report tests: a small real atr run (reference agents and a scripted mock
model on the two fixture personas, one of whose cells aborts), and a hand-written run of a suite
that is not installed (the generic path)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from browserkit import ARGS, CHROMIUM

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.models import register_script, unregister_script
from longview.kernel.models.client import ProviderError

PERSONAS = Path(__file__).parents[1] / "fixtures/atrbench/data/personas"
MODEL = "mock/report-asker"


def asker(system, messages, tools):
    """Asks one question per learning session, then finishes; in test sessions it finishes at once.
    In oracle cells the provider refuses (a non-retryable error): those cells abort."""
    names = {t["function"]["name"] for t in tools}
    if "[Prior statement" in (system or "") + json.dumps([m.content for m in messages]):
        raise ProviderError("the provider refused the request (test)", status=400)
    n = sum(1 for m in messages if m.role == "assistant")
    if "send_to_user" in names and n == 0:
        return AssistantTurn(tool_calls=[ToolCall(id="a", name="send_to_user", arguments={
            "output": "Going forward, is there a standing preference I should remember for this?"})])
    return AssistantTurn(tool_calls=[ToolCall(id=f"f{n}", name="finish_session", arguments={})])


@pytest.fixture(scope="session")
def episodes(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("eps")
    for f in PERSONAS.glob("*/episodes/*.json"):
        shutil.copy(f, d / f.name)
    return d


@pytest.fixture(scope="session")
def atr_run(tmp_path_factory, episodes) -> Path:
    """Reference agents + a scripted model (every model variant) on one persona."""
    out = tmp_path_factory.mktemp("runs") / "atr-a"
    register_script("report-asker", asker)
    try:
        harness.run(RunConfig(suite="atr", dataset=str(episodes), agents=["reference"], models=[MODEL],
                              variants=[], out=out, max_turns=6, units=1, max_attempts=1,
                              cache_dir=tmp_path_factory.mktemp("cache")))
    finally:
        unregister_script("report-asker")
    return out


def _event(seq, sid, type_, clock="2026-01-05T10:00:00", turn=None, **data):
    return json.dumps({"seq": seq, "session_id": sid, "turn": turn, "type": type_, "data": data, "clock": clock})


@pytest.fixture
def generic_run(tmp_path) -> Path:
    """A run of a suite this machine does not have ('madeup'): scorecard, manifest, traces, one aborted cell."""
    root = tmp_path / "madeup-run"
    (root / "cells").mkdir(parents=True)
    manifest = {"suite": "madeup", "package_version": "9.9", "git_commit": "abc123", "created": "2026-01-01T00:00:00+00:00",
                "dataset": {"name": "builtin", "sha256": "f" * 64, "personas": 2},
                "config": {"seed": 3, "max_turns": 5, "models": {"agents": ["mock/x"]}, "options": {}},
                "config_hash": "c" * 64, "components": {"judge": "llm:mock/judge"},
                "usage": {"roles": {"agent": {"calls": 7, "input_tokens": 700, "output_tokens": 70, "cost_usd": 0.5}},
                          "total": {"calls": 7, "input_tokens": 700, "output_tokens": 70, "cost_usd": 0.5}}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    card = {"suite": "madeup", "dataset": {"name": "builtin", "sha256": "f" * 64, "units": 2},
            "metrics": {"helpfulness": {"description": "judged helpful answers", "kind": "judged", "by": "llm:mock/judge"},
                        "latency": {"description": "turns to answer", "kind": "deterministic", "higher_is_better": False}},
            "rows": [{"agent": "ref:floor", "variant": "plain", "metrics": {"helpfulness": 0.1, "latency": 4.0},
                      "ci95": {"helpfulness": [0.0, 0.2], "latency": None}, "n": 2,
                      "per_unit": {"u1": {"helpfulness": 0.0, "latency": 4.0}, "u2": {"helpfulness": 0.2, "latency": 4.0}}},
                     {"agent": "ref:ceiling", "variant": "plain", "metrics": {"helpfulness": 0.9, "latency": 1.0},
                      "ci95": {"helpfulness": [0.8, 1.0], "latency": None}, "n": 2},
                     {"agent": "mock/x", "variant": "plain", "metrics": {"helpfulness": 0.5, "latency": None},
                      "ci95": {"helpfulness": None, "latency": None}, "n": 1, "n_aborted": 1,
                      "abort_reasons": {"u2": "provider said no"},
                      "extra": {"by_topic": {"cooking": 0.25, "travel": 0.75}}}],
            "run": {"package_version": "9.9", "config_hash": "c" * 64, "seed": 3}}
    (root / "scorecard.json").write_text(json.dumps(card))
    cell = root / "cells" / "mock_x__plain__u1"
    cell.mkdir()
    (cell / "result.json").write_text(json.dumps({"agent": "mock/x", "variant": "plain", "unit": "u1", "status": "complete"}))
    lines = [_event(0, "s0", "session_start", phase="test", agent="mock/x", tools=["lookup"]),
             _event(1, "s0", "user_message", text="Where is the <b>station</b>?"),
             _event(2, "s0", "assistant_turn", turn=0, text=None,
                    tool_calls=[{"id": "c1", "name": "lookup", "arguments": {"q": "station"}}]),
             _event(3, "s0", "tool_call", turn=0, call_id="c1", name="lookup", arguments={"q": "station"}, kind="read",
                    ok=False, error="no such place"),
             _event(4, "s0", "judge_verdict", turn=0, verdict="unhelpful", score=0),
             _event(5, "s0", "session_end", clock="2026-01-05T10:04:00", reason="agent_finish", turns=1)]
    (cell / "s0.jsonl").write_text("\n".join(lines) + "\n")
    aborted = root / "cells" / "mock_x__plain__u2"
    aborted.mkdir()
    (aborted / "result.json").write_text(json.dumps({"agent": "mock/x", "variant": "plain", "unit": "u2",
                                                     "status": "aborted", "abort_reason": "provider said no"}))
    return root


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module (skipped tests never start it)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
                              args=ARGS)
        yield b
        b.close()
