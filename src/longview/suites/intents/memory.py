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

CONTEXT_CHARS = 60_000  # at most this much of the memory file's end is shown to the agent
# When the file outgrows the limit, the shown part's start moves in steps of a quarter of it (and on to
# the next session's header), not every session: between steps each session's system prompt is the
# previous one's plus the newest session, a prefix a server's cache keeps.
STEPS = 4


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
        return text[window_start(text, self.limit):]

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return (self.path.read_text(encoding="utf-8"), self.count)

    def restore(self, snap: MemorySnapshot) -> None:
        text, self.count = snap
        self.path.write_text(redact(text), encoding="utf-8")


def window_start(text: str, limit: int) -> int:
    """Where the shown part of a memory file of ``text`` begins: 0 while it fits in ``limit``; else
    the first session header at or after the smallest multiple of ``limit // STEPS`` that leaves at
    most ``limit`` characters (a session longer than a step leaves less)."""
    if len(text) <= limit:
        return 0
    step = max(1, limit // STEPS)
    cut = -(-(len(text) - limit) // step) * step
    head = text.find("\n<!-- ", cut - 1)  # a header opens a line: observe() writes each session so
    return head + 1 if head >= 0 else cut
