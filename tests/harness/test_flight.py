"""Concurrency you can see and get: the dry run's in-flight figures, and a cell queue that admits the
next cell as soon as any finishes (no rounds), checked by a gate that counts cells in flight."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from longview.harness import plan as plan_mod
from longview.harness.cell import Cell
from longview.harness.executor import LocalExecutor
from longview.harness.flight import PLAN, flight, in_order, simulate
from longview.harness.options import RunConfig
from longview.harness.plan import prepare


def test_dry_run_figures_for_a_model_plan():
    p = prepare(RunConfig(suite="intents", models=["mock/echo"], max_concurrency=256), dry_run=True)
    f = flight(p)
    assert f.model_cells == 5 and f.per_cell == 1 and f.most == 5 and f.steady == 5
    assert f.share < 0.05  # 5 cells, one session each at a time, against 256
    # The suggestion is the fewest trials whose plan keeps >= PLAN of the limit over the run and lasts
    # twice its longest cell: 5 cells a trial, so not 50 (250 cells, one wave: a run ends on the
    # ragged ends of its cells) but 100 (500 cells: 256, then the rest as cells end; 0.98).
    assert f.trials_to_fill == 100 and f.share_at_fill >= PLAN and f.units_available == 5
    assert f.units_to_fill is not None and f.units_to_fill > 5
    assert any("--trials 100 (the plan keeps about 98%)" in line for line in f.lines())
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


def test_atr_suggestion_is_time_weighted():
    """atr's learning cells keep one session in flight for most of the run and its oracle cells are
    one short burst: a plan of 240 learning cells (trials 3) keeps less than 0.97 of 256, and
    5 trials (300 learning cells: 256, then a second wave of 44) far less than 4 (240 + oracles)."""
    def share(trials: int) -> float:
        return flight(prepare(RunConfig(suite="atr", models=["mock/echo"], trials=trials, max_concurrency=256),
                              dry_run=True)).share

    assert share(4) > 0.97 and share(3) < 0.97 and share(5) < share(4) - 0.1
    f = flight(prepare(RunConfig(suite="atr", models=["mock/echo"], max_concurrency=256), dry_run=True))
    # 4 is one wave of learning cells; 7 (420 learning cells) would run a second wave of 164: 8 (480)
    assert f.trials_to_fill == 8


def test_a_large_limit_suggests_more_processes(monkeypatch):
    """One process's CPU per call queues its requests beyond ~128 in flight at 1 s a call."""
    monkeypatch.setattr("os.cpu_count", lambda: 4)

    def fl(limit: int, workers: int = 1, executor: str = "local") -> object:
        return flight(prepare(RunConfig(suite="intents", models=["mock/echo"], max_concurrency=limit, workers=workers,
                                        executor=executor), dry_run=True))

    assert fl(256).workers == 2 and any("--workers 2" in line for line in fl(256).lines())
    assert fl(512).workers == 4 and fl(64).workers == 1
    assert fl(256, workers=2).workers == 1  # already asked for
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert fl(256).workers == 1  # no second core to spread to


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


def test_simulated_share_sees_waves_lengths_and_bursts():
    # equal one-session cells: 270 at a limit of 256 run as 256, then 14
    assert simulate([(1, 0, 1)] * 270, 256) == 270 / 512
    assert simulate([(1, 0, 1)] * 240, 256) == 240 / 256
    # one long cell and short ones: the short ones fill the slots beside it, longest first
    assert simulate(in_order([(1, 0, 1)] * 6 + [(4, 0, 1)]), 2) == 10 / 10
    # the same cells shortest first leave the long one alone at the end
    assert simulate([(1, 0, 1)] * 6 + [(4, 0, 1)], 2) == 10 / 14
    # one session in order, then a burst of 3, each 2 steps long, with 2 slots: 1, 1, 2, 2, 1, 1 held
    assert simulate([(1, 3, 2)], 2) == 8 / 12
    # a cell that holds no session takes no step
    assert simulate([(0, 0, 1)], 4) == 0.0


def test_the_next_cell_starts_as_soon_as_any_cell_finishes(monkeypatch, tmp_path: Path):
    """Limit 2 (2 cells open at once); cell a is long, b and c short, d waits: c
    and then d must start while a still runs (with rounds they would wait for a)."""
    events: list[str] = []
    in_flight = peak = 0
    a_done = asyncio.Event()

    async def run_cell(ctx):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        events.append(f"start {ctx.cell.unit}")
        if ctx.cell.unit == "a":
            while "start d" not in events:  # a ends only after d started
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
    cells = [Cell(agent="x", variant="v", unit=u) for u in "abcd"]
    asyncio.run(asyncio.wait_for(LocalExecutor().run_cells(p, store, cells, lambda: None, lambda c, r: None), 10))
    assert events.index("start d") < events.index("end a") and a_done.is_set()
    assert peak == 2
