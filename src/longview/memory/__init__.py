"""Cross-session memory: what an agent carries from one session of a long-lived user to the next.

The contract (:class:`Memory`): after each session the harness or suite calls ``observe`` with the
session's messages; before the next session ``context`` returns text for the system prompt and
``tools`` any memory tools (read/edit) the agent may call. ``snapshot``/``restore`` let a suite
branch probes from a checkpoint and write nothing back.
"""

from __future__ import annotations

from longview.memory.base import Memory, MemorySnapshot, TranscriptMemory

__all__ = ["Memory", "MemorySnapshot", "TranscriptMemory"]
