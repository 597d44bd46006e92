"""Event transcripts: one JSONL file per session, written as the session runs, with a reader.

Every line is a :class:`TraceEvent`. Kernel events: ``session_start``, ``user_message``,
``assistant_turn``, ``tool_call`` (the tool log: turn, batch position, READ/WRITE kind, result),
``session_end``. Suites add protocol events (e.g. ATR's ``route_decision``) through the same writer.
Text passes through secret redaction before it reaches disk.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from longview.kernel.models.secrets import redact as default_redact


class TraceEvent(BaseModel):
    """One line of a session transcript."""

    seq: int = Field(description="Position in the file, from 0.")
    session_id: str = Field(description="Session the event belongs to.")
    turn: int | None = Field(default=None, description="Assistant turn index, if turn-scoped.")
    type: str = Field(description="Event type, e.g. assistant_turn, tool_call, route_decision.")
    data: dict[str, Any] = Field(default_factory=dict, description="Event payload.")
    clock: str | None = Field(default=None, description="Simulated time (ISO), if the suite keeps one.")


# A session's lines are kept in memory and written, redacted in one pass, when it closes. A trace
# only counts once its cell's completion marker is written (after every writer is closed), so a
# crash mid-cell loses nothing that would have been kept: the unfinished cell is rerun and its
# traces rewritten. (One write and one redaction per session instead of one per event.)


class TraceWriter:
    """Collects events for one session and writes them as a JSONL file on :meth:`close` (or at the
    end of a ``with`` block, an exception included)."""

    def __init__(
        self, path: Path | None, session_id: str, redact: Callable[[str], str] | None = None,
        clock: Callable[[], str] | None = None,
    ):
        self.session_id = session_id
        self.clock = clock  # stamps events with simulated time when set
        self.events: list[TraceEvent] = []
        self._redact = redact or default_redact
        self._path = path
        self._lines: list[str] = []
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def emit(self, type: str, turn: int | None = None, clock: str | None = None, **data: Any) -> TraceEvent:
        if clock is None and self.clock is not None:
            clock = self.clock()
        ev = TraceEvent(seq=len(self.events), session_id=self.session_id, turn=turn, type=type, data=data, clock=clock)
        self.events.append(ev)
        if self._path is not None:
            self._lines.append(ev.model_dump_json())
        return ev

    def close(self) -> None:
        if self._path is not None:
            text = "\n".join(self._lines) + "\n" if self._lines else ""
            with self._path.open("w", encoding="utf-8") as fh:
                fh.write(self._redact(text))
            self._path, self._lines = None, []

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_trace(path: Path) -> list[TraceEvent]:
    """Read a session transcript back into events."""
    return list(iter_trace(path))


def iter_trace(path: Path) -> Iterator[TraceEvent]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield TraceEvent.model_validate(json.loads(line))
