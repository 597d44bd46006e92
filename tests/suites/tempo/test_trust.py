"""The simulated trust model (App. G.5): the study's transition means at the levels they were
measured from, direction-aware misalignment, content failures, and no saturation."""

from datetime import datetime

import pytest

from longview.suites.tempo.trust import DELTA, INITIAL, W_OVER, W_UNDER, TrustState, badness, move, step


def test_transition_means_are_the_studys():
    assert DELTA == {("A", "A"): 0.17, ("A", "M"): -1.86, ("M", "A"): 1.27, ("M", "M"): -0.44}
    assert step(4.43, "A", "A") == pytest.approx(4.60)
    assert step(4.43, "A", "M") == pytest.approx(2.57)
    assert step(2.57, "M", "A") == pytest.approx(3.84)
    assert step(2.57, "M", "M") == pytest.approx(2.13)


def test_a_m_a_recovers_to_below_its_start():
    after_a = step(step(4.43, "A", "M"), "M", "A")
    assert after_a == pytest.approx(3.84) and after_a < 4.43  # the study: 3.43, incomplete recovery
    assert 4.43 - step(4.43, "A", "M") > step(2.57, "M", "A") - 2.57  # easier to lose than to rebuild


def test_over_intervention_costs_more_than_under_intervention():
    """G.5: aligned-but-imperfect help was preferred in 68.3% of trade-offs when the user required
    approval, in 15.0% when execution was delegated: over-intervention is tolerated far less."""
    assert W_OVER == pytest.approx(2 * 0.683 / 0.833) and W_UNDER == pytest.approx(2 * 0.150 / 0.833)
    assert (W_OVER + W_UNDER) / 2 == pytest.approx(1.0)
    over, under = badness("suggest", "execute", 1.0), badness("execute", "suggest", 1.0)
    assert over == W_OVER and under == W_UNDER

    def week(b):
        s = TrustState(value=4.43)
        for day in (2, 4, 7):
            s.observe(datetime(2026, 3, day), ["t"], [b])
        return s.value

    assert week(over) < week(under) < week(0.0)  # MMM-execute below MMM-suggest below AAA
    assert week(under) > 3.0 and week(over) < 2.0


def test_content_failures_move_trust_too():
    assert badness("suggest", "suggest", 1.0) == 0.0
    assert badness("suggest", "suggest", 0.0) == 1.0  # aligned depth, refused or empty work
    assert badness("suggest", "suggest", 0.5) == 0.5


def test_a_mostly_aligned_week_does_not_saturate():
    s = TrustState()
    assert s.value == INITIAL == 4.0
    for day in (2, 4, 7, 9):
        s.observe(datetime(2026, 3, day), ["t"], [0.0, 0.0, 0.0])
    assert 4.6 < s.value < 5.0
    low = TrustState(value=1.2)
    for day in (2, 4, 7):
        low.observe(datetime(2026, 3, day), ["t"], [W_OVER])
    assert 1.0 < low.value < 1.2  # losses shrink near the floor: no clamping
    assert move(4.0, "A", 0.0) > 4.0 and move(4.0, "A", 1.0) < 4.0


def test_no_noticed_task_no_move():
    s = TrustState()
    assert s.observe(datetime(2026, 3, 2), [], []) == INITIAL and s.history == []
