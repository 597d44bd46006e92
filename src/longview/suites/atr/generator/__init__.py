"""Generator of longview's built-in ATR cohort (``longview atr generate``).

``build.generate(seed, n_personas)`` returns the episodes and a :class:`qc.QCReport`;
``build.write`` stores them as package data. See ``build.py`` for the pipeline.
"""

from __future__ import annotations

__all__ = ["generate", "write"]


def generate(seed: int = 0, n_personas: int = 20):  # noqa: ANN201 - re-export, typed in build
    from longview.suites.atr.generator.build import generate as _generate

    return _generate(seed, n_personas)


def write(episodes, report, out_dir):  # noqa: ANN001, ANN201
    from longview.suites.atr.generator.build import write as _write

    return _write(episodes, report, out_dir)
