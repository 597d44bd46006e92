"""How many model requests a planned run can keep in flight, and what would fill the limit asked for.

Sessions within a cell run in order (the protocols carry memory from one to the next), so a cell
has one request in flight at a time — more only where a suite runs independent sessions of a cell
side by side (atr's test sessions; a suite says how many with ``sessions_in_flight(dataset, cell,
options) -> int``, the most a cell runs at once). Reference
agents' cells call no model unless a suite role does. The executor admits the next cell as soon as
any cell finishes (no rounds), so the plan's cells bound what is in flight, not the batching.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from longview.harness.plan import Prepared


@dataclass
class Flight:
    """What ``--dry-run`` says about concurrency."""

    model_cells: int  # cells that call a model
    per_cell: int  # requests one such cell keeps in flight at most (its widest phase)
    most: int  # the most requests the plan keeps in flight: min(limit, model cells x per cell)
    steady: int  # what it keeps while cells run their sessions in order: min(limit, model cells)
    limit: int  # --max-concurrency
    trials_to_fill: int | None  # --trials that keep the limit filled in the steady phase (None: already, or no model)
    units_to_fill: int | None  # --units that would, when the dataset has that many
    units_available: int

    def lines(self) -> list[str]:
        if not self.model_cells:
            return ["in flight: no model requests (reference agents only)"]
        if self.per_cell == 1:
            out = [f"in flight: at most {self.most} model requests at once ({self.model_cells} cells calling a model, "
                   f"one session each at a time; --max-concurrency {self.limit})"]
        else:
            out = [f"in flight: at most {self.most} model requests at once ({self.model_cells} cells calling a model, "
                   f"up to {self.per_cell} sessions each in their widest phase), {self.steady} while cells run "
                   f"sessions in order (--max-concurrency {self.limit})"]
        if self.steady < self.limit and self.trials_to_fill:
            hint = f"to keep {self.limit} in flight: --trials {self.trials_to_fill}"
            if self.units_to_fill is not None:
                hint += f", or --units {self.units_to_fill}" + (
                    "" if self.units_to_fill <= self.units_available
                    else f" (the dataset has {self.units_available})")
            out.append(hint + f"; or lower --max-concurrency to {self.steady}")
        return out


def flight(p: Prepared) -> Flight:
    roles_call_models = bool(p.cfg.role_models)
    cells = [c for c in p.cells if roles_call_models or c.agent not in p.suite.reference_agents]
    hook = getattr(p.suite, "sessions_in_flight", None)
    per_cell = max((max(1, int(hook(p.dataset, c, p.options))) for c in cells), default=1) if callable(hook) else 1
    limit = p.cfg.max_concurrency
    most, steady = min(limit, len(cells) * per_cell), min(limit, len(cells))
    units = len({c.unit for c in cells}) or 1
    available = len(p.dataset.unit_ids())
    trials = units_fill = None
    if cells and steady < limit:  # sized on one session per cell: the phases that run in order
        trials = math.ceil(limit / (len(cells) / max(1, p.cfg.trials)))
        units_fill = math.ceil(limit / (len(cells) / units))
    return Flight(len(cells), per_cell, most, steady, limit, trials, units_fill, available)
