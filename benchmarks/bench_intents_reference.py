"""Run every intents reference agent on the full built-in dataset (both variants) and time it.

Prints each row's PROC / COMP (persona-macro, trial mean and std) and the wall time. Until the
harness executor drives suites, cells are run through ``IntentsSuite.run_cell`` with a hand-built
CellContext. Run: python benchmarks/bench_intents_reference.py [--trials 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from longview.harness.context import CellContext
from longview.harness.roles import Roles
from longview.harness.suite import Cell
from longview.suites.intents.suite import IntentsOptions, IntentsSuite


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    suite = IntentsSuite()
    ds = suite.load_dataset("builtin", IntentsOptions())
    comps = suite.components(Roles({}), IntentsOptions())
    results = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for agent in suite.reference_agents:
            for variant in suite.variants:
                for unit in ds.unit_ids():
                    for t in range(args.trials):
                        cell = Cell(agent=agent, variant=variant, unit=unit, trial=t)
                        ctx = CellContext(cell=cell, dataset=ds, options=IntentsOptions(),
                                          agent=suite.reference_agent(agent, ds, unit), components=comps,
                                          roles=Roles({}), folder=Path(tmp) / cell.key)
                        results.append(asyncio.run(suite.run_cell(ctx)).model_dump_json())
    wall = time.perf_counter() - t0
    sc = suite.score(results, ds, IntentsOptions(), 0)
    for r in sc.rows:
        m = r.metrics
        print(f"{r.agent:12s} {r.variant:10s} PROC {m['proc']:.3f} (std {r.extra['trial_std']['proc']}) "
              f"COMP {m['comp']:.3f}  completed {m['completed']:.2f} elicited {m['elicited']:.2f} "
              f"provided {m['provided']:.2f}  n={r.n} trials={r.trials}")
    sessions = len(results) * 20
    print(f"{len(results)} cells, {sessions} sessions in {wall:.1f}s ({sessions / wall:.1f} sessions/s)")


if __name__ == "__main__":
    main()
