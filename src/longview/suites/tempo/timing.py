"""User availability on the simulated clock: asleep, busy (a focus block or meeting) or awake."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from longview.suites.tempo.schema import Availability

Status = Literal["awake", "busy", "asleep"]


def asleep(av: Availability, t: datetime) -> bool:
    """Sleep runs daily from ``av.sleep`` to ``av.wake`` (across midnight when sleep > wake)."""
    now = t.time()
    if av.sleep > av.wake:
        return now >= av.sleep or now < av.wake
    return av.sleep <= now < av.wake


def status(av: Availability, t: datetime) -> Status:
    if asleep(av, t):
        return "asleep"
    if any(b.start <= t < b.end for b in av.busy):
        return "busy"
    return "awake"


def next_wake(av: Availability, t: datetime) -> datetime:
    """The first time >= t the user is not asleep."""
    if not asleep(av, t):
        return t
    day = t.replace(hour=av.wake.hour, minute=av.wake.minute, second=0, microsecond=0)
    return day if day > t else day + timedelta(days=1)


def next_available(av: Availability, t: datetime) -> datetime:
    """The first time >= t the user is awake and not busy (can read and decide)."""
    for _ in range(64):
        t = next_wake(av, t)
        block = next((b for b in av.busy if b.start <= t < b.end), None)
        if block is None:
            return t
        t = block.end
    return t


def next_sleep(av: Availability, t: datetime) -> datetime:
    """The next bedtime after t."""
    day = t.replace(hour=av.sleep.hour, minute=av.sleep.minute, second=0, microsecond=0)
    return day if day > t else day + timedelta(days=1)


def hm(t: datetime) -> str:
    """'Mon 09:00' style stamp for texts the agent and the timeline read."""
    return t.strftime("%a %d %b %H:%M")
