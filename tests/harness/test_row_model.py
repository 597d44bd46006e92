"""Scorecard rows carry the model under test (`model`), filled by the harness from the run's config:
the agent itself for a model agent, the paired model for a harness, None for a reference agent.
Old run folders (scorecards written before the field) read with it filled from their manifest."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import longview
from longview.cli import app
from longview.harness.scorecard import fill_models_json, row_model
from longview.harness.terminal.tables import rows_table
from longview.report.compare import compare, comparison_table
from longview.report.data import load_run as report_run

runner = CliRunner()


def test_the_model_comes_from_the_runs_config():
    config = {"models": {"agents": ["openai/m1"]},
              "external_agents": {"cmd:h @ openai/m2": {"kind": "command", "model": "openai/m2"},
                                  "pkg:agent": {"kind": "python"}}}
    assert row_model("openai/m1", config) == "openai/m1"  # a model agent is its own model
    assert row_model("cmd:h @ openai/m2", config) == "openai/m2"  # a harness paired with a model
    assert row_model("pkg:agent", config) is None  # an agent bringing its own model: not known
    assert row_model("ref:passive", config) is None
    assert row_model("openai/m1", {}) is None  # a config that names no model (old or hand-made)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("model") / "run"
    r = runner.invoke(app, ["run", "atr", "--model", "mock/echo", "--agent", "ref:passive", "--personas", "1",
                            "--variant", "default", "--out", str(out), "--no-cache"])
    assert r.exit_code == 0, r.output
    return out


def test_rows_carry_their_model_in_the_scorecard_and_the_export(run_dir: Path):
    rows = {r["agent"]: r for r in json.loads((run_dir / "scorecard.json").read_text())["rows"]}
    assert rows["mock/echo"]["model"] == "mock/echo" and rows["ref:passive"]["model"] is None
    r = runner.invoke(app, ["export", str(run_dir)])
    assert r.exit_code == 0, r.output
    exported = {(x["agent"], x["model"]) for x in csv.DictReader(io.StringIO(r.output))}
    assert exported == {("mock/echo", "mock/echo"), ("ref:passive", "")}


def test_an_old_run_folder_reads_with_its_rows_models(run_dir: Path, tmp_path: Path):
    """A scorecard.json written before rows carried `model`: load_run, export, the report and compare
    fill it from the run's manifest."""
    old = tmp_path / "old"
    old.mkdir()
    for name in ("manifest.json", "scorecard.json"):
        (old / name).write_text((run_dir / name).read_text())
    data = json.loads((old / "scorecard.json").read_text())
    for row in data["rows"]:
        del row["model"]
    (old / "scorecard.json").write_text(json.dumps(data))
    loaded = {r.agent: r.model for r in longview.load_run(old).scorecard.rows}
    assert loaded == {"mock/echo": "mock/echo", "ref:passive": None}
    assert {r.model for r in longview.load_run(old).metric_rows()} == {"mock/echo", None}
    assert {r["agent"]: r["model"] for r in report_run(old).rows()} == loaded
    c = compare(report_run(old), report_run(run_dir))
    assert {(d.a.split(" · ")[0], d.model_a, d.model_b) for d in c.diffs} == {
        ("mock/echo", "mock/echo", "mock/echo"), ("ref:passive", None, None)}
    # A current scorecard is left as it is.
    current = json.loads((run_dir / "scorecard.json").read_text())
    assert fill_models_json(current, {}) == current


def test_a_model_column_is_shown_only_where_it_says_more_than_the_agent_name(run_dir: Path):
    from rich.console import Console

    from longview.harness.scorecard import Scorecard

    def text(table) -> str:
        console = Console(file=io.StringIO(), width=300, color_system=None)
        console.print(table)
        return console.file.getvalue()

    sc = longview.load_run(run_dir).scorecard
    assert "Model" not in text(rows_table(sc))  # a model agent's name is its model
    paired = Scorecard.model_validate({**sc.to_json_dict(), "rows": [
        {**r, "agent": "cmd:harness @ mock/echo"} if r["model"] else r for r in sc.to_json_dict()["rows"]]})
    shown = text(rows_table(paired))
    assert "Model" in shown and "cmd:harness @ mock/echo" in shown
    c = compare(report_run(run_dir), report_run(run_dir))
    assert "model (A → B)" not in text(comparison_table(c))
    c.diffs = [d.model_copy(update={"a": "cmd:h @ mock/echo · default", "b": "cmd:h @ mock/echo · default"})
               for d in c.diffs if d.model_a]
    assert "model (A → B)" in text(comparison_table(c))


def test_a_harness_row_names_the_harness_under_its_agent_as_text(run_dir: Path):
    from rich.console import Console

    from longview.harness.scorecard import Scorecard

    sc = longview.load_run(run_dir).scorecard
    hostile = {"kind": "command", "name": "[link=http://x]evil[/link]\x1b[2J", "version": "1.0"}
    card = Scorecard.model_validate({**sc.to_json_dict(), "rows": [
        {**r, "harness": hostile} if r["model"] else r for r in sc.to_json_dict()["rows"]]})
    console = Console(file=io.StringIO(), width=300, color_system=None)
    console.print(rows_table(card))
    shown = console.file.getvalue()
    assert "[link=http://x]evil[/link]\\x1b[2J 1.0 (command)" in shown  # the markup as text, the escape escaped
    assert "\x1b" not in shown
