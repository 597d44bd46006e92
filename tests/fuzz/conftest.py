"""The fuzz suite's per-test isolation; its helpers live in fuzzkit.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fuzzkit import SUITES, escaped, invoke, run_args, sample


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """The response cache stays in the test's folder, and no file may appear at the escape path."""
    monkeypatch.setenv("LONGVIEW_CACHE_DIR", str(tmp_path / "cache"))
    for p in escaped():
        if Path(p).is_file():
            os.remove(p)
    yield
    assert not escaped(), f"wrote outside the run folder: {escaped()}"


@pytest.fixture(scope="module")
def finished_runs(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """One finished run per suite (built once per module), copied by each case: suite -> (folder
    holding ``run/``, dataset spec)."""
    out = {}
    for suite in SUITES:
        base = tmp_path_factory.mktemp(f"base-{suite}")
        data = sample(suite, base / "data")
        if data is None:
            continue
        r = invoke(run_args(suite, data, base / "run"), base)
        assert r.code == 0, r.text[-2000:]
        out[suite] = (base, data)
    return out
