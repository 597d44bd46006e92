"""What the harness hands a suite's ``run_cell``: the cell, its agent, shared components, model
roles, its run-store folder, one simulated clock, and a bounded slot per session."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from longview.harness.roles import Roles
from longview.harness.suite import Cell, Dataset
from longview.kernel.agent import Agent
from longview.kernel.clock import SimClock
from longview.kernel.trace import TraceWriter


@dataclass
class CellContext:
    """Per-cell services. Sessions that may run at once should each be wrapped in ``session()``:
    the harness bounds sessions in flight across the whole run (``--max-concurrency``)."""

    cell: Cell
    dataset: Dataset
    options: BaseModel  # the suite's validated Options
    agent: Agent
    components: Any
    roles: Roles
    folder: Path
    seed: int = 0
    max_turns: int = 20
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    on_session: Callable[[], None] = lambda: None
    clock: SimClock | None = None

    def start_clock(self, start: datetime) -> SimClock:
        """The cell's one simulated clock; a suite may advance it between sessions."""
        self.clock = SimClock(start)
        return self.clock

    def trace(self, session_id: str) -> TraceWriter:
        """A transcript writer for one session of this cell (``<folder>/<session_id>.jsonl``)."""
        return TraceWriter(self.folder / f"{session_id}.jsonl", session_id)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        """Hold one of the run's session slots while a session runs; count it when it ends."""
        async with self.slots:
            yield
        self.on_session()
        await asyncio.sleep(0)  # a yield point between sessions: cancellation and progress stay prompt
