"""`longview rescore` on tempo: TC semantics/completion, TA and TR-J judged again from the world each
run kept, the agent never called. The judges do not steer the run, so an offline run rescored with
judges equals a run made with them; the judges given replace the run's (a second judge too); a run
whose world file is gone is refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.suites.tempo.judge import TA_SYSTEM, TC_SYSTEM, TRJ_SYSTEM
from longview.testing.loopback import LoopbackServer, text_message

runner = CliRunner()
UNIT = "food-mealplan:planner"
TRJ = {"understandability": 5, "technical_competence": 4, "reliability": 3, "personal_attachment": 2, "faith": 3}


def judge_agent(seen: list[dict[str, Any]]):
    """Every request kept. Verdicts quote what they were shown; the model 'low' rates a point lower
    and gives less credit (so a rescore by it changes TC, TR-J and the agreement)."""

    def agent(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        if body["model"] == "agent":  # the model under test: one plain message each time it is woken
            return text_message("Checked the week: the meal plan and the shopping list need a look tonight.")
        low = body["model"] == "low"
        payload = json.loads(body["messages"][-1]["content"])
        if "agent_acts" in payload:
            return text_message(json.dumps({"correctness": 0.5 if low else 1, "grounding": 0.5, "completeness": 1,
                                            "artifact_quality": 0, "quotes": [payload["agent_acts"][0]["tool"]]}))
        if "agent_acts_in_window" in payload:
            acts = payload["agent_acts_in_window"]
            return text_message(json.dumps({"now": bool(acts), "later": not low and bool(acts), "continuation": 1,
                                            "quotes": [acts[0]["tool"]] if acts else []}))
        history = payload["history_you_saw"]
        trj = {k: max(1, v - 1) if low else v for k, v in TRJ.items()}
        return text_message(json.dumps({**trj, "quotes": [history[0][:12]] if history else [], "reason": "seen"}))

    return agent


def _run(out: Path, judges: dict[str, str]) -> Path:
    with LoopbackServer(agent=judge_agent([])).in_thread() as srv:
        cfg = RunConfig(suite="tempo", agents=["ref:oracle"], models=["hosted_vllm/agent"], unit_ids=[UNIT],
                        role_models={r: f"hosted_vllm/{m}" for r, m in judges.items()}, api_base=srv.url,
                        no_cache=True, out=out, max_concurrency=2, retry_base_delay=0.01,
                        suite_options={"repeats": 2})
        harness.run(cfg)
    return out


def _rescore(run: Path, out: Path, judges: dict[str, str], seen: list[dict[str, Any]]) -> Any:
    args = ["rescore", str(run), "--out", str(out), "--no-cache", "--judge-model", f"hosted_vllm/{judges['judge']}"]
    if "judge2" in judges:
        args += ["--role", f"judge2=hosted_vllm/{judges['judge2']}"]
    with LoopbackServer(agent=judge_agent(seen)).in_thread() as srv:
        return runner.invoke(app, [*args, "--api-base", srv.url])


def _rows(run: Path) -> list[dict[str, Any]]:
    return json.loads((run / "scorecard.json").read_text())["rows"]


def _same_rows(a: Path, b: Path) -> None:
    ra, rb = _rows(a), _rows(b)
    assert [r["metrics"] for r in ra] == [r["metrics"] for r in rb]
    assert [r["coverage"] for r in ra] == [r["coverage"] for r in rb]
    assert [r["extra"] for r in ra] == [r["extra"] for r in rb]


@pytest.fixture(scope="module")
def offline(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("tempo-rescore") / "offline", {})


def test_an_offline_run_rescored_by_two_judges_is_the_run_they_would_have_judged(offline: Path, tmp_path: Path):
    before = (offline / "scorecard.json").read_text()
    assert "tr_j" not in json.loads(before)["metrics"]
    seen: list[dict[str, Any]] = []
    judges = {"judge": "ok", "judge2": "low"}
    out = tmp_path / "rescored"
    r = _rescore(offline, out, judges, seen)
    assert r.exit_code == 0, r.output
    # only judge requests: TC, TA and TR-J, never the agent (a model here) nor the user's wording
    assert seen and all(b["model"] in ("ok", "low") for b in seen)
    assert {b["messages"][0]["content"] for b in seen} == {TC_SYSTEM, TA_SYSTEM, TRJ_SYSTEM}
    _same_rows(out, _run(tmp_path / "direct", judges))
    (row, *_) = _rows(out)
    assert row["metrics"]["tr_j"] is not None and row["extra"]["judge_agreement"]["judges"] == [
        "llm:hosted_vllm/ok", "llm:hosted_vllm/low"]
    assert (offline / "scorecard.json").read_text() == before  # the original is kept
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["rescored"]["from"] == str(offline.resolve())
    assert manifest["components"]["judge"] == "embedded:rules+trust-sim+llm:hosted_vllm/ok"
    assert manifest["components"]["judge2"] == "llm:hosted_vllm/low"
    assert manifest["usage"]["roles"]["judge"]["calls"] + manifest["usage"]["roles"]["judge2"]["calls"] == len(seen)


def test_the_judges_given_replace_the_runs_judges(tmp_path: Path):
    two = _run(tmp_path / "two", {"judge": "ok", "judge2": "low"})
    out = tmp_path / "one"
    r = _rescore(two, out, {"judge": "low"}, [])
    assert r.exit_code == 0, r.output
    _same_rows(out, _run(tmp_path / "direct", {"judge": "low"}))
    assert _rows(out)[0]["extra"]["judge_agreement"] is None  # one judge now: no agreement to report
    manifest = json.loads((out / "manifest.json").read_text())
    assert "judge2" not in manifest["components"] and "judge2" not in manifest["config"]["models"]
    assert manifest["config"]["rescored"]["components_before"]["judge2"] == "llm:hosted_vllm/low"
    assert "judge2: llm:hosted_vllm/low -> none" in " ".join(r.output.split())
    # the same judges again reproduce the run (a deterministic judge): nothing else moved
    again = tmp_path / "again"
    assert _rescore(two, again, {"judge": "ok", "judge2": "low"}, []).exit_code == 0
    _same_rows(again, two)


def test_a_run_whose_world_is_gone_is_refused_with_the_reason(offline: Path, tmp_path: Path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(offline, old)
    victim = next((old / "cells").glob("*/r1-run.json"))
    victim.unlink()
    seen: list[dict[str, Any]] = []
    r = _rescore(old, tmp_path / "new", {"judge": "ok"}, seen)
    assert r.exit_code == 2, r.output
    assert "did not keep what tempo's judges read" in r.output and "r1-run.json" in r.output
    assert not (tmp_path / "new").exists()  # nothing half-written


def test_rescore_of_tempo_needs_the_first_judge(offline: Path, tmp_path: Path):
    r = runner.invoke(app, ["rescore", str(offline), "--out", str(tmp_path / "x"), "--role", "judge2=hosted_vllm/ok",
                            "--api-base", "http://127.0.0.1:9"])
    assert r.exit_code == 2 and "needs a judge model" in r.output
    assert not (tmp_path / "x").exists()
