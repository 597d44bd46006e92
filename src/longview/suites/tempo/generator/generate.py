"""`longview tempo generate`: build every scenario from the skeleton and the domain fills."""

from __future__ import annotations

from longview.suites.tempo.generator.build import build
from longview.suites.tempo.generator.fills import all_fills
from longview.suites.tempo.schema import Scenario


def generate(seed: int = 0) -> list[Scenario]:
    return [build(f, seed, slot=i) for i, f in enumerate(all_fills())]
