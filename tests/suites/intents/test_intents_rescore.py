"""`longview rescore` on intents: the rubric items (COMP's judged part) judged again from what each
session kept, the agent and the in-session judges never called; a run made offline can be judged
later; a run from before the rubric input was kept is refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.suites.intents.judge import RUBRIC_ATTEMPTS, RUBRIC_PROMPT
from longview.testing.loopback import LoopbackServer, text_message

FIXTURE = Path(__file__).parents[2] / "fixtures" / "pibench"
runner = CliRunner()


def judge_agent(seen: list[dict[str, Any]]):
    """Every request kept; says yes to everything, except that the model 'omit' leaves each
    session's first rubric criterion out (counted NO and missing)."""

    def agent(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        if body["model"] == "agent":  # the model under test: one plain reply, no tool call
            return text_message("I have looked at it and will take care of it.")
        payload = json.loads(body["messages"][-1]["content"])
        ids = [i["id"] for i in payload.get("criteria") or payload.get("requirements") or []]
        if body["model"] == "omit" and "criteria" in payload:
            ids = ids[1:]
        return text_message(json.dumps({"decisions": [{"id": i, "yes": True, "reason": f"saw {i}"} for i in ids]}))

    return agent


def _run(out: Path, judge: str | None) -> Path:
    with LoopbackServer(agent=judge_agent([])).in_thread() as srv:
        cfg = RunConfig(suite="intents", dataset=f"pibench:{FIXTURE}", agents=["ref:literal", "ref:oracle"], models=["hosted_vllm/agent"],
                        role_models={"judge": f"hosted_vllm/{judge}"} if judge else {}, api_base=srv.url,
                        no_cache=True, out=out, max_concurrency=1, retry_base_delay=0.01)
        harness.run(cfg)
    return out


def _rescore(run: Path, out: Path, judge: str, seen: list[dict[str, Any]]) -> Any:
    with LoopbackServer(agent=judge_agent(seen)).in_thread() as srv:
        return runner.invoke(app, ["rescore", str(run), "--judge-model", f"hosted_vllm/{judge}", "--api-base",
                                   srv.url, "--out", str(out), "--no-cache"])


def _rows(run: Path) -> list[dict[str, Any]]:
    return json.loads((run / "scorecard.json").read_text())["rows"]


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("intents-rescore") / "all", "all")


def test_rescore_asks_only_the_rubric_judge_and_equals_a_run_with_that_judge(judged_run: Path, tmp_path: Path):
    direct = _run(tmp_path / "omit", "omit")
    before = (judged_run / "scorecard.json").read_text()
    seen: list[dict[str, Any]] = []
    out = tmp_path / "rescored"
    r = _rescore(judged_run, out, "omit", seen)
    assert r.exit_code == 0, r.output
    # only rubric requests: no agent turn, no satisfaction or targeted-question judge
    assert seen and all(b["model"] == "omit" and b["messages"][0]["content"] == RUBRIC_PROMPT for b in seen)
    cells = [json.loads(p.read_text()) for p in (judged_run / "cells").glob("*/result.json")]
    # 'omit' leaves an item out of every answer: each session is asked RUBRIC_ATTEMPTS times
    assert len(seen) == RUBRIC_ATTEMPTS * sum(s["rubric_input"] is not None for c in cells for s in c["sessions"])
    # the in-session judges did not depend on the rubric judge: the rescore is the run 'omit' made
    new, want = _rows(out), _rows(direct)
    assert [x["metrics"] for x in new] == [x["metrics"] for x in want]
    assert [x["coverage"] for x in new] == [x["coverage"] for x in want]
    # 'omit' left out one rubric item per session (3 sessions); the rule-guided ceiling has no rubric judgment
    missing = {x["agent"]: x["extra"]["judge_missing"] for x in new}
    assert missing == {x["agent"]: x["extra"]["judge_missing"] for x in want}
    assert missing == {"ref:literal": 3, "ref:oracle": 0, "hosted_vllm/agent": 3}
    old = {x["agent"]: x["metrics"]["comp"] for x in _rows(judged_run)}
    assert all(x["metrics"]["comp"] < old[x["agent"]] for x in new if x["agent"] != "ref:oracle")
    assert (judged_run / "scorecard.json").read_text() == before  # the original is kept
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["rescored"]["from"] == str(judged_run.resolve())
    assert manifest["config"]["rescored"]["components_before"] == {"rubric": "llm:hosted_vllm/all"}
    # the rubric is the new judge's; the intent judges that steered the user stay the original's
    assert manifest["components"]["rubric"] == "llm:hosted_vllm/omit"
    assert manifest["components"]["judge"] == "llm:hosted_vllm/all"
    assert "rubric: llm:hosted_vllm/all -> llm:hosted_vllm/omit" in " ".join(r.output.split())  # what changed, said
    assert manifest["usage"]["roles"]["judge"]["calls"] >= len(seen)


def test_a_run_made_offline_is_judged_by_rescore(tmp_path: Path):
    offline = _run(tmp_path / "offline", None)
    rows = _rows(offline)
    rows = [r for r in rows if r["agent"] != "ref:oracle"]  # the ceiling: scored on rule criteria only
    assert len(rows) == 2 and all(r["coverage"]["comp"]["judged"] < r["coverage"]["comp"]["total"] for r in rows)
    seen: list[dict[str, Any]] = []
    r = _rescore(offline, tmp_path / "judged", "all", seen)
    assert r.exit_code == 0, r.output
    assert seen and all(b["messages"][0]["content"] == RUBRIC_PROMPT for b in seen)
    judged = [r for r in _rows(tmp_path / "judged") if r["agent"] != "ref:oracle"]
    for row, new in zip(rows, judged, strict=True):
        assert new["coverage"]["comp"]["judged"] == new["coverage"]["comp"]["total"]  # the rubric items are judged
        assert new["metrics"]["proc"] == row["metrics"]["proc"]  # PROC is the in-session judges': not re-judged
        assert new["extra"]["judge_missing"] == 0
    scorecard = json.loads((tmp_path / "judged" / "scorecard.json").read_text())
    assert scorecard["metrics"]["comp"]["kind"] == "judged" and "llm:hosted_vllm/all" in scorecard["metrics"]["comp"]["by"]


def test_a_run_without_the_rubric_input_is_refused_with_the_reason(judged_run: Path, tmp_path: Path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(judged_run, old)
    for p in (old / "cells").glob("*/result.json"):  # as a run made before longview kept the input
        cell = json.loads(p.read_text())
        for s in cell["sessions"]:
            s.pop("rubric_input", None)
            s.pop("rubric_missing", None)
        p.write_text(json.dumps(cell))
    seen: list[dict[str, Any]] = []
    r = _rescore(old, tmp_path / "new", "all", seen)
    assert r.exit_code == 2, r.output
    assert "did not keep what the rubric judge reads" in r.output
    assert not (tmp_path / "new").exists()  # nothing half-written
