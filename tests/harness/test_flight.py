"""Concurrency you can see and get: the dry run's in-flight figures, and a cell queue that admits the
next cell as soon as any finishes (no rounds), checked by a gate that counts cells in flight."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from longview.harness import plan as plan_mod
from longview.harness.cell import Cell
from longview.harness.executor import LocalExecutor
from longview.harness.flight import flight
from longview.harness.options import RunConfig
from longview.harness.plan import prepare


def test_dry_run_figures_for_a_model_plan():
    p = prepare(RunConfig(suite="intents", models=["mock/echo"], max_concurrency=256), dry_run=True)
    f = flight(p)
    assert f.model_cells == 5 and f.per_cell == 1 and f.most == 5
    assert f.trials_to_fill == 52 and f.units_to_fill == 256 and f.units_available == 5
    assert "--trials 52" in f.lines()[1]
    # atr: a cell's test sessions run side by side, so a cell can keep several requests in flight.
    a = flight(prepare(RunConfig(suite="atr", models=["mock/echo"], units=1, variants=["oracle_target"],
                                 max_concurrency=256), dry_run=True))
    assert a.model_cells == 1 and a.per_cell > 1 and a.most == a.per_cell and a.steady == 1
    assert a.trials_to_fill == 256 and "while cells run sessions in order" in a.lines()[0]
    # Reference agents alone call no model.
    r = flight(prepare(RunConfig(suite="intents", max_concurrency=8), dry_run=True))
    assert r.model_cells == 0 and r.lines() == ["in flight: no model requests (reference agents only)"]


def test_the_next_cell_starts_as_soon_as_any_cell_finishes(monkeypatch, tmp_path: Path):
    """Limit 2; cell a is long, b short, c waits: c must start while a still runs (with rounds it
    would wait for a)."""
    events: list[str] = []
    in_flight = peak = 0
    a_done = asyncio.Event()

    async def run_cell(ctx):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        events.append(f"start {ctx.cell.unit}")
        if ctx.cell.unit == "a":
            while "start c" not in events:  # a ends only after c started
                await asyncio.sleep(0.001)
            a_done.set()
        else:
            await asyncio.sleep(0.001)
        events.append(f"end {ctx.cell.unit}")
        in_flight -= 1
        return SimpleNamespace(status="complete")

    async def aclose():
        return None

    monkeypatch.setattr(plan_mod, "make_agent", lambda p, cell: None)
    p = SimpleNamespace(suite=SimpleNamespace(run_cell=run_cell), cfg=SimpleNamespace(max_concurrency=2, seed=0, max_turns=3),
                        dataset=None, options=None, components=None, roles=SimpleNamespace(aclose=aclose),
                        external={})
    store = SimpleNamespace(start_cell=lambda key: tmp_path, finish_cell=lambda key, result: None)
    cells = [Cell(agent="x", variant="v", unit=u) for u in "abc"]
    asyncio.run(asyncio.wait_for(LocalExecutor().run_cells(p, store, cells, lambda: None, lambda c, r: None), 10))
    assert events.index("start c") < events.index("end a") and a_done.is_set()
    assert peak == 2
