"""The benchmarks' shared helpers (the scripts themselves are run by hand: see the README)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(autouse=True)
def _bench_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))


def test_file_probe_measures_and_leaves_nothing(tmp_path: Path) -> None:
    from benchdir import file_creation_ms

    assert file_creation_ms(str(tmp_path), files=20) > 0
    assert list(tmp_path.iterdir()) == []


def test_baseline_extracts_a_revision_src(tmp_path: Path) -> None:
    root = BENCH.parent
    if subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("not a git checkout")
    from bench_baseline import extract

    src = extract("HEAD", tmp_path)
    assert (src / "longview" / "__init__.py").is_file()
    assert not (tmp_path / "tests").exists()  # only src/ is taken
