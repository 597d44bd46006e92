"""Golden tests of PROC and COMP (π-Bench App. C) on hand-built records."""

from __future__ import annotations

import pytest

from longview.suites.intents.metrics import closure_size, persona_metrics, session_comp, session_proc
from longview.suites.intents.records import CellRecord, CriterionOutcome, IntentOutcome, SessionRecord


def S(sid, statuses, criteria=None, deps=()):
    return SessionRecord(session_id=sid, depends_on=list(deps),
                         intents={f"I{i}": IntentOutcome(status=s) for i, s in enumerate(statuses)},
                         criteria={k: CriterionOutcome(weight=w, kind="check", met=m) for k, (w, m) in (criteria or {}).items()})


def cell():
    return CellRecord(agent="a", variant="default", unit="p", sessions=[
        S("p1", ["completed", "provided"]),                              # prerequisite, no criteria
        S("p2", ["elicited"]),                                           # prerequisite, no criteria
        S("d", ["completed", "provided", "open"], {"c1": (2, True), "c2": (1, False)}, deps=["p1", "p2"]),
        S("i", ["provided", "elicited"], {"c1": (1, True), "c2": (1, None)}),
    ])


def test_session_proc_pools_direct_prerequisites():
    c = cell()
    by = {r.session_id: r for r in c.sessions}
    # d: own 1/3 covered + p1 1/2 + p2 1/1 -> 3/6
    assert session_proc(by["d"], by) == pytest.approx(0.5)
    assert session_proc(by["i"], by) == pytest.approx(0.5)
    assert closure_size("d", by) == 3 and closure_size("i", by) == 1


def test_session_comp_weights_and_skips_unjudged():
    by = {r.session_id: r for r in cell().sessions}
    assert session_comp(by["d"]) == pytest.approx(2 / 3)
    assert session_comp(by["i"]) == pytest.approx(1.0)  # the None criterion is neither pass nor fail


def test_persona_metrics_weight_by_closure_over_sessions_with_criteria():
    m = persona_metrics(cell())
    assert m["proc"] == pytest.approx((0.5 * 3 + 0.5 * 1) / 4)
    assert m["comp"] == pytest.approx((2 / 3 * 3 + 1.0 * 1) / 4)
    # statuses over all 8 intents
    assert m["completed"] == pytest.approx(2 / 8) and m["elicited"] == pytest.approx(2 / 8)
    assert m["provided"] == pytest.approx(3 / 8) and m["open"] == pytest.approx(1 / 8)


def test_missing_judgments_are_never_pass_or_fail():
    only_missing = CellRecord(agent="a", variant="default", unit="p", sessions=[
        S("x", ["completed"], {"c1": (1, None), "c2": (3, None)})])
    assert session_comp(only_missing.sessions[0]) is None
    assert persona_metrics(only_missing)["comp"] is None
    # adding a judged pass next to the missing ones gives 1.0, not 1/3 or 1/2
    half = S("y", ["completed"], {"c1": (1, True), "c2": (3, None)})
    assert session_comp(half) == 1.0
