"""What the harness hands a suite's ``run_cell``: the cell, its agent, shared components, model
roles, its run-store folder, one simulated clock, and a bounded slot per session."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from longview.harness.cell import Cell, Dataset
from longview.harness.roles import Roles
from longview.harness.runstore import RunStore
from longview.kernel.agent import Agent
from longview.kernel.clock import SimClock
from longview.kernel.errors import ConfigError
from longview.kernel.ids import id_problem, path_component
from longview.kernel.trace import TraceWriter

T = TypeVar("T")
DatasetT = TypeVar("DatasetT", bound=Dataset)
OptionsT = TypeVar("OptionsT", bound=BaseModel)


async def gather_sessions(*aws: Awaitable[T]) -> list[T]:
    """Await sessions concurrently, results in argument order. If one fails, the others are
    cancelled (no orphan keeps writing into a cell folder) and the first error is raised as is."""
    try:
        async with asyncio.TaskGroup() as tg:
            tasks: list[asyncio.Task[T]] = [tg.create_task(a) for a in aws]  # type: ignore[arg-type]
    except BaseExceptionGroup as group:
        first = group.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None
    return [t.result() for t in tasks]


@dataclass
class CellContext(Generic[DatasetT, OptionsT]):
    """Per-cell services. Sessions that may run at once should each be wrapped in ``session()``:
    the harness bounds sessions in flight across the whole run (``--max-concurrency``)."""

    cell: Cell
    dataset: DatasetT
    options: OptionsT  # the suite's validated Options
    agent: Agent
    components: Any
    roles: Roles
    folder: Path
    seed: int = 0
    max_turns: int = 20
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    on_session: Callable[[], None] = lambda: None
    clock: SimClock | None = None
    store: RunStore | None = None  # set by the harness: traces are named only through the store

    def start_clock(self, start: datetime) -> SimClock:
        """The cell's one simulated clock; a suite may advance it between sessions."""
        self.clock = SimClock(start)
        return self.clock

    def trace(self, session_id: str) -> TraceWriter:
        """A transcript writer for one session of this cell (``<folder>/<session_id>.jsonl``; an id
        that is not a plain name is slugged and hashed). A session id that is not a safe name
        (separators, ``..``, control characters...) is refused: no trace lands outside the cell."""
        if self.store is not None:
            return TraceWriter(self.store.session_path(self.cell.key, session_id), session_id)
        problem = id_problem(session_id)
        if problem:
            raise ConfigError(f"cell {self.cell.key}: session id {session_id!r:.80}: expected {problem}")
        return TraceWriter(self.folder / f"{path_component(session_id)}.jsonl", session_id)

    def session(self) -> _SessionSlot:
        """Hold one of the run's session slots while a session runs; count it when it ends."""
        return _SessionSlot(self)


class _SessionSlot:
    """``async with ctx.session():`` (a plain class: cheaper than a generator-based context
    manager, and a run enters one per session)."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: CellContext[Any, Any]) -> None:
        self.ctx = ctx

    async def __aenter__(self) -> None:
        await self.ctx.slots.__aenter__()
        # A yield point before the session's work: when a sibling session failed and freed this
        # slot, its group's cancellation lands here, before this session sends a model request
        # (on a kept-alive connection the first request would go out before any other yield).
        try:
            await asyncio.sleep(0)
        except BaseException:
            await self.ctx.slots.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: Any) -> None:
        await self.ctx.slots.__aexit__(*exc)
        if exc[0] is None:
            self.ctx.on_session()
