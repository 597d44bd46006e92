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
    assert f.model_cells == 5 and f.per_cell == 1 and f.most == 5 and f.steady == 5
    # 47 trials: 235 cells at once (0.92 of 256); 52 would leave a second wave of 4 (0.51 over the run).
    assert f.trials_to_fill == 47 and f.steady_at_fill == 235 and f.units_to_fill == 231 and f.units_available == 5
    assert "--trials 47 (235 at once)" in f.lines()[1]
    # atr: a cell's test sessions run side by side; without a learning phase that is the whole cell.
    a = flight(prepare(RunConfig(suite="atr", models=["mock/echo"], units=1, variants=["oracle_target"],
                                 max_concurrency=256), dry_run=True))
    assert a.model_cells == 1 and a.per_cell > 1 and a.most == a.per_cell == a.steady
    assert "sessions_in_flight" in a.lines()[0]
    learning = flight(prepare(RunConfig(suite="atr", models=["mock/echo"], units=1, variants=["atr"],
                                        max_concurrency=256), dry_run=True))
    assert learning.per_cell == a.per_cell and learning.steady == 1  # learning sessions run in order
    # Reference agents alone call no model.
    r = flight(prepare(RunConfig(suite="intents", max_concurrency=8), dry_run=True))
    assert r.model_cells == 0 and r.lines() == ["in flight: no model requests (reference agents only)"]


def test_every_suite_says_how_many_sessions_a_cell_runs_at_once():
    def fl(suite: str, **options) -> object:
        return flight(prepare(RunConfig(suite=suite, models=["mock/echo"], units=1, max_concurrency=256,
                                        suite_options=options), dry_run=True))

    t1, t3 = fl("tempo"), fl("tempo", repeats=3)
    assert (t1.per_cell, t1.steady) == (1, 1) and (t3.per_cell, t3.steady) == (3, 3)  # repeats run at once
    prefs = prepare(RunConfig(suite="prefs", models=["mock/echo"], units=1, variants=["none"], max_concurrency=256,
                              suite_options={"trace": False, "repeats": 2}), dry_run=True)
    finals = len(prefs.dataset.get(prefs.cells[0].unit).final_probes)
    pf = flight(prefs)
    assert pf.per_cell == 2 * finals and pf.steady == 1  # final probes at once; sessions in order
    assert fl("intents").per_cell == 1  # each session builds on the last


def test_suggested_trials_pack_their_waves():
    from longview.harness.flight import packing, smallest_filling

    assert packing(270, 256) < 0.6 and packing(240, 256) > 0.9 and packing(510, 256) > 0.99
    assert smallest_filling(30, 256) == 8  # 240 at once, not 9 (270: a second wave of 14)
    assert smallest_filling(90, 256) == 8  # 720 sessions in three waves of 256: 0.94


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
