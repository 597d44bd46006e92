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
    limit: int  # --max-concurrency
    trials_to_fill: int | None  # --trials that would fill the limit (None: already full, or no model)
    units_to_fill: int | None  # --units that would, when the dataset has that many
    units_available: int

    def lines(self) -> list[str]:
        if not self.model_cells:
            return ["in flight: no model requests (reference agents only)"]
        each = "1 each" if self.per_cell == 1 else f"up to {self.per_cell} each in their widest phase"
        out = [f"in flight: at most {self.most} model requests at once ({self.model_cells} cells calling a model, "
               f"{each}; --max-concurrency {self.limit})"]
        if self.most < self.limit and self.trials_to_fill:
            hint = f"to keep {self.limit} in flight: --trials {self.trials_to_fill}"
            if self.units_to_fill is not None:
                hint += f", or --units {self.units_to_fill}" + (
                    "" if self.units_to_fill <= self.units_available
                    else f" (the dataset has {self.units_available})")
            out.append(hint + f"; or lower --max-concurrency to {self.most}")
        return out


def flight(p: Prepared) -> Flight:
    roles_call_models = bool(p.cfg.role_models)
    cells = [c for c in p.cells if roles_call_models or c.agent not in p.suite.reference_agents]
    hook = getattr(p.suite, "sessions_in_flight", None)
    per_cell = max((max(1, int(hook(p.dataset, c, p.options))) for c in cells), default=1) if callable(hook) else 1
    limit = p.cfg.max_concurrency
    most = min(limit, len(cells) * per_cell)
    units = len({c.unit for c in cells}) or 1
    available = len(p.dataset.unit_ids())
    trials = units_fill = None
    if cells and most < limit:
        per_trial = len(cells) * per_cell / max(1, p.cfg.trials)
        trials = math.ceil(limit / per_trial)
        units_fill = math.ceil(limit / (len(cells) * per_cell / units))
    return Flight(len(cells), per_cell, most, limit, trials, units_fill, available)
