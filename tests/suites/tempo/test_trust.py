"""Golden tests of the simulated trust dynamics (App. G.5)."""

import pytest

from longview.suites.tempo.trust import DELTA, INITIAL, TrustState, step


def test_transition_deltas_are_the_measured_means():
    assert DELTA == {("A", "A"): 0.17, ("A", "M"): -1.86, ("M", "A"): 1.27, ("M", "M"): -0.44}


def test_a_m_a_recovers_to_below_its_start():
    start = 4.43  # the study's A-M-A starting level
    after_m = step(start, "A", "M")
    after_a = step(after_m, "M", "A")
    assert (after_m, after_a) == (pytest.approx(2.57), pytest.approx(3.84))
    assert after_a < start


def test_trajectory_from_initial_state_and_clamping():
    from datetime import datetime

    s = TrustState()
    t = datetime(2026, 3, 2)
    assert s.value == INITIAL == 4.0
    values = [s.observe(t, f"t{i}", a) for i, a in enumerate([True, False, True, False, False, False, False])]
    assert values == pytest.approx([4.17, 2.31, 3.58, 1.72, 1.28, 1.0, 1.0])  # A A->M M->A A->M M->M... floor 1
    assert [p.label for p in s.history] == ["A", "M", "A", "M", "M", "M", "M"]
    for _ in range(20):
        s.observe(t, "x", True)
    assert s.value == 5.0  # ceiling
