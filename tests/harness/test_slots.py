"""The run's session slots serve waiting cells in the run's order (longest first), not first come."""

from __future__ import annotations

import asyncio

from longview.harness.slots import PrioritySlots


def test_waiters_are_served_by_rank_then_arrival():
    async def main() -> list[str]:
        slots = PrioritySlots(1)
        order: list[str] = []
        await slots.acquire(0)  # taken: everyone below waits

        async def take(rank: int, name: str) -> None:
            async with slots.for_cell(rank):
                order.append(name)

        tasks = [asyncio.create_task(take(r, n)) for r, n in [(5, "late-a"), (1, "early"), (5, "late-b"), (3, "mid")]]
        await asyncio.sleep(0)
        slots.release()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(main()) == ["early", "mid", "late-a", "late-b"]


def test_a_cancelled_waiter_does_not_keep_a_slot():
    async def main() -> int:
        slots = PrioritySlots(1)
        await slots.acquire(0)
        waiter = asyncio.create_task(slots.acquire(1))
        await asyncio.sleep(0)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
        slots.release()  # nobody waits now: the slot is free again
        await asyncio.wait_for(slots.acquire(2), 1)
        return slots.free

    assert asyncio.run(main()) == 0


def test_a_slot_granted_as_its_waiter_is_cancelled_passes_on():
    async def main() -> bool:
        slots = PrioritySlots(1)
        await slots.acquire(0)
        first = asyncio.create_task(slots.acquire(1))
        second = asyncio.create_task(slots.acquire(2))
        await asyncio.sleep(0)
        slots.release()  # granted to first ...
        first.cancel()  # ... which is cancelled before it runs: the slot goes to second
        await asyncio.gather(first, return_exceptions=True)
        await asyncio.wait_for(second, 1)
        return second.done() and slots.free == 0

    assert asyncio.run(main())
