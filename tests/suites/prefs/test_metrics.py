"""Golden tests of the scorers."""

import pytest

from longview.suites.prefs.metrics import brs_agreement, counts, unit_metrics
from longview.suites.prefs.runner import ProbeRecord


def P(kind, ctx, attr, target, other, selected, brs=5, prs=5, fail=False, judged=None, rep=0, ev=False):
    return ProbeRecord(sid=f"{kind}-{ctx}-{attr}-{rep}", kind=kind, context=ctx, attribute=attr, dimension="d",
                       attr_kind="reply", target=target, other_target=other, selected=selected, observed=selected,
                       capability_failure=fail, brs_embedded=1 if fail else brs, brs_judged=judged,
                       prs=prs if kind == "final" else None, repeat=rep, other_evidence=ev)


PROBES = [
    # verbosity differs across contexts; work right, personal carries work's target over
    P("final", "work", "verbosity", "terse", "detailed", "terse", brs=5, prs=5),
    P("final", "personal", "verbosity", "detailed", "terse", "terse", brs=1, prs=2, ev=True),
    # tone differs; both right
    P("final", "work", "tone", "formal", "casual", "formal", brs=5, prs=5),
    P("final", "personal", "tone", "casual", "formal", "casual", brs=4, prs=4),
    # autonomy same in both contexts; personal is a capability failure
    P("final", "work", "autonomy", "reactive", "reactive", "reactive", brs=5, prs=5),
    P("final", "personal", "autonomy", "reactive", "reactive", None, fail=True, prs=1),
    # a changed cell: right before, right after
    P("pre", "work", "tone", "casual", "casual", "casual"),
]


def test_unit_metrics_golden():
    m = unit_metrics(PROBES)
    assert m["psa"] == pytest.approx(5 / 7)
    assert m["cs"] == pytest.approx(1 / 2)
    assert m["carry_over"] == pytest.approx(1 / 2)
    assert m["pet"] == pytest.approx(1.0)
    assert m["brs"] == pytest.approx((5 + 1 + 5 + 4 + 5 + 1) / 6)
    assert m["prs"] == pytest.approx((5 + 2 + 5 + 4 + 5 + 1) / 6)
    assert counts(PROBES) == {"probes": 7, "capability_failures": 1, "carry_overs": 1, "differing_pairs": 2}


def test_undefined_metrics_are_none_not_zero():
    m = unit_metrics([P("final", "work", "autonomy", "reactive", "reactive", "reactive")])
    assert m["cs"] is None and m["carry_over"] is None and m["pet"] is None and m["psa"] == 1.0


def test_judged_brs_and_agreement():
    probes = [P("final", "work", "a", "x", "y", "x", brs=5, judged=4), P("final", "work", "b", "x", "y", "x", brs=2, judged=5)]
    assert unit_metrics(probes, judged=True)["brs"] == pytest.approx(4.5)
    assert brs_agreement(probes) == {"n": 2, "exact": 0.0, "within_one": 0.5}
    missing = [P("final", "work", "a", "x", "y", "x", brs=5, judged=None)]
    assert unit_metrics(missing, judged=True)["brs"] is None


def test_repeats_scored_separately_then_averaged():
    r0 = [P("final", "work", "v", "terse", "terse", "terse", rep=0)]
    r1 = [P("final", "work", "v", "terse", "terse", "detailed", rep=1)]
    assert unit_metrics(r0 + r1)["psa"] == pytest.approx(0.5)


def test_carry_over_hand_computed_from_the_definition():
    """Carry-over per differing pair instance (pair x repeat): a probe carries over when its selection
    is the OTHER context's target and its input held the user's other-context words for it.
    By hand: repeat 0 — verbosity carried (work chose personal's detailed, evidence seen); tone:
    work chose consultative (wrong, but nobody's target) and personal chose work's casual with
    evidence: carried; breadth both right. 2 of 3. Repeat 1 — verbosity: work chose detailed
    WITHOUT evidence (a mere error); tone: personal chose casual without evidence; breadth: personal
    chose work's low with evidence: carried. 1 of 3. Mean over repeats: (2/3 + 1/3) / 2 = 1/2;
    counted: 3 carried of 6 pair instances. CS: repeat 0 1/3 (breadth), repeat 1 0/3."""
    probes = []
    for rep, sel in ((0, {"vw": ("detailed", True), "vp": ("detailed", False), "tw": ("consultative", True),
                          "tp": ("casual", True), "bw": ("low", False), "bp": ("high", False)}),
                     (1, {"vw": ("detailed", False), "vp": ("detailed", False), "tw": ("casual", False),
                          "tp": ("casual", False), "bw": ("low", False), "bp": ("low", True)})):
        probes += [
            P("final", "work", "verbosity", "terse", "detailed", *sel["vw"][:1], rep=rep, ev=sel["vw"][1]),
            P("final", "personal", "verbosity", "detailed", "terse", *sel["vp"][:1], rep=rep, ev=sel["vp"][1]),
            P("final", "work", "tone", "casual", "formal", *sel["tw"][:1], rep=rep, ev=sel["tw"][1]),
            P("final", "personal", "tone", "formal", "casual", *sel["tp"][:1], rep=rep, ev=sel["tp"][1]),
            P("final", "work", "breadth", "low", "high", *sel["bw"][:1], rep=rep, ev=sel["bw"][1]),
            P("final", "personal", "breadth", "high", "low", *sel["bp"][:1], rep=rep, ev=sel["bp"][1]),
            # same target in both contexts: never a pair, whatever is selected
            P("final", "work", "outreach", "low", "low", "high", rep=rep, ev=True),
            P("final", "personal", "outreach", "low", "low", "high", rep=rep, ev=True),
        ]
    m = unit_metrics(probes)
    assert m["carry_over"] == pytest.approx(0.5)
    assert m["cs"] == pytest.approx((1 / 3 + 0) / 2)
    assert counts(probes)["carry_overs"] == 3 and counts(probes)["differing_pairs"] == 6
    # the old rule (any selection equal to the other target) would have counted 5 of 6
    assert sum(any(p.selected == p.other_target for p in probes if p.attribute == a and p.repeat == r)
               for a in ("verbosity", "tone", "breadth") for r in (0, 1)) == 5
