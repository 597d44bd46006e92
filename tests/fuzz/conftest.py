"""The fuzz suite's per-test isolation; its helpers live in fuzzkit.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fuzzkit import escaped


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """The response cache stays in the test's folder, and no file may appear at the escape path."""
    monkeypatch.setenv("LONGVIEW_CACHE_DIR", str(tmp_path / "cache"))
    for p in escaped():
        if Path(p).is_file():
            os.remove(p)
    yield
    assert not escaped(), f"wrote outside the run folder: {escaped()}"
