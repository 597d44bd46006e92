"""The memory contract and its first implementation: the transcript of earlier sessions."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from longview.kernel.agent import Message
from longview.kernel.tools import Toolkit

MemorySnapshot = Any  # opaque to callers; only the memory that made it can restore it


@runtime_checkable
class Memory(Protocol):
    """A cross-session memory system."""

    name: str

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        """Record a finished session (user messages, assistant turns, tool calls and results)."""
        ...

    def context(self, query: str = "") -> str:
        """Text given to the agent at the start of the next session (may depend on its request)."""
        ...

    def tools(self) -> Toolkit | None:
        """Memory tools the agent may call (e.g. read/edit a MEMORY.md), or None."""
        ...

    def snapshot(self) -> MemorySnapshot:
        """An independent copy of the memory's state."""
        ...

    def restore(self, snap: MemorySnapshot) -> None:
        """Return to a snapshot (probes branch from a checkpoint and write nothing back)."""
        ...


def render_session(index: int, messages: list[Message], *, text_limit: int | None = None,
                   args_limit: int | None = None) -> str:
    """One finished session as ``[Session i]`` lines: user and assistant text, tool calls, results.

    Limits cut long text (and tool arguments) to a fixed number of characters, as some protocols do.
    """
    import json

    def cut(s: str, n: int | None) -> str:
        return s if n is None or len(s) <= n else s[:n]

    lines = [f"[Session {index}]"]
    for m in messages:
        if m.role == "user" and m.content:
            lines.append(f"user: {cut(m.content, text_limit)}")
        elif m.role == "assistant":
            if m.content:
                lines.append(f"assistant: {cut(m.content, text_limit)}")
            for c in m.tool_calls:
                lines.append(f"call {c.name}({cut(json.dumps(c.arguments, ensure_ascii=False), args_limit)})")
        elif m.role == "tool" and m.content:
            lines.append(f"result {m.name}: {cut(m.content, text_limit)}")
    return "\n".join(lines)


class TranscriptMemory:
    """Every earlier session's transcript, rendered in order: the simplest memory there is."""

    name = "transcript"

    def __init__(self, text_limit: int | None = None, args_limit: int | None = None) -> None:
        self.sessions: list[str] = []
        self.text_limit, self.args_limit = text_limit, args_limit

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        self.sessions.append(render_session(len(self.sessions) + 1, messages, text_limit=self.text_limit,
                                            args_limit=self.args_limit))

    def context(self, query: str = "") -> str:
        return "\n\n".join(self.sessions)

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return list(self.sessions)

    def restore(self, snap: MemorySnapshot) -> None:
        self.sessions = list(snap)
