"""Domain fills for the scenario skeleton (see build.py): one module per pair of domains."""

from __future__ import annotations

from longview.suites.tempo.generator.build import Fill
from longview.suites.tempo.generator.fills import everyday, work
from longview.suites.tempo.generator.fills.structure import STRUCTURE


def all_fills() -> list[Fill]:
    return [Fill.model_validate({**d, **STRUCTURE.get(d["id"], {})}) for d in [*work.FILLS, *everyday.FILLS]]
