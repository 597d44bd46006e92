"""The agent's own memory between sessions, file-backed by default.

:class:`FileMemory` implements the longview memory contract: after each session it appends the
rendered session (user and assistant text, tool calls and results) to a Markdown file in the cell
folder; ``context`` hands the file's text (its most recent part when long) to the next session's
system prompt. The ``no_history`` variant gives every session a fresh, empty memory.
"""

from __future__ import annotations

from pathlib import Path

from longview.kernel.agent import Message
from longview.kernel.models.secrets import redact
from longview.kernel.tools import Toolkit
from longview.memory.base import MemorySnapshot, render_session

CONTEXT_CHARS = 60_000  # the most recent part of the memory file shown to the agent


class FileMemory:
    name = "file"

    def __init__(self, path: Path, limit: int = CONTEXT_CHARS, text_limit: int | None = 2000) -> None:
        self.path, self.limit, self.text_limit = Path(path), limit, text_limit
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            self.path.write_text("", encoding="utf-8")
        self.count = 0

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        self.count += 1
        body = render_session(self.count, messages, text_limit=self.text_limit, args_limit=self.text_limit)
        head = f"<!-- {session_id}{' @ ' + when if when else ''} -->\n"
        with self.path.open("a", encoding="utf-8") as fh:  # kept in the run folder: secrets masked
            fh.write(redact(head + body + "\n\n"))

    def context(self, query: str = "") -> str:
        text = self.path.read_text(encoding="utf-8")
        return text[-self.limit:] if len(text) > self.limit else text

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return (self.path.read_text(encoding="utf-8"), self.count)

    def restore(self, snap: MemorySnapshot) -> None:
        text, self.count = snap
        self.path.write_text(redact(text), encoding="utf-8")
