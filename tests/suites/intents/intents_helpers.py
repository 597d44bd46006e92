"""Run intents cells directly (hand-built CellContext), as the harness would."""

from __future__ import annotations

import asyncio
from pathlib import Path

from longview.harness.context import CellContext
from longview.harness.roles import Roles
from longview.harness.suite import Cell
from longview.suites.intents.suite import IntentsOptions, IntentsSuite


def run_cells(suite: IntentsSuite, ds, agents, variants, folder: Path, *, trials: int = 1, roles: Roles | None = None,
              options: IntentsOptions | None = None, agent_factory=None) -> list[str]:
    roles = roles or Roles({})
    options = options or IntentsOptions()
    comps = suite.components(roles, options)
    out = []
    for agent in agents:
        for variant in variants:
            for unit in ds.unit_ids():
                for t in range(trials):
                    cell = Cell(agent=agent, variant=variant, unit=unit, trial=t)
                    a = agent_factory(agent, unit, t) if agent_factory else suite.reference_agent(agent, ds, unit)
                    ctx = CellContext(cell=cell, dataset=ds, options=options, agent=a, components=comps, roles=roles,
                                      folder=folder / cell.key)
                    out.append(asyncio.run(suite.run_cell(ctx)).model_dump_json())
    return out
