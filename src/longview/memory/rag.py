"""``rag``: BM25 over the raw messages of earlier sessions (the ``bm25s`` library).

Each finished session is stored as chunks of consecutive raw messages (user text, the assistant's
delivered text, tool calls and results), at most ``CHUNK`` messages each, headed by the session's
date and label. At decision time the query (the opening request) retrieves the top 10 chunks with a
positive score, kept in rank order while they fit a 4,000-token budget.
"""

from __future__ import annotations

import json

from longview.kernel.agent import Message
from longview.kernel.tools import Toolkit
from longview.memory.base import MemorySnapshot
from longview.text import stem, tokens

TOP_K = 10
TOKEN_BUDGET = 4000
CHUNK = 8


def approx_tokens(text: str) -> int:
    """~4 characters per token, the same estimate the mock provider bills."""
    return max(1, len(text) // 4)


def _line(m: Message) -> list[str]:
    out = []
    if m.role == "user" and m.content:
        out.append(f"user: {m.content}")
    elif m.role == "assistant":
        if m.content:
            out.append(f"assistant: {m.content}")
        for c in m.tool_calls:
            out.append(f"call {c.name}({json.dumps(c.arguments, ensure_ascii=False, sort_keys=True)})")
    elif m.role == "tool" and m.content:
        out.append(f"result {m.name}: {m.content[:400]}")
    return out


def _toks(text: str) -> list[str]:
    return [stem(t) for t in tokens(text)]


class RagMemory:
    """BM25 retrieval over chunks of raw messages."""

    name = "rag"

    def __init__(self, top_k: int = TOP_K, budget: int = TOKEN_BUDGET) -> None:
        self.docs: list[str] = []
        self.top_k, self.budget = top_k, budget
        self._index = None
        self._indexed = 0

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        head = f"[{when or session_id}]"
        lines = [ln for m in messages for ln in _line(m)]
        for i in range(0, len(lines), CHUNK):
            self.docs.append(head + "\n" + "\n".join(lines[i:i + CHUNK]))

    def _ensure(self):
        if self._index is None or self._indexed != len(self.docs):
            import bm25s

            self._index = bm25s.BM25()
            self._index.index([_toks(d) or ["_"] for d in self.docs], show_progress=False)
            self._indexed = len(self.docs)
        return self._index

    def search(self, query: str) -> list[str]:
        if not self.docs or not query.strip():
            return []
        idx = self._ensure()
        q = _toks(query) or ["_"]
        k = min(self.top_k, len(self.docs))
        res, scores = idx.retrieve([q], k=k, show_progress=False)
        out, used = [], 0
        for i, s in zip(res[0].tolist(), scores[0].tolist()):
            if s <= 0:
                continue
            n = approx_tokens(self.docs[i])
            if used + n > self.budget:
                continue
            out.append(self.docs[i])
            used += n
        return out

    def context(self, query: str = "") -> str:
        hits = self.search(query)
        if not hits:
            return "Retrieved from earlier sessions: (nothing relevant found)"
        return "Retrieved from earlier sessions (most relevant first):\n\n" + "\n\n".join(hits)

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return list(self.docs)

    def restore(self, snap: MemorySnapshot) -> None:
        self.docs = list(snap or [])
        self._index, self._indexed = None, 0

    def fork(self) -> "RagMemory":
        m = RagMemory(self.top_k, self.budget)
        m.docs = list(self.docs)
        m._index, m._indexed = self._index, self._indexed  # read-only sharing until it changes
        return m
