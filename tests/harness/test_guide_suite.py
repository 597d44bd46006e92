"""The one-file suite of docs/writing-a-suite.md, taken from the page itself, installed as an
out-of-tree plugin (its own distribution on the path) and driven through the CLI: run, show and
report from another folder, --resume after a lost cell, a refused resume once the plugin's
version changed, and a bad dataset refused with one clear message."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

GUIDE = Path(__file__).parents[2] / "docs" / "writing-a-suite.md"


def guide_code() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    m = re.search(r"<!-- guide-suite: sums_suite\.py[^>]*-->\n```python\n(.*?)```", text, re.S)
    assert m, "docs/writing-a-suite.md lost its suite"
    return m.group(1)


def install(site: Path, version: str) -> None:
    site.mkdir(exist_ok=True)
    (site / "sums_suite.py").write_text(guide_code(), encoding="utf-8")
    for old in site.glob("sums_suite-*.dist-info"):
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    meta = site / f"sums_suite-{version}.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sums-suite\nVersion: {version}\n")
    (meta / "entry_points.txt").write_text("[longview.suites]\nsums = sums_suite:SumsSuite\n")


def lv(site: Path, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "LONGVIEW_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-m", "longview", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def card(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("run")
    return data


def test_the_guide_suite_is_one_file_under_100_lines():
    assert len(guide_code().splitlines()) <= 100


@pytest.fixture
def site(tmp_path: Path) -> Path:
    install(tmp_path / "site", "0.1.0")
    return tmp_path / "site"


def test_the_guide_suite_runs_resumes_and_reports(site: Path, tmp_path: Path):
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    (work / "data.json").write_text(json.dumps([{"id": "a", "sums": [[1, 2], [3, 4]]}, {"id": "b", "sums": [[5, 6]]}]))
    r = lv(site, "run", "sums", "--dataset", "data.json", "--out", "run", "--json", tmp_path / "a.json", cwd=work)
    assert r.returncode == 0, r.stderr
    a = card(tmp_path / "a.json")
    assert [(row["agent"], row["metrics"]["accuracy"], row["n"]) for row in a["rows"]] == [("ref:adder", 1.0, 2)]
    manifest = json.loads((work / "run" / "manifest.json").read_text())
    assert manifest["config"]["plugin"] == {"name": "sums-suite", "version": "0.1.0"}
    assert manifest["dataset"]["spec"] == str(work / "data.json")

    # A lost cell (an interrupted run): --resume runs it again and ends with the same scorecard.
    lost = next(d for d in (work / "run" / "cells").iterdir() if "__default__b" in d.name)
    (lost / "result.json").unlink()
    r = lv(site, "run", "sums", "--dataset", "data.json", "--out", "run", "--resume", "--json", tmp_path / "b.json",
           cwd=work)
    assert r.returncode == 0, r.stderr
    assert card(tmp_path / "b.json") == a

    # show and report from another folder: the stored dataset spec and session outcomes.
    r = lv(site, "show", work / "run", "--json", tmp_path / "c.json", cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert card(tmp_path / "c.json") == a
    assert "plugin sums-suite 0.1.0" in " ".join(r.stdout.split())
    r = lv(site, "report", work / "run", "-o", tmp_path / "r.html", cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    outcomes = [json.loads(f.read_text()) for f in sorted((work / "run" / "cells").glob("*/outcomes.json"))]
    assert [sorted((k, v["outcome"]) for k, v in o["sessions"].items()) for o in outcomes] == [
        [("s0", "pass"), ("s1", "pass")], [("s0", "pass")]]

    # A new version of the plugin may score differently: resuming would mix old and new cells.
    install(site, "0.2.0")
    r = lv(site, "run", "sums", "--dataset", "data.json", "--out", "run", "--resume", cwd=work)
    assert r.returncode == 2 and "configuration changed" in " ".join(r.stderr.split()), r.stderr


def test_a_bad_dataset_is_one_clear_error(site: Path, tmp_path: Path):
    (tmp_path / "bad.json").write_text(json.dumps([{"id": "a", "sums": [[1, "x"]]}]))
    r = lv(site, "run", "sums", "--dataset", "bad.json", "--out", "run", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    msg = " ".join(r.stderr.split())
    assert "bad.json" in msg and "unit 0" in msg and "sums" in msg, msg
    assert not (tmp_path / "run").exists()
