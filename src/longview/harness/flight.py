"""How many model requests a planned run can keep in flight, and what would fill the limit asked for.

Sessions within a cell run in order where the protocol carries memory from one to the next, so such
a cell has one request in flight at a time; a suite says how many sessions a cell runs at once in
its widest phase (``Suite.sessions_in_flight``: atr's test sessions, prefs' final probes, tempo's
repeats). A cell whose sessions *all* run at once (tempo's repeats, atr without a learning phase)
keeps that many in flight throughout; others keep one while their sessions run in order. Reference
agents' cells call no model unless a suite role does. The executor admits the next cell as soon as
any cell finishes (no rounds), so the plan's cells bound what is in flight, not the batching; but
cells of about equal length run in waves of ``limit``, so a plan of 270 one-request cells at a limit
of 256 keeps 256 and then 14 (about half the limit over the run). :func:`simulate` steps the plan
through the harness's order and slot rules to say what it keeps; the suggested ``--trials`` is the
fewest whose simulated plan keeps ``PLAN`` of the limit with the margins :func:`smallest_filling` gives.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from longview.harness.cell import Cell
from longview.harness.plan import Prepared

FILL = 0.9  # the share of the limit a suggested plan should keep in flight over its run
# What the simulation must promise for that: measured runs kept 0.03-0.09 less than it (the ramp-up
# as cells are set up, cells finishing together and scoring, turns of unequal length; docs/models.md).
PLAN = 0.97
HELD_BY_ONE = 128  # model requests in flight one process keeps busy at 1 s a call (see flight())


@dataclass
class Flight:
    """What ``--dry-run`` says about concurrency."""

    model_cells: int  # cells that call a model
    per_cell: int  # requests one such cell keeps in flight at most (its widest phase)
    most: int  # the most requests the plan keeps in flight: min(limit, sum of cells' widest phases)
    steady: int  # what it keeps while cells run their sessions in order: min(limit, sum of cells' steady)
    limit: int  # --max-concurrency
    share: float  # the share of the limit the plan keeps in flight over its run (:func:`simulate`)
    trials_to_fill: int | None  # --trials that keep >= FILL of the limit busy (None: already, no model, or none does)
    units_to_fill: int | None  # --units that would, when the dataset has that many
    units_available: int
    share_at_fill: float = 0.0  # the share with trials_to_fill
    workers: int = 1  # suggested --workers (1: none suggested)
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
        out.append(f"over the run the plan keeps about {self.share:.0%} of {self.limit} in flight "
                   "(cells of unequal length counted; the ramp-up and turns of unequal length not)")
        if self.trials_to_fill:
            hint = (f"to keep >= {FILL:.0%} of {self.limit} in flight: --trials {self.trials_to_fill} "
                    f"(the plan keeps about {self.share_at_fill:.0%})")
            if self.units_to_fill is not None:
                hint += f", or --units {self.units_to_fill}" + (
                    "" if self.units_to_fill <= self.units_available
                    else f" (the dataset has {self.units_available})")
            out.append(hint + (f"; or lower --max-concurrency to {self.steady}" if self.steady < self.limit else ""))
        if self.workers > 1:
            out.append(f"one process spends ~2-5 ms of CPU per model call (docs/models.md): {self.limit} in flight at "
                       f"1 s a call is {self.limit} calls/s, most of a core; --workers {self.workers} spreads the cells")
        return out


Shape = tuple[int, int, int]  # one cell: (sessions in order, then sessions at once, steps a session takes)


def shape(p: Prepared, cell: Cell) -> Shape:
    n = p.suite.sessions(cell, p.dataset, p.options)
    wide = min(n, max(1, int(p.suite.sessions_in_flight(cell, p.dataset, p.options))))
    steps = max(1, int(p.suite.session_length(cell, p.dataset, p.options)))
    return (n - wide, wide, steps) if wide > 1 else (n, 0, steps)


def length(s: Shape) -> int:
    """How long the cell takes, in steps, when it gets the slots it asks for."""
    return (s[0] + (1 if s[1] else 0)) * s[2]


def _key(s: Shape) -> tuple[int, int]:
    return -length(s), -(s[0] + s[1])


def order_key(p: Prepared, cell: Cell) -> tuple[int, int]:
    """The run's order: longest cells first (then those with most sessions), so that the tail is made
    of short cells; the session slots serve cells in the same order (:mod:`longview.harness.slots`)."""
    return _key(shape(p, cell))


def in_order(shapes: list[Shape]) -> list[Shape]:
    """Shapes in the run's order (:func:`order_key`)."""
    return sorted(shapes, key=_key)


def simulate(shapes: list[Shape], limit: int) -> float:
    return stepped(shapes, limit)[0]


def stepped(shapes: list[Shape], limit: int) -> tuple[float, int]:
    """The share of ``limit`` a plan keeps in flight over its run, stepped: cells in the given order,
    at most ``limit`` at once, the next admitted as one ends; a session holds its slot for its
    steps; each step the free slots go to the cells in order, one to a cell running its sessions in
    order (when its last one ended), as many as it asks for to one in its widest phase. Cells of
    unequal length are seen; turns of unequal length, and the run's ramp-up, are not."""
    queue = iter([s for s in shapes if s[0] or s[1]])
    # per cell: [in order left, at once left, steps, burst begun, running sessions' steps left...]
    active: list[list[int]] = []
    steps = busy = held = 0
    more = True
    while more or active:
        while more and len(active) < limit:
            nxt = next(queue, None)
            if nxt is None:
                more = False
            else:
                active.append([*nxt, 0])
        if not active:
            break
        for a in active:
            if held == limit:
                break
            idle = len(a) == 4
            if a[0]:
                if idle:  # its previous session has ended
                    a[0] -= 1
                    a.append(a[2])
                    held += 1
            elif a[1] and (idle or a[3]):  # the burst begins once the sessions in order are over
                k = min(a[1], limit - held)
                a[1] -= k
                a[3] = 1
                a.extend([a[2]] * k)
                held += k
        busy += held
        steps += 1
        for a in active:
            left = [r - 1 for r in a[4:] if r > 1]
            held -= len(a) - 4 - len(left)
            a[4:] = left
        active = [a for a in active if a[0] or a[1] or len(a) > 4]
    return (busy / (steps * limit) if steps else 0.0), steps


def smallest_filling(groups: list[list[Shape]], limit: int, start: int = 1, tries: int = 400) -> tuple[int, float] | None:
    """The fewest copies n >= ``start`` of ``groups`` (a trial's cells, or a unit's: cycled) whose plan
    keeps >= PLAN of ``limit`` in flight and runs at least twice as long as its longest cell, and
    that share; None when none of ``tries`` does. A plan of one wave ends on its cells' ragged ends
    (their turns differ in length, which the steps do not see): measured, intents' one wave of 250
    cells kept 0.86-0.89 where the simulation promised 0.98. And what each cell keeps in flight through
    its run must pack its waves to >= FILL: atr's 420 learning cells at 256 (``--trials 7``) ran a
    second wave of 164 for 45 s, which the simulation, whose oracle bursts filled it, did not see."""
    longest = max((length(s) for g in groups for s in g), default=0)
    for n in range(start, start + tries):
        shapes = [s for i in range(n) for s in groups[i % len(groups)]]
        # the slots the long cells (half the longest or more) keep through their run; short bursts aside
        held = sum(s[1] if s[1] and not s[0] else 1 for s in shapes if 2 * length(s) >= longest)
        if math.ceil(held / limit) * limit * FILL > held:  # the last wave of the long cells would run thin
            continue
        share, steps = stepped(in_order(shapes), limit)
        if share >= PLAN and steps >= 2 * longest:
            return n, share
    return None


def flight(p: Prepared) -> Flight:
    from longview.harness.costs import calls_model

    roles_call_models = bool(p.cfg.role_models)
    # External agents on their own call no model through longview (a harness with --model does).
    cells = [c for c in p.cells if roles_call_models or calls_model(p, c.agent)]
    shapes = {c: shape(p, c) for c in cells}
    wide = [s[1] or 1 for s in shapes.values()]
    # A cell whose sessions all run at once keeps them in flight throughout; others one at a time.
    steady_of = [s[1] if s[1] and not s[0] else 1 for s in shapes.values()]
    limit = p.cfg.max_concurrency
    most, steady = min(limit, sum(wide)), min(limit, sum(steady_of))
    available = len(p.dataset.unit_ids())
    share = simulate(in_order(list(shapes.values())), limit) if cells else 0.0
    trials = units_fill = None
    share_at_fill = 0.0
    if cells and share < PLAN:
        first = min(c.trial for c in cells)
        found = smallest_filling([[shapes[c] for c in cells if c.trial == first]], limit)
        if found:
            trials, share_at_fill = found
        per_unit: dict[str, list[Shape]] = {}
        for c in cells:
            per_unit.setdefault(c.unit, []).append(shapes[c])
        # as many units as those trials hold cells, less a wave's worth: fewer would not reach the limit
        by_units = smallest_filling(list(per_unit.values()), limit,
                                    start=max(1, len(per_unit) * ((trials or 1) - 1)))
        units_fill = by_units[0] if by_units else None
    alone = any(ext.model is None for ext in p.external.values())
    # One process keeps ~128 requests in flight at 1 s a call before its own CPU (2-5 ms a call,
    # measured) queues them; beyond that, more processes (bench_fill: tempo 0.86 -> 0.96 of 256).
    held = limit if trials else most  # a suggested plan keeps about the limit in flight
    workers = min(os.cpu_count() or 1, math.ceil(held / HELD_BY_ONE)) if p.cfg.executor == "local" else 1
    workers = workers if cells and p.cfg.workers < workers else 1
    return Flight(len(cells), max(wide, default=1), most, steady, limit, share, trials, units_fill, available,
                  share_at_fill, workers, agents_alone=alone)
