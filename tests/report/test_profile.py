"""`longview profile`: every registered suite on one model beside its reference agents, read as one
profile line per suite; the headline arithmetic pinned on a hand-made scorecard."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness import registry
from longview.harness.suite import ProfileSpec
from longview.report.data import RunData
from longview.report.hooks import profile_spec
from longview.report.profile import headline


class FakeSuite:
    name = "madeup"
    reference_agents = {"ref:floor": "plain", "ref:ceiling": "plain"}
    model_variants = ("plain",)


def fake_run(card: dict) -> RunData:
    return RunData(path=Path("."), label="x", manifest={}, scorecard=card, suite=None, cells={}, sessions=[], texts={})


def test_headline_sits_between_the_reference_floor_and_ceiling():
    card = {"suite": "madeup", "metrics": {"helpfulness": {"description": "d", "kind": "judged"}},
            "rows": [{"agent": "ref:floor", "variant": "plain", "metrics": {"helpfulness": 0.2}},
                     {"agent": "ref:ceiling", "variant": "plain", "metrics": {"helpfulness": 0.8}},
                     {"agent": "m/x", "variant": "plain", "metrics": {"helpfulness": 0.35},
                      "ci95": {"helpfulness": [0.2, 0.5]}}]}
    card["rows"][2]["metrics"]["speed"] = 0.7
    line = headline(fake_run(card), FakeSuite(), ProfileSpec(label="help", reading="helps", also=["speed", "nope"]), "m/x")
    assert line["metric"] == "helpfulness · plain" and line["value"] == 0.35
    assert (line["floor"], line["ceiling"]) == (0.2, 0.8)
    assert line["pos"] == pytest.approx(0.25)
    assert (line["pos_lo"], line["pos_hi"]) == pytest.approx((0.0, 0.5))
    assert line["reading"].startswith("helps — 0.35, 25% of the way")
    assert line["reading"].endswith("Also: speed 0.70.")


def test_headline_names_the_variant_it_read():
    """A model that did not run the profile's variant is read on the one it ran, and named so."""
    card = {"suite": "madeup", "metrics": {"helpfulness": {"description": "d", "kind": "judged"}},
            "rows": [{"agent": "ref:floor", "variant": "plain", "metrics": {"helpfulness": 0.2}},
                     {"agent": "m/x", "variant": "other", "metrics": {"helpfulness": 0.4}}]}
    line = headline(fake_run(card), FakeSuite(), ProfileSpec(), "m/x")
    assert line["metric"] == "helpfulness · other" and line["value"] == 0.4


def test_lower_is_better_flips_floor_and_ceiling_and_aborts_are_said():
    card = {"suite": "madeup", "metrics": {"latency": {"description": "d", "kind": "deterministic",
                                                       "higher_is_better": False}},
            "rows": [{"agent": "ref:floor", "variant": "plain", "metrics": {"latency": 9.0}},
                     {"agent": "ref:ceiling", "variant": "plain", "metrics": {"latency": 1.0}},
                     {"agent": "m/x", "variant": "plain", "metrics": {"latency": 3.0}}]}
    line = headline(fake_run(card), FakeSuite(), ProfileSpec(), "m/x")
    assert (line["floor"], line["ceiling"], line["pos"]) == (9.0, 1.0, 0.75)
    card["rows"][2] = {"agent": "m/x", "variant": "plain", "metrics": {"latency": None}, "n_aborted": 2,
                       "abort_reasons": {"u1": "HTTP 500 forever"}}
    line = headline(fake_run(card), FakeSuite(), ProfileSpec(), "m/x")
    assert "value" not in line and "2 cell(s) aborted: HTTP 500 forever" in line["reading"]


def test_built_in_suites_have_profile_lines_through_the_hook():
    spec = profile_spec(registry.load("atr"))
    assert (spec.metric, spec.variant, spec.label) == ("tsacc", "default", "ask-to-remember")
    for name in registry.available():
        suite = registry.load(name)
        spec = profile_spec(suite)
        assert spec.variant is None or spec.variant in suite.variants, name
        assert spec.quick_units >= 1


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["profile", "--model", "openai/gpt-4o", "--quick", "--suite", "atr", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "Profile dry run" in r.output and "estimate · agent" in r.output
    assert re.search(r"atr\s+│\s+21\s+│\s+3", r.output)  # 3 reference cells + 4 model variants, 3 units each
    assert "~" in r.output.split("total")[-1] and not (tmp_path / "runs").exists()


def test_profile_runs_offline_end_to_end_and_its_report_opens_on_the_profile(tmp_path: Path):
    """In a subprocess, as a user would, with a scripted model file (mock/file:...)."""
    script = tmp_path / "finish.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "finish_session", "arguments": {}}]}] * 2000))  # one client serves every cell
    args = [sys.executable, "-m", "longview", "profile", "--model", f"mock/file:{script}", "--suite", "atr",
            "--units", "1", "--max-turns", "4", "--out", "prof"]
    env = {**os.environ, "LONGVIEW_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Proactivity profile" in r.stdout and "ask-to-remember" in r.stdout
    html = (tmp_path / "prof" / "profile.html").read_text()
    assert html.index('<section id="profile">') < html.index('id="suite-atr"')
    assert "tsacc · default" in html and "ref:passive · default" in html and "ref:oracle · oracle_target" in html
    # Re-running continues the same run directory: nothing is redone, the report is rewritten.
    markers = {p: p.stat().st_mtime_ns for p in (tmp_path / "prof" / "atr").glob("cells/*/result.json")}
    assert len(markers) == 7  # 3 reference cells + 4 model variants, one unit
    r2 = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r2.returncode == 0, r2.stderr
    assert markers == {p: p.stat().st_mtime_ns for p in (tmp_path / "prof" / "atr").glob("cells/*/result.json")}


def test_the_strip_axis_grows_to_show_a_model_below_its_floor():
    from longview.report.plots import profile_strip

    spec = profile_strip([{"label": "prefs", "pos": -0.83, "pos_lo": -0.9, "pos_hi": -0.7},
                          {"label": "atr", "pos": 0.5, "pos_lo": 0.4, "pos_hi": 1.2}])
    scale = spec["layer"][2]["encoding"]["x"]["scale"]
    assert scale["domainMin"] == pytest.approx(-0.95) and scale["domainMax"] == pytest.approx(1.25)
    inside = profile_strip([{"label": "atr", "pos": 0.5, "pos_lo": 0.4, "pos_hi": 0.6}])
    assert inside["layer"][2]["encoding"]["x"]["scale"] == {"domainMin": -0.05, "domainMax": 1.05}


def test_profile_on_a_damaged_run_folder_says_what_it_found(tmp_path: Path):
    """A profile continues its run folders: a damaged cell result is named and run again; a damaged
    manifest stops with the file named and leaves the last profile page as it was."""
    script = tmp_path / "finish.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "finish_session", "arguments": {}}]}] * 2000))
    args = [sys.executable, "-m", "longview", "profile", "--model", f"mock/file:{script}", "--suite", "atr",
            "--units", "1", "--max-turns", "4", "--out", "prof"]
    env = {**os.environ, "LONGVIEW_CACHE_DIR": str(tmp_path / "cache")}
    assert subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300).returncode == 0
    run_dir, page = tmp_path / "prof" / "atr", tmp_path / "prof" / "profile.html"

    victim = sorted(run_dir.glob("cells/*/result.json"))[0]
    victim.write_text("{not json")
    r = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"note: {victim.parent.name}" in r.stderr and "runs it again" in r.stderr
    assert json.loads(victim.read_text())["status"] == "complete"  # the damaged cell was redone, not skipped

    before = page.read_bytes()
    (run_dir / "manifest.json").write_text("{not json")
    r = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    assert "manifest.json" in r.stderr and "--force" in r.stderr and "Traceback" not in r.stderr
    assert page.read_bytes() == before
