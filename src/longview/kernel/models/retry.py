"""Retry with exponential backoff and jitter for transient provider failures.

Retried: HTTP 429 (honouring ``Retry-After``, capped), 5xx, timeouts and connection errors —
anything raised as a retryable :class:`ProviderError`. Not retried: other 4xx (the request
itself is wrong, so repeating it only burns quota). The sleep function and RNG are injectable
so tests run instantly and deterministically.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from .contracts import ModelCallFailed, ProviderError

T = TypeVar("T")


@dataclass
class RetryPolicy:
    """How often and how patiently to retry a model call.

    Attempt ``n`` (1-based) that fails transiently waits ``min(max_delay, base_delay * 2**(n-1))``
    seconds, scaled into ``[d/2, d]`` when ``jitter`` is on (so parallel cells hitting the same
    rate limit spread out), or the server's ``Retry-After`` capped at ``max_delay``.
    """

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: bool = True
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("RetryPolicy.max_attempts must be at least 1")

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_delay))
        d = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return d * (0.5 + 0.5 * self.rng.random()) if self.jitter else d

    async def call(self, fn: Callable[[], Awaitable[T]], *, label: str) -> T:
        """Await ``fn()`` until it succeeds, or raise :class:`ModelCallFailed` naming ``label``."""
        last: ProviderError | None = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                return await fn()
            except ProviderError as err:
                last = err
                if not err.retryable:
                    raise ModelCallFailed(
                        f"{label}: {_describe(err)} (not retryable) after {attempt} attempt(s)",
                        model=label,
                        attempts=attempt,
                        status=err.status,
                    ) from None
                if attempt < self.max_attempts:
                    await self.sleep(self.delay(attempt, err.retry_after))
        assert last is not None  # max_attempts >= 1, so the loop ran and failed
        raise ModelCallFailed(
            f"{label}: gave up after {self.max_attempts} attempt(s); last error: {_describe(last)}",
            model=label,
            attempts=self.max_attempts,
            status=last.status,
        ) from None


def _describe(err: ProviderError) -> str:
    return f"HTTP {err.status}: {err.message}" if err.status is not None else err.message


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date); None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
