"""``rag``: BM25 over the raw messages of earlier sessions (the ``bm25s`` library).

Documents are the raw messages of finished sessions grouped by exchange: each user message together
with the assistant output it answers (tool calls, tool results, delivered text since the previous
user message), headed by the session's date and label; the opening request is its own document. At
decision time the query (the opening request) retrieves the top 10 documents with a positive
score, kept in rank order while they fit a 4,000-token budget.
"""

from __future__ import annotations

import json

from longview.kernel.agent import Message
from longview.kernel.tools import Toolkit
from longview.memory.base import MemorySnapshot
from longview.text import stem, tokens

TOP_K = 10
TOKEN_BUDGET = 4000


def within_budget(ranked: list[str], budget: int) -> list[str]:
    """The ranked texts, best first, that fit the token budget (a text too long is skipped, a
    shorter one after it may still fit)."""
    out, used = [], 0
    for text in ranked:
        n = approx_tokens(text)
        if used + n <= budget:
            out.append(text)
            used += n
    return out


def retrieved_context(hits: list[str]) -> str:
    """What a retrieval memory gives the agent at the start of a session."""
    if not hits:
        return "Retrieved from earlier sessions: (nothing relevant found)"
    return "Retrieved from earlier sessions (most relevant first):\n\n" + "\n\n".join(hits)


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


def exchanges(messages: list[Message], head: str) -> list[str]:
    """One document per user message, with the assistant output (calls, results, text) before it."""
    docs, cur = [], []
    for m in messages:
        lines = _line(m)
        cur += lines
        if m.role == "user" and lines:
            docs.append(head + "\n" + "\n".join(cur))
            cur = []
    if cur:
        docs.append(head + "\n" + "\n".join(cur))
    return docs


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
        self._toks: list[list[str]] = []

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        self.docs += exchanges(messages, f"[{when or session_id}]")

    def _ensure(self):
        if self._index is None or self._indexed != len(self.docs):
            import bm25s

            while len(self._toks) < len(self.docs):  # tokenise each document once
                self._toks.append(_toks(self.docs[len(self._toks)]) or ["_"])
            self._index = bm25s.BM25()
            self._index.index(self._toks[: len(self.docs)], show_progress=False)
            self._indexed = len(self.docs)
        return self._index

    def search(self, query: str) -> list[str]:
        if not self.docs or not query.strip():
            return []
        idx = self._ensure()
        q = _toks(query) or ["_"]
        k = min(self.top_k, len(self.docs))
        res, scores = idx.retrieve([q], k=k, show_progress=False)
        ranked = [self.docs[i] for i, s in zip(res[0].tolist(), scores[0].tolist(), strict=True) if s > 0]
        return within_budget(ranked, self.budget)

    def context(self, query: str = "") -> str:
        return retrieved_context(self.search(query))

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return list(self.docs)

    def restore(self, snap: MemorySnapshot) -> None:
        self.docs = list(snap or [])
        self._index, self._indexed, self._toks = None, 0, []

    def fork(self) -> RagMemory:
        m = RagMemory(self.top_k, self.budget)
        m.docs = list(self.docs)
        m._index, m._indexed = self._index, self._indexed  # read-only sharing until it changes
        m._toks = list(self._toks)
        return m
