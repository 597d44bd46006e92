"""A simulated clock: episodes read time from here, never from the wall clock."""

from __future__ import annotations

from datetime import datetime, timedelta


class SimClock:
    """Time that only moves when told to, so runs are reproducible."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        """The current simulated time."""
        return self._now

    def advance(self, delta: timedelta | None = None, **parts: float) -> datetime:
        """Move forward by ``delta`` and/or timedelta keyword parts (days=, hours=, ...)."""
        step = (delta or timedelta()) + timedelta(**parts)
        if step < timedelta():
            raise ValueError("a simulated clock cannot go backwards")
        self._now += step
        return self._now
