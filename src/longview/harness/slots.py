"""The run's session slots (``--max-concurrency``), served to the longest cell first.

A plain semaphore serves waiters first come, first served, so a cell that opens many sessions at
once (atr's test sessions, prefs' final probes) takes every slot that frees while the long cells,
which run their sessions one at a time, wait behind it: the long cells then end late and the run
ends on a thin tail. Serving waiters by the cell's place in the run's order (longest first, see
:func:`longview.harness.flight.order_key`) lets the long cells keep their one slot each, and the
short, wide cells fill what is left, in the middle of the run and in its tail.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from typing import Any


class PrioritySlots:
    """``n`` slots; a waiter with a smaller key is served first (ties: first come)."""

    def __init__(self, n: int) -> None:
        self.free = n
        self._waiters: list[tuple[Any, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    async def acquire(self, key: Any) -> None:
        if self.free > 0 and not self._waiters:
            self.free -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (key, next(self._seq), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # granted as it was cancelled: pass the slot on
                self.release()
            raise

    def release(self) -> None:
        while self._waiters:
            _, _, fut = heapq.heappop(self._waiters)
            if not fut.done():  # a cancelled waiter's future is done: skip it
                fut.set_result(None)
                return
        self.free += 1

    def for_cell(self, key: Any) -> CellSlots:
        """The slots as one cell takes them: ``async with`` acquires with the cell's key."""
        return CellSlots(self, key)


class CellSlots:
    """``async with`` one slot at a cell's priority."""

    __slots__ = ("key", "slots")

    def __init__(self, slots: PrioritySlots, key: Any) -> None:
        self.slots, self.key = slots, key

    async def __aenter__(self) -> None:
        await self.slots.acquire(self.key)

    async def __aexit__(self, *exc: Any) -> None:
        self.slots.release()
