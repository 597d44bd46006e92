"""The Suite contract exercised by a suite that is not atr: a tiny package under tests/plugins,
installed for real (pip, offline) and run through the CLI — list, run, --json, show, a kill -9
mid-run then --resume — plus a broken plugin that must fail with a message naming it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TOY = Path(__file__).parents[1] / "plugins" / "toy_suite"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The toy suite installed into its own folder, plus a broken plugin's metadata beside it."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(target), str(TOY)], check=True, capture_output=True)
    broken = target / "longview_broken-0.1.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: longview-broken\nVersion: 0.1\n")
    (broken / "entry_points.txt").write_text('[longview.suites]\nbroken = "longview_broken_missing.suite:Nope"\n')
    return target


def lv(site: Path, *args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "LONGVIEW_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-m", "longview", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, **kw)


def card(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("run")
    return data


def test_list_names_every_registered_suite_without_importing_them(site, tmp_path):
    r = lv(site, "list", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("atr", "toy", "broken"):  # the broken one is listed: listing imports nothing
        assert f" {name} " in r.stdout


def test_broken_plugin_fails_with_a_message_naming_it(site, tmp_path):
    r = lv(site, "run", "broken", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    msg = " ".join(r.stderr.split())
    assert "suite plugin 'broken'" in msg and "longview_broken_missing" in msg
    assert lv(site, "run", "nosuch", cwd=tmp_path).returncode == 2


def test_toy_suite_runs_shows_and_reports_json(site, tmp_path):
    r = lv(site, "run", "toy", "--json", "out.json", "--out", "run", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["suite"] == "toy" and data["dataset"]["units"] == 4
    rows = {(row["agent"], row["variant"]): row for row in data["rows"]}
    assert rows[("ref:right", "plain")]["metrics"] == {"accuracy": 1.0}
    assert rows[("ref:wrong", "plain")]["metrics"] == {"accuracy": 0.0}
    assert rows[("ref:right", "plain")]["n"] == 4 and data["metrics"]["accuracy"]["kind"] == "deterministic"
    assert data["run"]["components"]["grader"] == "embedded:exact"
    assert len(list((tmp_path / "run").glob("cells/*/q*.jsonl"))) == 2 * 4 * 3
    s = lv(site, "show", "run", "--json", "again.json", cwd=tmp_path)
    assert s.returncode == 0 and "ref:wrong" in s.stdout
    assert card(tmp_path / "again.json") == card(tmp_path / "out.json")
    t = lv(site, "trace", next((tmp_path / "run").glob("cells/*/q0.jsonl")).as_posix(), cwd=tmp_path)
    assert t.returncode == 0 and "tool" not in t.stderr and "end:" in t.stdout


def test_suite_options_are_typed_and_listed_in_help(site, tmp_path):
    h = lv(site, "run", "toy", "--help", cwd=tmp_path)
    assert h.returncode == 0 and "delay" in h.stdout and "--grader-model" in h.stdout
    bad = lv(site, "run", "toy", "-S", "delay=-1", "--out", "x", cwd=tmp_path)
    assert bad.returncode == 2 and "delay" in bad.stderr and not (tmp_path / "x").exists()
    r = lv(site, "run", "toy", "-S", "offset=5", "--variant", "doubled", "--agent", "ref:wrong", "--json", "o.json",
           "--out", "y", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "o.json").read_text())["rows"][0]["variant"] == "doubled"


def test_kill_nine_then_resume_matches_an_uninterrupted_run(site, tmp_path):
    args = ["run", "toy", "-S", "delay=0.15", "--max-concurrency", "1", "--personas", "4"]
    assert lv(site, *args, "--out", "full", "--json", "full.json", cwd=tmp_path).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(site), "LONGVIEW_CACHE_DIR": str(tmp_path / "cache")}
    p = subprocess.Popen([sys.executable, "-m", "longview", *args, "--out", "part"], cwd=tmp_path, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(list((tmp_path / "part").glob("cells/*/result.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    done = {f.parent.name: f.read_text() for f in (tmp_path / "part").glob("cells/*/result.json")}
    assert 2 <= len(done) < 8
    r = lv(site, *args, "--out", "part", "--resume", "--json", "part.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name, text in done.items():  # finished cells were not redone
        assert (tmp_path / "part" / "cells" / name / "result.json").read_text() == text
    assert len(list((tmp_path / "part").glob("cells/*/result.json"))) == 8
    assert card(tmp_path / "part.json")["rows"] == card(tmp_path / "full.json")["rows"]
