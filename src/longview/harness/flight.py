"""How many model requests a planned run can keep in flight, and what would fill the limit asked for.

Sessions within a cell run in order where the protocol carries memory from one to the next, so such
a cell has one request in flight at a time; a suite says how many sessions a cell runs at once in
its widest phase (``Suite.sessions_in_flight``: atr's test sessions, prefs' final probes, tempo's
repeats). A cell whose sessions *all* run at once (tempo's repeats, atr without a learning phase)
keeps that many in flight throughout; others keep one while their sessions run in order. Reference
agents' cells call no model unless a suite role does. The executor admits the next cell as soon as
any cell finishes (no rounds), so the plan's cells bound what is in flight, not the batching; but
cells of about equal length run in waves of ``limit``, so a plan of 270 one-request cells at a limit
of 256 keeps 256 and then 14 (about half the limit over the run): the suggested ``--trials`` is the
smallest that packs its waves to at least ``FILL`` of the limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from longview.harness.plan import Prepared

FILL = 0.9  # the share of the limit a suggested plan keeps busy, waves included


@dataclass
class Flight:
    """What ``--dry-run`` says about concurrency."""

    model_cells: int  # cells that call a model
    per_cell: int  # requests one such cell keeps in flight at most (its widest phase)
    most: int  # the most requests the plan keeps in flight: min(limit, sum of cells' widest phases)
    steady: int  # what it keeps while cells run their sessions in order: min(limit, sum of cells' steady)
    limit: int  # --max-concurrency
    trials_to_fill: int | None  # --trials that keep >= FILL of the limit busy (None: already, or no model)
    units_to_fill: int | None  # --units that would, when the dataset has that many
    units_available: int
    steady_at_fill: int = 0  # requests in flight at once with trials_to_fill (per wave)
    agents_alone: bool = False  # the plan has external agents that call no model through longview

    def lines(self) -> list[str]:
        if not self.model_cells:
            if self.agents_alone:
                return ["in flight: no model requests through longview (reference agents and agents on their own)"]
            return ["in flight: no model requests (reference agents only)"]
        if self.per_cell == 1:
            out = [f"in flight: at most {self.most} model requests at once ({self.model_cells} cells calling a model, "
                   f"one session each at a time; --max-concurrency {self.limit})"]
        else:
            out = [f"in flight: at most {self.most} model requests at once ({self.model_cells} cells calling a model, "
                   f"up to {self.per_cell} sessions each at once (sessions_in_flight)), {self.steady} while cells run "
                   f"their sessions (--max-concurrency {self.limit})"]
        if self.trials_to_fill:
            hint = (f"to keep >= {FILL:.0%} of {self.limit} in flight: --trials {self.trials_to_fill} "
                    f"({self.steady_at_fill} at once)")
            if self.units_to_fill is not None:
                hint += f", or --units {self.units_to_fill}" + (
                    "" if self.units_to_fill <= self.units_available
                    else f" (the dataset has {self.units_available})")
            out.append(hint + (f"; or lower --max-concurrency to {self.steady}" if self.steady < self.limit else ""))
        return out


def packing(steady: int, limit: int) -> float:
    """The share of ``limit`` that ``steady`` requests of equal-length cells keep busy over the run's
    waves (admitted as others finish: ceil(steady / limit) waves)."""
    return steady / (math.ceil(steady / limit) * limit) if steady else 0.0


def smallest_filling(per_step: float, limit: int) -> int:
    """The smallest multiple n of ``per_step`` steady requests whose waves keep >= FILL of ``limit``."""
    n = max(1, math.ceil(FILL * limit / per_step))
    while packing(round(n * per_step), limit) < FILL - 1e-9:
        n += 1
    return n


def flight(p: Prepared) -> Flight:
    from longview.harness.costs import calls_model

    roles_call_models = bool(p.cfg.role_models)
    # External agents on their own call no model through longview (a harness with --model does).
    cells = [c for c in p.cells if roles_call_models or calls_model(p, c.agent)]
    wide = [max(1, int(p.suite.sessions_in_flight(c, p.dataset, p.options))) for c in cells]
    # A cell whose sessions all run at once keeps them in flight throughout; others one at a time.
    steady_of = [w if w > 1 and p.suite.sessions(c, p.dataset, p.options) <= w else 1 for c, w in zip(cells, wide, strict=True)]
    limit = p.cfg.max_concurrency
    most, steady = min(limit, sum(wide)), min(limit, sum(steady_of))
    units = len({c.unit for c in cells}) or 1
    available = len(p.dataset.unit_ids())
    trials = units_fill = None
    at_fill = 0
    if cells and packing(sum(steady_of), limit) < FILL:  # sized on the steady phase, waves included
        per_trial = sum(steady_of) / max(1, p.cfg.trials)
        trials = smallest_filling(per_trial, limit)
        units_fill = smallest_filling(sum(steady_of) / units, limit)
        at_fill = min(limit, round(trials * per_trial))
    alone = any(ext.model is None for ext in p.external.values())
    return Flight(len(cells), max(wide, default=1), most, steady, limit, trials, units_fill, available, at_fill,
                  agents_alone=alone)
