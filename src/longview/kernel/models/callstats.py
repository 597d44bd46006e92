"""What one provider call reports beside its answer: how it ended, and how fast it streamed.

:class:`~longview.kernel.models.client.ManagedClient` opens a :class:`CallStats` for each call in a
context variable; the provider client underneath (whatever wraps it in between, e.g. a provider
limit gate) fills it in; the usage ledger counts it. Nothing here changes the answer or its
:class:`~longview.kernel.agent.Usage`, so traces and cached turns keep their shape.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass


@dataclass
class CallStats:
    """One provider call's transport facts (zeros when the provider told nothing)."""

    finish_reason: str | None = None  # "stop", "tool_calls", "length" (hit max tokens)...
    streamed: bool = False  # the reply came as server-sent events
    first_token_s: float = 0.0  # request sent -> first content or tool-call byte (streamed only)
    decode_s: float = 0.0  # first token -> last chunk (streamed only)
    text_tool_calls: int = 0  # tool calls read from the reply's text (tool_calls=text)

    @property
    def truncated(self) -> bool:
        """The reply stopped at the output cap (``max_tokens``)."""
        return self.finish_reason == "length"


_current: contextvars.ContextVar[CallStats | None] = contextvars.ContextVar("longview_call_stats", default=None)


def current() -> CallStats | None:
    """The stats of the call in progress in this task, if a managed client opened one."""
    return _current.get()


def begin() -> tuple[CallStats, contextvars.Token]:
    """Open fresh stats for one attempt; :func:`end` with the token when the attempt is over."""
    stats = CallStats()
    return stats, _current.set(stats)


def end(token: contextvars.Token) -> None:
    _current.reset(token)
