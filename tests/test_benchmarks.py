"""The benchmarks' shared helpers (the scripts themselves are run by hand: see the README)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(autouse=True)
def _bench_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))


def test_file_probe_measures_and_leaves_nothing(tmp_path: Path) -> None:
    from benchdir import file_creation_ms

    assert file_creation_ms(str(tmp_path), files=20) > 0
    assert list(tmp_path.iterdir()) == []


def test_baseline_extracts_a_revision_src(tmp_path: Path) -> None:
    root = BENCH.parent
    if subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("not a git checkout")
    from bench_baseline import extract

    src = extract("HEAD", tmp_path)
    assert (src / "longview" / "__init__.py").is_file()
    assert not (tmp_path / "tests").exists()  # only src/ is taken


def test_live_lane_prefs_slice_has_a_floor() -> None:
    """The live lane's prefs slice mixes probes whose target is the attribute's habit with probes
    whose target is not, so the habit-following reference agents cannot sit at the ceiling."""
    from live_smoke import trim_prefs

    from longview.harness.options import RunConfig
    from longview.harness.plan import prepare
    from longview.suites.prefs.model import taxonomy

    ds = trim_prefs(prepare(RunConfig(suite="prefs", agents=["reference"], units=1)).dataset, 1, 4)
    (ud,) = ds.users
    habit = [ud.user.target(p.context, p.attribute, p.day) == taxonomy().attribute(p.attribute).habit
             for p in ud.final_probes]
    assert len(habit) == 4 and sum(habit) == 2
    assert not ud.user.changes and not ud.pre_probes and len(ud.sessions) == 1


def test_live_lane_bounds_hold_when_the_references_agree() -> None:
    from live_smoke import _within, reference_bounds

    rows = [{"agent": "ref:a", "metrics": {"psa": 1.0}}, {"agent": "ref:b", "metrics": {"psa": 1.0}},
            {"agent": "m", "metrics": {"psa": 0.0}}]
    assert reference_bounds({"rows": rows}, "psa") == (1.0, 1.0)
    assert reference_bounds({"rows": rows, "metrics": {"psa": {"higher_is_better": False}}}, "psa") == (1.0, 1.0)
    rows[1]["metrics"]["psa"] = 0.5
    assert reference_bounds({"rows": rows, "metrics": {"psa": {"higher_is_better": False}}}, "psa") == (1.0, 0.5)
    assert reference_bounds({"rows": rows[2:]}, "psa") == (None, None)

    assert _within({"value": 0.0, "floor": 1.0, "ceiling": 1.0})
    assert not _within({"value": 1.5, "floor": 1.0, "ceiling": 1.0})
    assert not _within({"value": None, "floor": 0.0, "ceiling": 1.0})
