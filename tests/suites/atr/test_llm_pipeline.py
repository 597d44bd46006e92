"""The whole ATR pipeline with model-backed components, offline: a mock LLM agent asks a
standing-rule question, a mock LLM Router flags it, a mock LLM Classifier maps it to a rule, the
hook delivers the canonical answer through a mock LLM user, the answer lands in the frozen
context, and the agent applies it in the test session. The scorecard is pinned to a golden file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.models import register_script, unregister_script
from longview.suites.atr.scorecard import from_common, to_common

ROOT = Path(__file__).parents[2] / "fixtures/atrbench"
GOLDEN = Path(__file__).parents[2] / "golden/atr/llm_pipeline_scorecard.json"
ASK = "Going forward, should I draft messages for your review before anything is sent?"
ANSWER_MARK = "drafted first"  # words of the persona's canonical answer for the drafting rule


def agent(system, messages, tools):
    names = {t["function"]["name"] for t in tools}
    n = sum(1 for m in messages if m.role == "assistant")
    if "send_to_user" in names:  # learning: ask once, only when the variant invites standing-rule asks
        asks = "A standing rule is" in system and n == 0
        text = "Sure, I will take care of it." + (" " + ASK if asks else "")
        return AssistantTurn(tool_calls=[ToolCall(id=f"a{n}", name="send_to_user", arguments={"output": text, "reason": "reply"})])
    if n == 0 and "draft_message" in names:  # a communication test: draft if the user ever said so
        tool = "draft_message" if ANSWER_MARK in system else "send_message"
        return AssistantTurn(tool_calls=[ToolCall(id="t0", name=tool, arguments={"recipient": "Lena Brooks", "body": "On my way."})])
    return AssistantTurn(tool_calls=[ToolCall(id=f"f{n}", name="finish_session", arguments={})])


def router(system, messages, tools):
    output = json.loads(messages[-1].content)["output"]
    m = re.search(r"Going forward[^?]*\?", output)
    return json.dumps({"is_rule_question": bool(m), "span": m.group(0) if m else None})


def classifier(system, messages, tools):
    payload = json.loads(messages[-1].content)
    hit = next((r["rule_id"] for r in payload["rules"] if "draft" in payload["question"] and "draft" in r["rule_text"]), None)
    return json.dumps({"rule_id": hit})


def user(system, messages, tools):
    return re.search(r"<draft>\n(.*)\n</draft>", messages[-1].content, re.S).group(1)


@pytest.fixture
def scripts():
    fns = {"agent": agent, "router": router, "classifier": classifier, "user": user}
    for k, f in fns.items():
        register_script(f"pipe-{k}", f)
    yield
    for k in fns:
        unregister_script(f"pipe-{k}")


def test_llm_pipeline_matches_golden(scripts, tmp_path):
    opts = RunConfig(suite="atr",
        dataset=f"atrbench:{ROOT}", agents=[], models=["mock/pipe-agent"], variants=["default", "atr", "oracle_target"],
        role_models={"router": "mock/pipe-router", "classifier": "mock/pipe-classifier", "user": "mock/pipe-user"},
        units=1, max_turns=3, out=tmp_path / "run",
    )
    store, sc = harness.run(opts)
    manifest = store.manifest()
    assert manifest.components["router"] == "llm:mock/pipe-router"
    assert manifest.components["classifier"] == "llm:mock/pipe-classifier"
    assert manifest.components["user"] == "llm:mock/pipe-user"
    assert set(manifest.usage["roles"]) == {"agent", "router", "classifier", "user"}
    # The golden file pins atr's typed view, which the common-shape scorecard carries without loss.
    assert to_common(from_common(sc)) == sc
    got = from_common(sc).to_json_dict()
    got["dataset"]["name"] = "atrbench:<fixtures>"  # the path differs between machines
    if os.environ.get("LONGVIEW_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=2) + "\n")
    assert got == json.loads(GOLDEN.read_text())
    row = {r.variant: r for r in from_common(sc).rows}
    # One question per learning session, always the same rule: 22 asks acquire one distinct rule.
    assert row["atr"].metrics.rule_ask == 1.0 and row["atr"].metrics.acq_prec == pytest.approx(1 / 22)
    assert row["atr"].metrics.applied_rate == 1.0 and row["default"].metrics.rule_ask == 0.0
    assert row["atr"].metrics.tsacc == pytest.approx(1 / 11) and row["default"].metrics.tsacc == 0.0
    # The acquired answer reached the test session through the frozen context, via the hook.
    test_trace = (store.root / "cells").glob("mock_pipe-agent__atr__*/cassandra_tovar_communication_01_test.jsonl")
    first = json.loads(next(test_trace).read_text().splitlines()[2])
    assert first["type"] == "assistant_turn" and first["data"]["tool_calls"][0]["name"] == "draft_message"


def test_model_run_with_embedded_judges_says_so_and_marks_negligible_acquisition(scripts, tmp_path):
    """A model agent judged by the embedded Router/Classifier: the scorecard JSON and the printed
    table carry the note, and Table 3 marks rates resting on fewer than 5 acquired rules with †."""
    from rich.console import Console

    from longview.harness.registry import load
    from longview.suites.atr.tables import paper_table

    opts = RunConfig(suite="atr", dataset=f"atrbench:{ROOT}", agents=[], models=["mock/pipe-agent"],
                     variants=["default", "atr", "oracle_target"], units=1, max_turns=3, out=tmp_path / "run")
    store, sc = harness.run(opts)
    suite, manifest = load("atr"), store.manifest()
    data = harness.scorecard_json(sc, manifest, suite)
    assert any("embedded:" in n and "not the paper's" in n for n in data["notes"])
    row = from_common(sc).row("mock/pipe-agent", "atr")
    assert row is not None and row.marks is not None and row.marks.acquired_rules < 5 and row.marks.acq_prec
    console = Console(width=250, record=True)
    console.print(paper_table(from_common(sc)))
    assert "†" in console.export_text()
