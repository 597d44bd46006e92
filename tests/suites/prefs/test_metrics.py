"""Golden tests of the scorers."""

import pytest

from longview.suites.prefs.metrics import brs_agreement, counts, unit_metrics
from longview.suites.prefs.runner import ProbeRecord


def P(kind, ctx, attr, target, other, selected, brs=5, prs=5, fail=False, judged=None, rep=0):
    return ProbeRecord(sid=f"{kind}-{ctx}-{attr}-{rep}", kind=kind, context=ctx, attribute=attr, dimension="d",
                       attr_kind="reply", target=target, other_target=other, selected=selected, observed=selected,
                       capability_failure=fail, brs_embedded=1 if fail else brs, brs_judged=judged,
                       prs=prs if kind == "final" else None, repeat=rep)


PROBES = [
    # verbosity differs across contexts; work right, personal carries work's target over
    P("final", "work", "verbosity", "terse", "detailed", "terse", brs=5, prs=5),
    P("final", "personal", "verbosity", "detailed", "terse", "terse", brs=1, prs=2),
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
