"""Units as asked: a run of N units reports N units and none missing; --unit selects units by id and range."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness import registry
from longview.harness.plan import select_units
from longview.harness.run import load_dataset, suite_options
from longview.kernel.errors import ConfigError

runner = CliRunner()


def _units(suite: str) -> list[str]:
    s = registry.load(suite)
    return list(load_dataset(s, "builtin", suite_options(s, {})).unit_ids())


@pytest.mark.parametrize("suite", ["atr", "tempo", "intents", "prefs"])
def test_a_run_of_n_units_reports_n_units_and_none_missing(tmp_path: Path, suite: str):
    out, js = tmp_path / "run", tmp_path / "sc.json"
    r = runner.invoke(app, ["run", suite, "--personas", "2", "--out", str(out), "--json", str(js)],
                      terminal_width=200)
    assert r.exit_code == 0, r.output
    sc = json.loads(js.read_text())
    assert sc["dataset"]["units"] == 2
    assert all(row["n_missing"] == 0 and row["n"] == 2 for row in sc["rows"]), sc["rows"]
    assert "2 units" in r.output or "2 personas" in r.output
    assert json.loads((out / "manifest.json").read_text())["units"] == _units(suite)[:2]


def test_missing_means_planned_and_not_finished(tmp_path: Path):
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", "tempo", "--personas", "3", "--out", str(out)])
    assert r.exit_code == 0, r.output
    victim = next(p for p in sorted((out / "cells").iterdir()) if p.name.startswith("ref_oracle"))
    (victim / "result.json").unlink()  # one planned cell not finished
    shown = runner.invoke(app, ["show", str(out), "--json", str(tmp_path / "sc.json")])
    assert shown.exit_code == 0, shown.output
    sc = json.loads((tmp_path / "sc.json").read_text())
    missing = {(row["agent"], row["variant"]): row["n_missing"] for row in sc["rows"]}
    assert sorted(missing.values()) == [0] * (len(missing) - 1) + [1]
    assert sc["dataset"]["units"] == 3


def test_unit_selects_by_id_and_range_in_dataset_order(tmp_path: Path):
    units = _units("intents")
    out, js = tmp_path / "run", tmp_path / "sc.json"
    r = runner.invoke(app, ["run", "intents", "--unit", units[3], "--unit", f"{units[0]}..{units[1]}",
                            "--out", str(out), "--json", str(js)])
    assert r.exit_code == 0, r.output
    assert json.loads((out / "manifest.json").read_text())["units"] == [units[0], units[1], units[3]]
    sc = json.loads(js.read_text())
    assert sc["dataset"]["units"] == 3 and all(set(row["per_unit"]) <= set(units[:2] + [units[3]]) for row in sc["rows"])


def test_select_units_rules():
    ids = ["a", "b", "c", "d"]
    assert select_units(ids, [], None) == ids
    assert select_units(ids, ["c", "a"], None) == ["a", "c"]
    assert select_units(ids, ["b..d"], 2) == ["b", "c"]
    with pytest.raises(ConfigError, match="no unit 'zz'"):
        select_units(ids, ["zz"], None)
    with pytest.raises(ConfigError, match="comes after"):
        select_units(ids, ["d..a"], None)
    with pytest.raises(ConfigError, match="at least 1"):
        select_units(ids, [], 0)


def test_an_unknown_unit_is_one_message_and_exit_2(tmp_path: Path):
    r = runner.invoke(app, ["run", "atr", "--unit", "nobody", "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "--unit 'nobody'" in r.output and not (tmp_path / "r").exists()
