"""The intents file memory's window: bounded, starting at a session, and moving in steps (prompt caching)."""

from __future__ import annotations

from pathlib import Path

from longview.kernel.agent import Message
from longview.suites.intents.memory import FileMemory


def _session(i: int) -> list[Message]:
    return [Message(role="user", content=f"request {i} " + "x" * (50 + 37 * (i % 5))),
            Message(role="assistant", content=f"done {i}")]


def test_the_window_stays_bounded_starts_at_a_session_and_moves_in_steps(tmp_path: Path):
    m = FileMemory(tmp_path / "memory.md", limit=4000)
    shown: list[str] = []
    for i in range(80):
        m.observe(f"s{i}", _session(i))
        shown.append(m.context())
    full = (tmp_path / "memory.md").read_text(encoding="utf-8")
    assert len(full) > 3 * 4000  # the file outgrew the window several times over
    assert all(len(s) <= 4000 for s in shown)
    assert all(s.startswith("<!-- s") for s in shown)
    assert shown[-1] and full.endswith(shown[-1])
    # between steps, a session's memory is the previous one's plus the newest session: a cached prefix
    kept = sum(b.startswith(a) for a, b in zip(shown, shown[1:], strict=False))
    moved = len(shown) - 1 - kept
    assert moved <= len(full) // (4000 // 4) + 1
    assert kept >= 3 * moved  # most sessions extend the last prompt's memory instead of shifting it


def test_a_small_memory_is_shown_whole(tmp_path: Path):
    m = FileMemory(tmp_path / "memory.md")
    m.observe("s1", _session(1))
    assert m.context() == (tmp_path / "memory.md").read_text(encoding="utf-8")
