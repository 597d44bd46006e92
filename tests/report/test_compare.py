"""`longview compare`: rows paired by agent and variant (else variant), per-unit differences over
units defined in both runs, and a paired bootstrap interval — pinned on hand-made numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.kernel.stats import cluster_bootstrap_ci, seed_from
from longview.report.compare import pair_rows, paired_diff


def row(agent, variant, units):
    return {"agent": agent, "variant": variant, "metrics": {"acc": None}, "per_unit": units}


def test_paired_difference_uses_units_defined_in_both_runs():
    a = row("m", "v", {"u1": {"acc": 0.2}, "u2": {"acc": 0.5}, "u3": {"acc": None}, "u4": {"acc": 1.0}})
    b = row("m", "v", {"u1": {"acc": 0.6}, "u2": {"acc": 0.5}, "u3": {"acc": 0.9}, "u5": {"acc": 0.0}})
    d = paired_diff("acc", a, b, seed=7)
    # u3 is undefined in A, u4 only in A, u5 only in B: u1 and u2 pair.
    assert d.n == 2
    assert d.mean_a == pytest.approx(0.35) and d.mean_b == pytest.approx(0.55)
    assert d.diff == pytest.approx(0.2)
    expected = cluster_bootstrap_ci({"u1": 0.4, "u2": 0.0}, seed=seed_from(7, "compare", "m · v", "m · v", "acc"))
    assert d.ci95 == pytest.approx(expected)
    assert 0.0 <= d.ci95[0] <= d.ci95[1] <= 0.4


def test_atr_rows_of_old_runs_pair_too():
    """An atr scorecard written before the common shape (per_persona) is read as one (per_unit)."""
    from longview.harness.scorecard import upgrade_json

    a, b = ({"suite": "atr", "rows": [{"agent": "x", "variant": "atr", "metrics": {}, "n_personas": 1,
                                       "per_persona": {"p": {"tsacc": v}}}]} for v in (0.5, 0.75))
    d = paired_diff("tsacc", upgrade_json(a)["rows"][0], upgrade_json(b)["rows"][0], seed=0)
    assert (d.n, d.diff, d.ci95) == (1, 0.25, None)  # one unit: no interval


def test_rows_pair_by_agent_and_variant_then_by_variant():
    a = [row("ref:x", "plain", {}), row("openai/a", "plain", {}), row("openai/a", "hard", {})]
    b = [row("ref:x", "plain", {}), row("openai/b", "plain", {}), row("openai/b", "other", {})]
    pairs, unpaired = pair_rows(a, b)
    assert [(x["agent"], y["agent"], x["variant"]) for x, y in pairs] == [
        ("ref:x", "ref:x", "plain"), ("openai/a", "openai/b", "plain")]
    assert unpaired == ["A: openai/a · hard", "B: openai/b · other"]


def test_compare_cli_prints_paired_differences_and_writes_a_report(atr_run: Path, tmp_path: Path):
    out = tmp_path / "c.html"
    r = CliRunner().invoke(app, ["compare", str(atr_run), str(atr_run), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "paired over units in both runs" in r.output and "tsacc" in r.output
    assert "+0.000" in r.output  # a run against itself: every paired difference is zero
    assert "Comparison · B =" in out.read_text()


def test_compare_refuses_different_suites(atr_run: Path, generic_run: Path):
    r = CliRunner().invoke(app, ["compare", str(atr_run), str(generic_run)])
    assert r.exit_code == 2 and "cannot compare" in r.output
