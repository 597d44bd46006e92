"""A simulated clock: episodes read time from here, never from the wall clock."""

from __future__ import annotations

from datetime import datetime, timedelta


class SimClock:
    """Time that only moves when told to, so runs are reproducible."""

    def __init__(self, start: datetime) -> None:
        self._now = start
        self._iso: tuple[datetime, str] | None = None

    def now(self) -> datetime:
        """The current simulated time."""
        return self._now

    def iso(self) -> str:
        """The current simulated time in ISO form (kept until the clock moves: every trace event
        is stamped with it)."""
        if self._iso is None or self._iso[0] is not self._now:
            self._iso = (self._now, self._now.isoformat())
        return self._iso[1]

    def advance(self, delta: timedelta | None = None, **parts: float) -> datetime:
        """Move forward by ``delta`` and/or timedelta keyword parts (days=, hours=, ...)."""
        step = (delta or timedelta()) + timedelta(**parts)
        if step < timedelta():
            raise ValueError("a simulated clock cannot go backwards")
        self._now += step
        return self._now
