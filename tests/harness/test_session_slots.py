"""Session slots (``ctx.session()``) with ``gather_sessions``: when one session fails, a sibling
that was waiting for its slot never starts its work (no model request after the cell is lost),
and no slot leaks."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from longview.harness.cell import Cell
from longview.harness.context import CellContext, gather_sessions
from longview.harness.roles import Roles


def context(slots: asyncio.Semaphore, done: list[str]) -> CellContext:
    return CellContext(cell=Cell(agent="ref:x", variant="v", unit="u"), dataset=None, options=None,  # type: ignore[arg-type]
                       agent=None, components=None, roles=Roles({}, no_cache=True), folder=Path("."),  # type: ignore[arg-type]
                       slots=slots, on_session=lambda: done.append("counted"))


async def test_a_failed_session_stops_siblings_before_they_start():
    slots = asyncio.Semaphore(1)
    started: list[str] = []
    done: list[str] = []
    ctx = context(slots, done)

    async def session(name: str, fail: bool) -> str:
        async with ctx.session():
            started.append(name)  # what a session does first: send its first model request
            if fail:
                raise RuntimeError("the model is down")
            await asyncio.sleep(0)
        return name

    with pytest.raises(RuntimeError, match="the model is down"):
        await gather_sessions(session("a", True), session("b", False), session("c", False))
    assert started == ["a"]
    assert done == []  # a failed session is not counted as finished
    assert not slots.locked()  # every slot came back


async def test_sessions_that_succeed_all_run_and_are_counted():
    slots = asyncio.Semaphore(2)
    done: list[str] = []
    ctx = context(slots, done)

    async def session(name: str) -> str:
        async with ctx.session():
            await asyncio.sleep(0)
        return name

    assert await gather_sessions(*(session(n) for n in "abcde")) == list("abcde")
    assert done == ["counted"] * 5 and not slots.locked()
