"""Model judges with scripted mock models and the loopback server: TC semantics/completion, the TA
verdict and TR-J (five constructs per judge, Eq. 8) are used only when their quotes are found in
what the judge was shown; an unusable verdict is retried, then counted as a judge failure and left
out — never replaced by a rule score under the judged label. Offline there is no TR-J at all."""

import json

import pytest

from longview.kernel.models.mock import register_script, unregister_script

TRJ = {"understandability": 5, "technical_competence": 4, "reliability": 3, "personal_attachment": 2, "faith": 3}


def judge_script(mode: str, trj=TRJ):
    """ok: quotes taken from the payload; bad: quotes nobody wrote; empty: no quotes at all."""
    def fn(system, messages, tools):
        payload = json.loads(messages[-1].content)
        if "agent_acts" in payload:
            quote = {"ok": payload["agent_acts"][0]["tool"], "bad": "words the agent never wrote", "empty": ""}[mode]
            return json.dumps({"correctness": 1, "grounding": 0.5, "completeness": 1, "artifact_quality": 0,
                               "quotes": [quote] if quote else []})
        if "agent_acts_in_window" in payload:
            acts = payload["agent_acts_in_window"]
            quote = {"ok": acts[0]["tool"] if acts else "", "bad": "never said", "empty": ""}[mode]
            return json.dumps({"now": True, "later": True, "continuation": 1, "quotes": [quote] if quote else []})
        history = payload["history_you_saw"]
        quote = {"ok": history[0][:12] if history else "", "bad": "never happened", "empty": ""}[mode]
        return json.dumps({**trj, "quotes": [quote] if quote else [], "reason": "seen"})
    return fn


@pytest.fixture
def scripts():
    names = {"tempo-judge-ok": judge_script("ok"), "tempo-judge-bad": judge_script("bad"),
             "tempo-judge-empty": judge_script("empty"),
             "tempo-judge-ok2": judge_script("ok", {k: v - 1 if v > 1 else v for k, v in TRJ.items()}),
             "tempo-user": lambda s, m, t: "Sure, that one's fine by me."}
    for n, f in names.items():
        register_script(n, f)
    yield
    for n in names:
        unregister_script(n)


def test_offline_scorecard_has_no_tr_j_and_no_paper_tc(tmp_path, run_cells):
    sc, results = run_cells(["ref:oracle"], ["food-mealplan:planner"], tmp_path)
    assert "tr_j" not in sc.metrics and "tc" not in sc.metrics
    assert {"tc_rules", "ta", "tr_d", "trust_sim", "interruptions"} <= set(sc.metrics)
    assert "tr_j" not in sc.rows[0].metrics
    assert json.loads(results[0])["runs"][0]["score"]["tr_j"] is None


def test_judge_fills_tc_ta_and_trj_with_per_construct_ratings(tmp_path, run_cells, scripts):
    sc, results = run_cells(["ref:oracle"], ["food-mealplan:planner"], tmp_path,
                            models={"judge": "mock/tempo-judge-ok", "user": "mock/tempo-user"})
    row = sc.rows[0]
    assert {"tc", "tr_j", "tc_rules"} <= set(sc.metrics)
    assert sc.metrics["tc"].kind == "judged" and "llm:mock/tempo-judge-ok" in sc.metrics["tc"].by
    assert sc.metrics["ta"].kind == "judged" and sc.metrics["ta"].by == "llm:mock/tempo-judge-ok"
    assert row.extra["tc_judged"] == {"semantics": 0.75, "completion": 0.5}
    assert row.metrics["tr_j"] == pytest.approx(sum(TRJ.values()) / 5)  # Eq. 8 with one judge
    run = json.loads(results[0])["runs"][0]
    rated = [t for t in run["score"]["tasks"] if t["trj_ratings"]]
    assert rated and all(t["trj_ratings"]["llm:mock/tempo-judge-ok"] == {k: float(v) for k, v in TRJ.items()} for t in rated)
    assert run["score"]["ta"]["by"] == "llm:mock/tempo-judge-ok"
    assert run["score"]["judge_failures"] == {}
    assert row.metrics["tr_d"] == 1.0  # the user model's words changed no decision
    trace = "".join(f.read_text() for f in next(tmp_path.iterdir()).glob("a*.jsonl"))
    assert "Sure, that one" in trace and "Approved:" in trace


@pytest.mark.parametrize("mode", ["bad", "empty"])
def test_unverified_verdicts_are_counted_not_used(tmp_path, run_cells, scripts, mode):
    sc, results = run_cells(["ref:oracle"], ["food-mealplan:planner"], tmp_path, models={"judge": f"mock/tempo-judge-{mode}"})
    row = sc.rows[0]
    assert row.extra["tc_judged"] == {"semantics": None, "completion": None}
    run = json.loads(results[0])["runs"][0]["score"]
    worked = [t for t in run["tasks"] if t["expected"] != "noop" and t["acts"]]
    assert worked and all(t["tc"] is None for t in worked)  # unjudged, not the rule score under the judged label
    assert run["ta"] is None and run["ta_rules"]["ta"] == 1.0  # the rule verdict is kept apart
    assert all(t["tr_j"] is None for t in run["tasks"])
    fails = run["judge_failures"][f"llm:mock/tempo-judge-{mode}"]
    assert fails == len(worked) + 1 + len(run["tasks"])  # every TC, the TA and every TR-J verdict
    assert row.extra["judge_failures"] == {f"llm:mock/tempo-judge-{mode}": fails}
    assert row.metrics["tr_j"] is None and row.metrics["ta"] is None


def test_two_judges_agreement_as_the_paper_reports_it(tmp_path, run_cells, scripts):
    sc, results = run_cells(["ref:oracle", "ref:always-execute"], ["food-mealplan:planner", "shopping-monitor:reviewer"],
                            tmp_path, models={"judge": "mock/tempo-judge-ok", "judge2": "mock/tempo-judge-ok2"})
    row = sc.row("ref:oracle", "default")
    agr = row.extra["judge_agreement"]
    assert agr["judges"] == ["llm:mock/tempo-judge-ok", "llm:mock/tempo-judge-ok2"]
    assert agr["tr_j"]["n"] == 2 and agr["tr_j"]["mae"] == pytest.approx(1.0) and agr["tr_j"]["delta"] == pytest.approx(-1.0)
    assert set(agr["tc"]) >= {"pearson", "spearman", "mae", "delta"}
    assert agr["ta"]["agreement"] == 1.0 and set(agr["ta"]) >= {"kappa", "rate_first", "rate_second", "delta"}
    both = (sum(TRJ.values()) + sum(v - 1 if v > 1 else v for v in TRJ.values())) / 10
    assert row.metrics["tr_j"] == pytest.approx(both)  # Eq. 8: mean over judges and constructs


def test_trj_judge_sees_what_the_user_said_and_saw(builtin):
    from tempo_probes import run_world

    from longview.suites.tempo.agents import ReferenceAgent
    from longview.suites.tempo.judge import visible_history

    sc = builtin.by_id["shopping-monitor"]
    w = run_world(sc, "operator", ReferenceAgent("always-execute", sc, "operator"))
    text = "\n".join(visible_history(w, sc.end))
    revoked = next(e for e in sc.events if e.persona_text.get("operator"))
    assert revoked.persona_text["operator"][:40] in text  # the Operator's own revocation
    assert "you (feedback)" in text and "agent changed:" in text


def test_loopback_judge_quotes_not_in_acts_are_counted(tmp_path, run_cells):
    """A real HTTP judge (the loopback server) answering with invented quotes: counted, not used."""
    from longview.testing.loopback import LoopbackServer

    def judge(body):
        payload = json.loads(body["messages"][-1]["content"])
        if "agent_acts" in payload:
            return {"content": json.dumps({"correctness": 1, "grounding": 1, "completeness": 1, "artifact_quality": 1,
                                           "quotes": ["an invented quote"]})}
        if "agent_acts_in_window" in payload:
            return {"content": json.dumps({"now": True, "later": True, "continuation": 1, "quotes": ["invented"]})}
        h = payload["history_you_saw"]
        return {"content": json.dumps({**TRJ, "quotes": [h[0][:10]] if h else [], "reason": "r"})}

    with LoopbackServer(latency=0.0, agent=judge).in_thread() as server:
        sc, results = run_cells(["ref:oracle"], ["food-mealplan:reviewer"], tmp_path, models={"judge": "hosted_vllm/judge"},
                                api_base=server.url)
    run = json.loads(results[0])["runs"][0]["score"]
    assert run["judge_failures"]["llm:hosted_vllm/judge"] >= 2
    assert sc.rows[0].metrics["tr_j"] == pytest.approx(sum(TRJ.values()) / 5)  # TR-J quotes were real
    assert all(t["trj_ratings"]["llm:hosted_vllm/judge"] == {k: float(v) for k, v in TRJ.items()} for t in run["tasks"])
    assert sc.rows[0].extra["tc_judged"] == {"semantics": None, "completion": None}

