"""The rubric judge as π-Bench uses it, over HTTP (the loopback server stands in for the judge
model): an item the judge leaves out counts NO and is counted, so omitting one lowers COMP; each
verdict's reason is kept on the criterion; the judge sees the session's tool calls and end state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.suites.intents.suite import IntentsSuite
from longview.testing.loopback import LoopbackServer, text_message

FIXTURE = Path(__file__).parents[2] / "fixtures" / "pibench"


def judge_agent(seen: list[dict[str, Any]]):
    """Says yes to everything; the model named 'omit' leaves the first rubric criterion out."""

    def agent(body: dict[str, Any]) -> dict[str, Any]:
        payload = json.loads(body["messages"][-1]["content"])
        seen.append(payload)
        items = payload.get("criteria") or payload.get("requirements") or []
        ids = [i["id"] for i in items]
        if body["model"] == "omit" and "criteria" in payload:
            ids = ids[1:]
        return text_message(json.dumps({"decisions": [{"id": i, "yes": True, "reason": f"saw {i}"} for i in ids]}))

    return agent


def _run(tmp_path: Path, model: str, seen: list) -> Any:
    with LoopbackServer(agent=judge_agent(seen)).in_thread() as srv:
        cfg = RunConfig(suite="intents", dataset=f"pibench:{FIXTURE}", agents=["ref:literal"],
                        role_models={"judge": f"hosted_vllm/{model}"}, api_base=srv.url, no_cache=True,
                        out=tmp_path / model, max_concurrency=1, retry_base_delay=0.01)
        store, sc = harness.run(cfg)
    return store, sc


def test_a_judge_omitting_an_item_lowers_comp_and_is_counted(tmp_path):
    seen: list[dict[str, Any]] = []
    _, full = _run(tmp_path, "all", seen)
    store, omit = _run(tmp_path, "omit", [])
    a, o = full.rows[0], omit.rows[0]
    assert a.metrics["comp"] is not None and o.metrics["comp"] is not None
    assert o.metrics["comp"] < a.metrics["comp"]
    assert a.extra["judge_missing"] == 0 and o.extra["judge_missing"] == 3  # C1 of each of 3 sessions
    # with a judge model every rubric item is judged: coverage is complete
    assert a.coverage["comp"].judged == a.coverage["comp"].total
    # the verdicts and reasons are kept in the cell result
    text = next((Path(store.root) / "cells").glob("*/result.json")).read_text()
    cell = json.loads(text)
    crit = {k: v for s in cell["sessions"] for k, v in s["criteria"].items() if v["kind"] == "rubric"}
    assert any(v["met"] is False and "left it out" in v["reason"] for v in crit.values())
    assert any(v["met"] is True and v["reason"].startswith("saw C") for v in crit.values())
    # the report's session outcomes show them
    outcomes = IntentsSuite().session_outcomes(text, None)
    assert any(o.outcome == "fail" and "left it out" in o.reason for o in outcomes.values())
    # the rubric judge saw the session's calls and end state, not only the conversation
    rubric = [p for p in seen if "criteria" in p]
    assert rubric and all({"tool_calls", "state_at_session_end", "hidden_requirements"} <= set(p) for p in rubric)
    assert all({"apps", "changed_this_session", "workspace_paths", "files"} <= set(p["state_at_session_end"])
               for p in rubric)
