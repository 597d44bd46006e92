"""The ATR sub-app the CLI mounts: calibrate writes the headline JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from longview.suites.atr.commands import app


def test_calibrate_classifier_writes_json(tmp_path):
    out = tmp_path / "c.json"
    r = CliRunner().invoke(app, ["calibrate", "classifier", "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert data["implementation"] == "embedded:decision-classifier@5" and data["n"] == 68
    assert {"precision", "recall", "exact_accuracy"} <= set(data)


def test_calibrate_unknown_role_and_bad_set_fail_cleanly(tmp_path):
    assert CliRunner().invoke(app, ["calibrate", "judge"]).exit_code == 2
    r = CliRunner().invoke(app, ["calibrate", "router", "--set", f"atrbench:{tmp_path}"])
    assert r.exit_code == 2 and "test_set.jsonl" in r.output
