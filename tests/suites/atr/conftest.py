"""Shared fixtures for the ATR tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

PERSONAS = Path(__file__).parents[2] / "fixtures/atrbench/data/personas"


@pytest.fixture
def episodes(tmp_path: Path) -> Path:
    """The two ATRBench fixture episodes copied into a plain episode folder."""
    d = tmp_path / "eps"
    d.mkdir()
    for f in PERSONAS.glob("*/episodes/*.json"):
        shutil.copy(f, d / f.name)
    return d
