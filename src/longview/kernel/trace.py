"""Event transcripts: one JSONL file per session, written as the session runs, with a reader.

Every line is a :class:`TraceEvent`. Kernel events: ``session_start`` (with the hash of the
system prompt and tool schemas the agent was given, stored once per cell under ``prompts/``),
``user_message``, ``assistant_turn``, ``tool_call`` (the tool log: turn, batch position, READ/WRITE
kind, result), ``control_result`` (what a suite's control tool answered), ``session_end``. Suites add protocol events (e.g. ATR's ``route_decision``) through the same writer.
Text passes through secret redaction before it reaches disk.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from pydantic_core import to_json

from longview.kernel.errors import ConfigError
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
#
# Each event is encoded as it is emitted (a caller may reuse its payload objects afterwards) by
# pydantic's serializer straight from a dict in TraceEvent's field order: the same bytes as
# ``TraceEvent(...).model_dump_json()`` without building and validating a model per event.


class TraceWriter:
    """Collects events for one session and writes them as a JSONL file on :meth:`close` (or at the
    end of a ``with`` block, an exception included)."""

    def __init__(
        self, path: Path | None, session_id: str, redact: Callable[[str], str] | None = None,
        clock: Callable[[], str] | None = None,
    ):
        self.session_id = session_id
        self.clock = clock  # stamps events with simulated time when set
        self._redact = redact or default_redact
        self._path = path
        self._lines: list[bytes] = []

    def emit(self, type: str, turn: int | None = None, clock: str | None = None, **data: Any) -> None:
        if clock is None and self.clock is not None:
            clock = self.clock()
        # Keys in TraceEvent's field order (a test pins it): the same bytes as the model's dump.
        self._lines.append(to_json({"seq": len(self._lines), "session_id": self.session_id, "turn": turn,
                                    "type": type, "data": data, "clock": clock}))

    @property
    def events(self) -> list[TraceEvent]:
        """The events emitted so far, as models (read back from their encoding, unredacted)."""
        return [TraceEvent.model_validate_json(line) for line in self._lines]

    def close(self) -> None:
        if self._path is not None:
            text = b"\n".join(self._lines).decode() + "\n" if self._lines else ""
            write_text(self._path, self._redact(text))
            self._path = None

    def record_prompt(self, system: str, tools: list[dict[str, Any]]) -> str:
        """Store the system prompt and tool schemas a session's agent is given, once per cell
        (``prompts/<sha256>.json`` beside the trace, content-addressed), and return their hash."""
        body = to_json({"system": system, "tools": tools})
        sha = hashlib.sha256(body).hexdigest()
        if self._path is not None:
            target = self._path.parent / PROMPTS / f"{sha}.json"
            if not target.is_file():
                write_text(target, self._redact(body.decode()))
        return sha

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


PROMPTS = "prompts"  # a cell folder's store of the prompts its sessions were given


def read_prompt(cell_folder: Path, sha: str) -> dict[str, Any] | None:
    """The ``{"system", "tools"}`` a session with prompt hash ``sha`` was given; None when not stored
    (a run written before prompts were kept, or a hash that is not one)."""
    if not (len(sha) == 64 and all(ch in "0123456789abcdef" for ch in sha)):
        return None
    path = cell_folder / PROMPTS / f"{sha}.json"
    try:
        if path.is_symlink() or not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)


def write_text(path: Path, text: str) -> None:
    """Write a whole file, making its folder if needed. A symbolic link planted at ``path`` is
    refused by the open itself (no check-then-write race, and no extra system call)."""
    try:
        try:
            fd = os.open(path, _CREATE, 0o666)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, _CREATE, 0o666)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ConfigError(f"{path}: is a symbolic link; longview writes traces only to files of its own") from None
        raise
    try:  # raw writes: a text-mode file object would add fstat, isatty and seek calls per file
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def read_trace(path: Path) -> list[TraceEvent]:
    """Read a session transcript back into events."""
    return list(iter_trace(path))


def iter_trace(path: Path) -> Iterator[TraceEvent]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield TraceEvent.model_validate(json.loads(line))
