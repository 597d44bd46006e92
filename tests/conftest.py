"""Fixtures more than one test folder reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app


@pytest.fixture(scope="session")
def prefs_run(tmp_path_factory) -> Path:
    """A finished offline prefs run (ref:habits, one user) that rescore tests read and never change."""
    out = tmp_path_factory.mktemp("prefs-run") / "run"
    r = CliRunner().invoke(app, ["run", "prefs", "--agent", "ref:habits", "--personas", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out
