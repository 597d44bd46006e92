"""Three small memory systems: ``none`` (nothing carried), ``file`` (a MEMORY.md the agent reads in
context and edits through tools) and ``oracle`` (the target the suite hands it, as text)."""

from __future__ import annotations

from collections.abc import Callable

from longview.kernel.agent import Message
from longview.kernel.tools import ToolError, ToolKind, Toolkit, tool
from longview.memory.base import MemorySnapshot


class NoMemory:
    """Nothing crosses sessions."""

    name = "none"

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        return None

    def context(self, query: str = "") -> str:
        return ""

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return None

    def restore(self, snap: MemorySnapshot) -> None:
        return None

    def fork(self) -> NoMemory:
        return NoMemory()


MAX_FILE_CHARS = 48_000
CONTEXT_TOKENS = 4000  # the same prompt budget the retrieval systems get
CHARS_PER_TOKEN = 4


class FileMemoryTools(Toolkit):
    """Read and edit MEMORY.md."""

    def __init__(self, mem: FileMemory) -> None:
        self.mem = mem
        super().__init__()  # the kernel derives tool specs once per class

    @tool(ToolKind.READ, tags=("memory",))
    def memory_read(self) -> dict:
        """Read MEMORY.md, your notes from earlier sessions with this user."""
        return {"content": self.mem.text}

    @tool(ToolKind.WRITE, tags=("memory",))
    def memory_append(self, text: str) -> dict:
        """Append a note to MEMORY.md.

        Args:
          text: The note (Markdown).
        """
        new = (self.mem.text + "\n" + text.strip()).strip()
        if len(new) > MAX_FILE_CHARS:
            raise ToolError(f"MEMORY.md would exceed {MAX_FILE_CHARS} characters; consolidate with memory_write")
        self.mem.text = new
        return {"ok": True, "chars": len(new)}

    @tool(ToolKind.WRITE, tags=("memory",))
    def memory_write(self, content: str) -> dict:
        """Replace the whole of MEMORY.md (to consolidate or correct notes).

        Args:
          content: The new file content.
        """
        if len(content) > MAX_FILE_CHARS:
            raise ToolError(f"MEMORY.md may hold at most {MAX_FILE_CHARS} characters")
        self.mem.text = content.strip()
        return {"ok": True, "chars": len(self.mem.text)}


class FileMemory:
    """A MEMORY.md file: given in full at the start of each session, edited only by the agent."""

    name = "file"

    def __init__(self) -> None:
        self.text = ""
        self._tools: FileMemoryTools | None = None

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        return None  # the agent writes the file itself, during the session

    def context(self, query: str = "") -> str:
        """The file's head, up to the 4,000-token budget; the rest is reachable with memory_read."""
        limit = CONTEXT_TOKENS * CHARS_PER_TOKEN
        text = self.text or "(empty)"
        if len(text) > limit:
            cut = text.rfind("\n", 0, limit)
            cut = cut if cut > 0 else limit
            text = text[:cut] + f"\n[... {len(self.text) - cut} more characters: call memory_read for the whole file]"
        return "MEMORY.md (your notes from earlier sessions):\n" + text

    def tools(self) -> Toolkit | None:
        if self._tools is None:
            self._tools = FileMemoryTools(self)
        return self._tools

    def snapshot(self) -> MemorySnapshot:
        return self.text

    def restore(self, snap: MemorySnapshot) -> None:
        self.text = snap or ""

    def fork(self) -> FileMemory:
        m = FileMemory()
        m.text = self.text
        return m


class OracleMemory:
    """The target itself: the suite sets the text (setting + definition) before each decision."""

    name = "oracle"

    def __init__(self, lookup: Callable[[str], str] | None = None) -> None:
        self.lookup = lookup
        self.current = ""

    def set_current(self, text: str) -> None:
        self.current = text

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        return None

    def context(self, query: str = "") -> str:
        if self.lookup is not None:
            return self.lookup(query)
        return self.current

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return self.current

    def restore(self, snap: MemorySnapshot) -> None:
        self.current = snap or ""

    def fork(self) -> OracleMemory:
        m = OracleMemory(self.lookup)
        m.current = self.current
        return m


class DatedTranscriptMemory:
    """``transcript``: every earlier session in full, each headed by its date and label."""

    name = "transcript"

    def __init__(self) -> None:
        from longview.memory.base import TranscriptMemory

        self.inner = TranscriptMemory()

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        self.inner.observe(session_id, messages, when=when)
        self.inner.sessions[-1] = f"[{when or session_id}]\n" + self.inner.sessions[-1]

    def context(self, query: str = "") -> str:
        return self.inner.context(query)

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return self.inner.snapshot()

    def restore(self, snap: MemorySnapshot) -> None:
        self.inner.restore(snap)

    def fork(self) -> DatedTranscriptMemory:
        m = DatedTranscriptMemory()
        m.restore(self.snapshot())
        return m
