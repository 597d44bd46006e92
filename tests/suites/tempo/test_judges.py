"""Model roles with scripted mock models: a judge fills TC semantics/completion (only with quotes
found in the agent's acts) and rates trust as the second TR-J judge; a user model only words."""

import json

import pytest

from longview.kernel.models.mock import register_script, unregister_script


def judge_script(quote_ok: bool):
    def fn(system, messages, tools):
        payload = json.loads(messages[-1].content)
        if "agent_acts" in payload:
            quote = payload["agent_acts"][0]["tool"] if quote_ok else "words the agent never wrote"
            return json.dumps({"correctness": 1, "grounding": 0.5, "completeness": 1, "artifact_quality": 0, "quotes": [quote]})
        return json.dumps({"understandability": 4, "technical_competence": 4, "reliability": 3,
                           "personal_attachment": 3, "faith": 3, "reason": "ok"})
    return fn


@pytest.fixture
def scripts():
    register_script("tempo-judge-ok", judge_script(True))
    register_script("tempo-judge-bad", judge_script(False))
    register_script("tempo-user", lambda s, m, t: "Sure, that one's fine by me.")
    yield
    for n in ("tempo-judge-ok", "tempo-judge-bad", "tempo-user"):
        unregister_script(n)


def test_judge_fills_judged_components_and_second_trj(tmp_path, run_cells, scripts):
    sc, results = run_cells(["ref:oracle"], ["food-mealplan:planner"], tmp_path,
                            models={"judge": "mock/tempo-judge-ok", "user": "mock/tempo-user"})
    row = sc.rows[0]
    assert row.extra["tc_judged"] == {"semantics": 0.75, "completion": 0.5}
    assert sc.metrics["tc"].kind == "judged" and "llm:mock/tempo-judge-ok" in sc.metrics["tc"].by
    run = json.loads(results[0])["runs"][0]
    assert run["judge"]["tr_j_model"] == pytest.approx(3.4)
    emb = run["judge"]["tr_j_embedded"]
    assert row.metrics["tr_j"] == pytest.approx((emb + 3.4) / 2)  # two judges' mean
    assert row.extra["judge_agreement"]["n"] == len(run["score"]["tasks"])
    assert row.metrics["tr_d"] == 1.0  # the user model's words changed no decision
    trace = "".join(f.read_text() for f in next(tmp_path.iterdir()).glob("a*.jsonl"))
    assert "Sure, that one" in trace and "Approved:" in trace


def test_unverified_quotes_leave_components_not_judged(tmp_path, run_cells, scripts):
    sc, _ = run_cells(["ref:oracle"], ["food-mealplan:planner"], tmp_path, models={"judge": "mock/tempo-judge-bad"})
    assert sc.rows[0].extra["tc_judged"] == {"semantics": None, "completion": None}
    assert sc.rows[0].metrics["tc"] == 1.0  # deterministic components only, never a judged fail
