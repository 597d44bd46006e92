"""Where a run's cells execute: the seam between the harness and an execution engine.

:class:`LocalExecutor` (the default) runs every cell in this process with asyncio: sessions in
flight are bounded across the run by ``--max-concurrency``, and as many cells as sessions may be in
flight. ``--executor ray`` spreads the same cells over a Ray cluster
(:mod:`longview.harness.ray_executor`, imported only when chosen). Every executor runs a cell
through :func:`run_one`, leaves the completion marker to the run store on the driver, and reports
usage, so the run folder, resume and the scorecard are the same whichever ran the cells.
"""

from __future__ import annotations

import asyncio
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from longview.harness.cell import Cell
from longview.harness.context import CellContext
from longview.harness.harnesses import keep, settle
from longview.harness.slots import PrioritySlots
from longview.kernel.errors import CellAborted, ConfigError

if TYPE_CHECKING:
    from longview.harness.plan import Prepared
    from longview.harness.runstore import RunStore

OnSession = Callable[[], None]
OnCell = Callable[[Cell, BaseModel], None]


async def run_one(p: Prepared, cell: Cell, folder: Path, slots: AbstractAsyncContextManager[Any],
                  on_session: OnSession, store: RunStore | None) -> BaseModel:
    """Run one cell into ``folder`` (the store's cell folder, or a scratch folder when ``store`` is
    None: trace file names are the same); a ``CellAborted`` becomes the cell's aborted marker."""
    from longview.harness.plan import AbortedCell, make_agent

    agent = make_agent(p, cell)
    ctx = CellContext(cell=cell, dataset=p.dataset, options=p.options, agent=agent,
                      components=p.components, roles=p.roles, folder=folder, seed=p.cfg.seed,
                      max_turns=p.cfg.max_turns, slots=slots, on_session=on_session,  # type: ignore[arg-type]
                      store=store)
    try:
        result: BaseModel = await p.suite.run_cell(ctx)
        return result
    except CellAborted as e:
        return AbortedCell(agent=cell.agent, variant=cell.variant, unit=cell.unit, trial=cell.trial,
                           abort_reason=e.reason)
    finally:  # an external agent stops what it started for the cell (processes, servers)
        keep(agent, folder)  # what its processes said they are (name, version), for the driver's settle
        ext = p.external.get(cell.agent)
        if ext is not None and not ext.shared and (close := getattr(agent, "aclose", None)) is not None:
            await close()


def rebuild(cfg_json: str, cwd: str, sha256: str, where: str) -> Prepared:
    """The driver's run, rebuilt in another process from its config (``prepare`` is pure), with
    relative dataset and cache paths meaning what they meant in the driver; a dataset that does
    not hash as the driver's is refused (``where`` names the process in the message)."""
    from longview.harness.options import RunConfig
    from longview.harness.plan import prepare

    if os.path.isdir(cwd):
        os.chdir(cwd)
    p = prepare(RunConfig.model_validate_json(cfg_json))
    if p.dataset.sha256 != sha256:
        raise ConfigError(f"dataset '{p.dataset.name}' {where} differs from the driver's "
                          f"(sha256 {p.dataset.sha256[:12]} != {sha256[:12]})")
    return p


class Executor(ABC):
    """Runs the unfinished cells of a prepared run into its run store."""

    name: str

    def connect(self, p: Prepared) -> None:  # noqa: B027 (optional hook)
        """Reach the execution engine (join or start a cluster), before the run folder is written."""

    def start(self, p: Prepared, store: RunStore) -> dict[str, Any]:
        """Bring up whatever runs the cells into the opened ``store``; returns what the manifest
        records (``executor``)."""
        return {"name": self.name}

    @abstractmethod
    async def run_cells(self, p: Prepared, store: RunStore, todo: list[Cell], on_session: OnSession,
                        on_cell: OnCell) -> None:
        """Run ``todo`` (longest first); each finished cell gets its marker, then ``on_cell``."""

    @abstractmethod
    def usage(self, p: Prepared) -> dict[str, Any]:
        """Model usage of this invocation so far (a ``UsageSummary`` dump), also after a failure."""

    def stop(self) -> None:  # noqa: B027 (optional hook: most executors hold nothing)
        """Release what ``connect`` and ``start`` brought up (called whatever happened)."""


class LocalExecutor(Executor):
    """Every cell in this process, on one asyncio loop."""

    name = "local"

    def start(self, p: Prepared, store: RunStore) -> dict[str, Any]:
        return {"name": self.name, "nodes": 1, "cpus": os.cpu_count() or 1, "workers": 1}

    async def run_cells(self, p: Prepared, store: RunStore, todo: list[Cell], on_session: OnSession,
                        on_cell: OnCell) -> None:
        slots = PrioritySlots(p.cfg.max_concurrency)  # sessions in flight across the run, first cells first
        # As many cells open as slots: finished cells land early. (A quarter more, set up and waiting,
        # made the slots rotate among more cells than they serve: atr --trials 8 --workers 2 kept 0.74.)
        cell_slots = asyncio.Semaphore(p.cfg.max_concurrency)

        async def one(rank: int, cell: Cell) -> None:
            async with cell_slots:
                folder = store.start_cell(cell.key)
                result = settle(p, store, cell, await run_one(p, cell, folder, slots.for_cell(rank), on_session, store))
                store.finish_cell(cell.key, result)
                on_cell(cell, result)

        try:
            await asyncio.gather(*(one(rank, c) for rank, c in enumerate(todo)))
        finally:
            await p.roles.aclose()

    def usage(self, p: Prepared) -> dict[str, Any]:
        return p.roles.ledger.summary().model_dump()


EXECUTORS = ("local", "ray")
