"""Shared fixtures for the tempo tests: built-in scenarios and a helper that runs one cell."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from longview.harness.context import CellContext
from longview.harness.roles import Roles
from longview.harness.suite import Cell
from longview.kernel.clock import SimClock
from longview.kernel.trace import TraceWriter
from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.dataset import load
from longview.suites.tempo.runner import ScenarioRun
from longview.suites.tempo.suite import TempoSuite


@pytest.fixture(scope="session")
def builtin():
    return load("builtin")


def run_world(scenario, persona, agent):
    run = ScenarioRun(scenario, persona, agent, SimClock(scenario.start), lambda sid: TraceWriter(None, sid))
    return asyncio.run(run.run())


def ref_world(scenario, persona, mode):
    return run_world(scenario, persona, ReferenceAgent(mode, scenario, persona))


@pytest.fixture(scope="session")
def run_cells():
    return _run_cells


def _run_cells(agents, units, tmp: Path, persona=None, agent_factory=None, models=None, api_base=None, repeats=1):
    """Run cells through the Suite contract with a hand-built CellContext; return the scorecard."""
    suite = TempoSuite()
    opts = suite.Options(persona=persona, repeats=repeats)
    data = suite.load_dataset("builtin", opts)
    roles = Roles(dict(models or {}), no_cache=True, api_base=api_base, max_attempts=1)
    comps = suite.components(roles, opts)
    results = []
    for a in agents:
        for u in units:
            cell = Cell(agent=a, variant=persona or "default", unit=u)
            folder = tmp / cell.key.replace(":", "_")
            folder.mkdir(parents=True)
            agent = agent_factory(a, u) if agent_factory else suite.reference_agent(a, data, u)
            ctx = CellContext(cell=cell, dataset=data, options=opts, agent=agent, components=comps, roles=roles, folder=folder)
            results.append(asyncio.run(suite.run_cell(ctx)).model_dump_json())
    return suite.score(results, data, opts, seed=0), results
