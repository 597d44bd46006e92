"""Agents that do no real work score PSA at the floor (issue 23): pasting the request back, stating
every option, asking about everything. The floor is 0 for an agent that makes no choice, and the
memoryless fixed-choice level (``ref:habits``) for one that only asks: the user's answers carry no
preference, so asking cannot stand in for memory."""

import asyncio

import pytest

from longview.suites.prefs.dataset import builtin
from longview.suites.prefs.suite import PrefsOptions, PrefsSuite

from .conftest import make_ctx
from .prefs_probes import AskEverythingPA, EchoPA, EchoRespondPA, EveryOptionPA


def run(tmp_path, make, memory="none", unit="user_a"):
    suite = PrefsSuite()
    ud = builtin().get(unit)
    scenes = {s.sid: s for s in ud.sessions + ud.final_probes + ud.pre_probes}
    agent = make(scenes)
    ctx = make_ctx(tmp_path, agent.name, memory, unit, agent=agent)
    res = asyncio.run(suite.run_cell(ctx))
    sc = suite.score([res.model_dump_json()], builtin(), PrefsOptions(), seed=0)
    return sc.rows[0], res


@pytest.mark.parametrize("make", [lambda s: EchoPA(), EchoRespondPA, EveryOptionPA], ids=["echo", "echo-respond", "every-option"])
def test_no_choice_scores_at_zero(tmp_path, make):
    row, res = run(tmp_path, make, memory="file")
    m = row.metrics
    assert m["psa"] == 0 and m["cs"] == 0 and m["pet"] == 0 and m["carry_over"] == 0
    assert m["brs"] == 1 and m["prs"] == 1
    assert all(p.capability_failure for p in res.probes)
    assert row.extra["counts"]["capability_failures"] == len(res.probes) == 33


def test_asking_about_everything_gains_nothing(tmp_path):
    habits, _ = run(tmp_path / "h", lambda s: __import__("longview.suites.prefs.agents", fromlist=["HabitsPA"]).HabitsPA(s))
    ask, res = run(tmp_path / "a", AskEverythingPA, memory="file")
    # it does choose, so it is not a capability failure; but no better than a fixed choice
    assert not any(p.capability_failure for p in res.probes)
    assert ask.metrics["psa"] <= habits.metrics["psa"]
    assert ask.metrics["cs"] <= habits.metrics["cs"] and ask.metrics["pet"] <= habits.metrics["pet"]
    assert ask.extra["leakage"]["leaks"] == 0
    for k in ("carry_over", "brs", "prs"):  # the other headlines too (2026-12-02: 0/0, 2.57/2.71, 3.18/3.29)
        assert ask.metrics[k] <= habits.metrics[k], k
