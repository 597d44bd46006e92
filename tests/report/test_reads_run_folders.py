"""A report only reads run folders: session outcomes are stored when a run is scored, the manifest
keeps the dataset as resolved, and runs written before either still read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.report.data import load_run


def _outcomes(run_dir: Path) -> dict[tuple[str, str], tuple[str | None, dict[str, str], str]]:
    return {(s.cell, s.sid): (s.outcome, s.labels, s.reason) for s in load_run(run_dir).sessions}


def test_outcomes_are_stored_when_the_run_is_scored(atr_run: Path):
    stored = sorted(atr_run.glob("cells/*/outcomes.json"))
    finished = sorted(atr_run.glob("cells/*/result.json"))
    assert len(stored) == len(finished) > 0
    verdicts = [o for f in stored for o in json.loads(f.read_text())["sessions"].values()]
    assert {v["outcome"] for v in verdicts} == {"pass", "fail", None}


def test_report_on_a_finished_run_scores_nothing(atr_run: Path, tmp_path: Path, monkeypatch):
    before = _outcomes(atr_run)
    assert any(o == "pass" for o, _, _ in before.values()) and any(o == "fail" for o, _, _ in before.values())

    def refuse(*a, **k):
        raise AssertionError("a report must not score")

    from longview.harness import run as harness
    from longview.suites.atr import metrics, report_hooks
    from longview.suites.atr.suite import ATRSuite

    for owner, name in ((ATRSuite, "score"), (ATRSuite, "session_outcomes"), (ATRSuite, "load_dataset"),
                        (metrics, "score_cell"), (report_hooks, "score_cell"), (harness, "score_folder")):
        monkeypatch.setattr(owner, name, refuse)
    assert _outcomes(atr_run) == before
    out = tmp_path / "r.html"
    r = CliRunner().invoke(app, ["report", str(atr_run), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "Table 3" in out.read_text()  # the suite's own sections (from the scorecard JSON) are there


def test_a_relative_dataset_reads_from_any_folder(episodes: Path, tmp_path: Path, monkeypatch):
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    shutil.copytree(episodes, work / "eps")
    elsewhere.mkdir()
    out = tmp_path / "run"
    monkeypatch.chdir(work)
    r = CliRunner().invoke(app, ["run", "atr", "--dataset", "eps", "--agent", "ref:passive", "--agent", "ref:oracle",
                                 "--units", "1", "--out", str(out), "--json", str(tmp_path / "a.json")])
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["dataset"]["spec"] == str(work / "eps")
    here = _outcomes(out)
    assert any(o == "pass" for o, _, _ in here.values())

    monkeypatch.chdir(elsewhere)
    r = CliRunner().invoke(app, ["show", str(out), "--json", str(tmp_path / "b.json")])
    assert r.exit_code == 0, r.output
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a == b
    assert _outcomes(out) == here
    r = CliRunner().invoke(app, ["report", str(out), "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    assert not any("outcomes" in n for n in load_run(out).notes)


@pytest.fixture
def old_run(atr_run: Path, tmp_path: Path) -> Path:
    """The atr run as longview wrote it before outcomes and the resolved spec were stored, and
    before atr's scorecard took the common shape (its own row fields beside the common ones,
    n_personas and per_persona, the dataset's personas)."""
    old = tmp_path / "old-run"
    shutil.copytree(atr_run, old)
    card = json.loads((old / "scorecard.json").read_text())
    card["dataset"]["personas"] = card["dataset"].pop("units")
    card["rows"] = [{**{k: v for k, v in r.items() if k not in ("n", "per_unit", "extra")}, **r["extra"],
                     "n_personas": r["n"], "per_persona": r["per_unit"]} for r in card["rows"]]
    (old / "scorecard.json").write_text(json.dumps(card, indent=2))
    for f in old.glob("cells/*/outcomes.json"):
        f.unlink()
    m = json.loads((old / "manifest.json").read_text())
    del m["dataset"]["spec"]
    (old / "manifest.json").write_text(json.dumps(m, indent=2))
    return old


def test_a_run_folder_of_the_old_format_still_reads(old_run: Path, atr_run: Path, tmp_path: Path):
    run = load_run(old_run)
    assert run.scorecard == load_run(atr_run).scorecard
    assert all(s.outcome is None for s in run.sessions)
    assert any("no stored session outcomes" in n for n in run.notes)
    r = CliRunner().invoke(app, ["report", str(old_run), "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    assert "Table 3 · main scorecard" in (tmp_path / "r.html").read_text()
    # `show` scores it again (from the manifest's dataset name) and stores the outcomes.
    r = CliRunner().invoke(app, ["show", str(old_run)])
    assert r.exit_code == 0, r.output
    assert _outcomes(old_run) == _outcomes(atr_run)


def test_a_damaged_outcomes_file_is_a_note(atr_run: Path, tmp_path: Path):
    copy = tmp_path / "damaged"
    shutil.copytree(atr_run, copy)
    victim = sorted(copy.glob("cells/*/outcomes.json"))[0]
    victim.write_text("{not json")
    run = load_run(copy)
    assert any(str(victim) in n for n in run.notes)
    assert all(s.outcome is None for s in run.sessions if s.cell == victim.parent.name)
