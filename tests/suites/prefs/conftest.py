import asyncio
from pathlib import Path

import pytest

from longview.harness.cell import Cell
from longview.harness.context import CellContext
from longview.harness.roles import Roles
from longview.suites.prefs.dataset import builtin
from longview.suites.prefs.suite import PrefsOptions, PrefsSuite


@pytest.fixture(scope="session")
def ds():
    return builtin()


def make_ctx(tmp: Path, agent_name: str, memory: str, unit: str = "user_a", agent=None, trace: bool = False,
             components=None) -> CellContext:
    suite = PrefsSuite()
    data = builtin()
    opts = PrefsOptions(trace=trace, repeats=1)  # one repeat keeps tests fast; the default (3) is tested by CLI runs
    agent = agent or suite.reference_agent(agent_name, data, unit)
    return CellContext(cell=Cell(agent=agent_name, variant=memory, unit=unit), dataset=data, options=opts,
                       agent=agent, components=components or suite.components(Roles({}), opts), roles=Roles({}),
                       folder=tmp)


def run_cells(tmp: Path, specs, unit: str = "user_a"):
    """Run (agent, memory) cells for one user; returns the suite's scorecard."""
    suite = PrefsSuite()
    results = []
    for i, (agent, memory) in enumerate(specs):
        ctx = make_ctx(tmp / f"c{i}", agent, memory, unit)
        results.append(asyncio.run(suite.run_cell(ctx)).model_dump_json())
    return suite.score(results, builtin(), PrefsOptions(), seed=0)
