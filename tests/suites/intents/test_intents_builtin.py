"""The built-in episodes: schema, QC, and the reference agents' bounds (done-when targets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from intents_helpers import run_cells

from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.generator.build import SCHEDULE
from longview.suites.intents.generator.qc import dynamic_problems, static_problems
from longview.suites.intents.suite import IntentsSuite


@pytest.fixture(scope="module")
def ds() -> IntentsDataset:
    return IntentsSuite().load_dataset("builtin", None)


def one(ds: IntentsDataset, unit: str) -> IntentsDataset:
    return IntentsDataset(name=ds.name, sha256=ds.sha256, episodes={unit: ds.episode(unit)})


def test_shape(ds):
    assert len(ds.unit_ids()) >= 5
    for unit in ds.unit_ids():
        ep = ds.episode(unit)
        assert len(ep.sessions) == 20
        deps = [s for s in ep.sessions if s.depends_on]
        assert len(deps) == 6 and {len(s.depends_on) for s in deps} == {1, 2}
        independent = [s for s in ep.sessions if not s.depends_on and s.checklist]
        assert len(independent) == 5
        labels = {i.recoverable_from for s in ep.sessions for i in s.hidden_intents}
        assert labels == {"session", "workspace", "ask"}
        assert {f.path for f in ep.files} >= {"preferences.md", "standing_instructions.csv", "policies.pdf"}
    assert SCHEDULE.count("i") == 5


def test_static_qc_passes_for_every_persona(ds):
    for unit in ds.unit_ids():
        assert static_problems(ds.episode(unit)) == []


def test_static_qc_catches_a_mislabelled_intent(ds):
    ep = ds.episode("researcher").model_copy(deep=True)
    s = next(s for s in ep.sessions if s.depends_on)
    i = next(i for i in s.hidden_intents if i.recoverable_from == "session")
    i.recoverable_from = "ask"
    assert any("recoverable elsewhere" in p for p in static_problems(ep))


def test_dynamic_qc_one_persona(ds):
    assert dynamic_problems(ds, "marketer") == []


def test_reference_bounds_and_history_ablation(ds, tmp_path: Path):
    suite = IntentsSuite()
    d = one(ds, "pharmacist")
    from longview.suites.intents.suite import IntentsOptions

    res = run_cells(suite, d, ["ref:oracle", "ref:literal", "ref:recall"], ["default", "no_history"], tmp_path,
                    options=IntentsOptions(sessions=10))  # three dependency groups and two independent sessions
    sc = suite.score(res, d, None, 0)
    m = {(r.agent, r.variant): r.metrics for r in sc.rows}
    assert m[("ref:oracle", "default")]["proc"] >= 0.95 and m[("ref:oracle", "default")]["comp"] >= 0.95
    assert m[("ref:literal", "default")]["proc"] <= 0.20 and m[("ref:literal", "default")]["comp"] >= 0.6
    assert m[("ref:recall", "no_history")]["proc"] < m[("ref:recall", "default")]["proc"]
    assert set(m[("ref:oracle", "default")]) >= {"proc", "comp", "completed", "elicited", "provided", "open"}
    assert any(r.variant == "no_history" for r in sc.rows)


def test_asker_elicits(ds, tmp_path: Path):
    suite = IntentsSuite()
    d = one(ds, "law_trainee")
    from longview.suites.intents.suite import IntentsOptions

    res = run_cells(suite, d, ["ref:asker"], ["default"], tmp_path, options=IntentsOptions(sessions=4))
    row = suite.score(res, d, None, 0).rows[0]
    assert row.metrics["elicited"] == 1.0 and row.metrics["proc"] == 1.0


def test_trials_give_mean_and_std(ds, tmp_path: Path):
    suite = IntentsSuite()
    from longview.suites.intents.suite import IntentsOptions

    d = IntentsDataset(name=ds.name, sha256=ds.sha256, episodes={u: ds.episode(u) for u in ds.unit_ids()[:2]})
    res = run_cells(suite, d, ["ref:recall"], ["default"], tmp_path, trials=3, options=IntentsOptions(sessions=4))
    row = suite.score(res, d, None, 0).rows[0]
    assert row.trials == 3 and row.n == 2
    assert row.extra["trial_std"]["proc"] == 0.0  # a scripted agent is deterministic
    assert len(row.extra["trial_means"]["proc"]) == 3
    assert row.ci95["proc"] is not None
