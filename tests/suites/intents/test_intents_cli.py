"""The intents suite through the harness CLI: run, --json, variants, judge model, importer errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from longview.cli import app
from longview.kernel.models.mock import register_script, unregister_script

runner = CliRunner()
FIXTURE = Path(__file__).parents[2] / "fixtures" / "pibench"


def test_run_json_has_proc_comp_and_no_history_rows(tmp_path: Path):
    js = tmp_path / "out.json"
    r = runner.invoke(app, ["run", "intents", "--agent", "ref:recall", "--variant", "default", "--variant",
                            "no_history", "--personas", "2", "--sessions", "7", "--out", str(tmp_path / "run"),
                            "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert data["suite"] == "intents"
    rows = {(x["agent"], x["variant"]): x for x in data["rows"]}
    assert set(rows) == {("ref:recall", "default"), ("ref:recall", "no_history")}
    for row in rows.values():
        assert {"proc", "comp"} <= set(row["metrics"]) and row["n"] == 2
    assert rows[("ref:recall", "no_history")]["metrics"]["proc"] < rows[("ref:recall", "default")]["metrics"]["proc"]
    assert data["metrics"]["proc"]["by"] == "embedded:checks+rules"


def test_judge_model_agreement_with_embedded_checks(tmp_path: Path):
    def judge(system, messages, tools):  # a judge that says yes to everything
        payload = json.loads(messages[-1].content)
        items = payload.get("requirements") or payload.get("criteria")
        return json.dumps({"decisions": [{"id": i["id"], "yes": True} for i in items]})

    register_script("intents_yes_judge", judge)
    js = tmp_path / "out.json"
    r = runner.invoke(app, ["run", "intents", "--agent", "ref:literal", "--personas", "1", "--sessions", "3",
                            "--judge-model", "mock/intents_yes_judge", "--out", str(tmp_path / "run"),
                            "--json", str(js)])
    unregister_script("intents_yes_judge")
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    row = data["rows"][0]
    # the yes-judge marks everything completed at the first reply: the intents' checks disagree on every
    # intent; only the rubric proxy ("the reply says done") agrees, once per session with criteria
    assert row["metrics"]["proc"] == 1.0
    agr = row["extra"]["judge_agreement"]
    cell = json.loads(next((tmp_path / "run" / "cells").glob("*/result.json")).read_text())
    pairs = [p for s in cell["sessions"] for p in s["agreement"]]
    assert agr["n"] == len(pairs) > 0
    assert agr["agreement"] == sum(e == m for _, e, m in pairs) / len(pairs)
    assert all(e != m for k, e, m in pairs if k.startswith("satisfaction"))
    assert data["metrics"]["proc"]["by"] == "llm:mock/intents_yes_judge"


def test_malformed_pibench_task_exits_with_one_message(tmp_path: Path):
    root = tmp_path / "pb"
    shutil.copytree(FIXTURE, root)
    f = root / "data/tester/tasks/tester_task_001/task.yaml"
    f.write_text(f.read_text().replace("      weight: 2", "      weight: -1"))
    r = runner.invoke(app, ["run", "intents", "--dataset", f"pibench:{root}", "--out", str(tmp_path / "run")])
    assert r.exit_code != 0
    assert str(f) in r.output and "tester_task_001" in r.output and "objectives.checklist.0.weight" in r.output
    assert not (tmp_path / "run").exists()


def test_no_history_flag_runs_the_ablation_variant():
    from longview.harness.options import RunConfig
    from longview.harness.run import prepare

    cells = prepare(RunConfig(suite="intents", agents=["ref:recall"], units=1,
                              suite_options={"no_history": True}), dry_run=True).cells
    assert cells and {c.variant for c in cells} == {"no_history"}


def test_generate_writes_to_the_working_folder_and_never_clobbers(tmp_path: Path, monkeypatch):
    from longview.suites.intents.dataset import BUILTIN

    monkeypatch.chdir(tmp_path)
    before = BUILTIN.read_bytes()
    r = runner.invoke(app, ["intents", "generate", "--no-check"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "intents-episodes.json").read_bytes() == before  # seed 7 is the built-in set
    assert BUILTIN.read_bytes() == before  # the package is untouched
    again = runner.invoke(app, ["intents", "generate", "--no-check"])
    assert again.exit_code == 2 and "exists" in again.output and "--force" in again.output
    folder = runner.invoke(app, ["intents", "generate", "--no-check", "--out", str(tmp_path)])
    assert folder.exit_code == 2 and "is a folder" in folder.output


def test_dry_run_counts_model_calls_only_for_model_agents(tmp_path: Path):
    refs = runner.invoke(app, ["run", "intents", "--dry-run", "--units", "1", "--out", str(tmp_path / "a")])
    assert refs.exit_code == 0 and "no model calls" in refs.output, refs.output
    both = runner.invoke(app, ["run", "intents", "--dry-run", "--units", "1", "--agent", "ref:oracle",
                               "--model", "mock/echo", "--out", str(tmp_path / "b")])
    assert both.exit_code == 0 and "estimate · agent" in both.output, both.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
