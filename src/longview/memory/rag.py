"""``rag``: simple RAG over the raw messages of earlier sessions — BM25 (``bm25s``) by default,
or a dense text embedding shared with Mem0 when one is named (``embedding="module:Class"``, any
object with LangChain's ``embed_documents`` / ``embed_query``).

The document unit is fixed by the paper's description of simple RAG (it stores and searches raw
messages, §4): one document per raw message of a finished session — a user message, an assistant
message (its text and tool calls), a tool result — headed by the session's date and context. It
is not chosen by how well a reference agent does with it. At decision time the query (the
opening request) retrieves the top 10 documents with a positive score (BM25) or the 10 nearest
(embedding), kept in rank order while they fit a 4,000-token budget.
"""

from __future__ import annotations

import json
from typing import Any

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


def raw_messages(messages: list[Message], head: str) -> list[str]:
    """One document per raw message (the paper's unit for simple RAG), headed by the session."""
    return [head + "\n" + "\n".join(lines) for m in messages if (lines := _line(m))]


def _toks(text: str) -> list[str]:
    return [stem(t) for t in tokens(text)]


def load_embedding(spec: str) -> Any:
    """A dense text embedding named ``module:Class`` (LangChain's Embeddings interface), or ``minilm``
    (all-MiniLM-L6-v2 offline, the ``embed`` extra)."""
    import importlib

    from longview.kernel.errors import ConfigError
    from longview.memory.embeddings import ALIASES

    mod, _, cls = ALIASES.get(spec, spec).partition(":")
    try:
        return getattr(importlib.import_module(mod), cls)()
    except (ImportError, AttributeError, ValueError) as e:
        raise ConfigError(f"embedding {spec!r} (-S embedding=module:Class): cannot load it ({e})") from None


class RagMemory:
    """Simple RAG over raw messages: BM25, or cosine similarity of a dense embedding."""

    name = "rag"

    def __init__(self, top_k: int = TOP_K, budget: int = TOKEN_BUDGET, embedding: str | None = None) -> None:
        self.docs: list[str] = []
        self.top_k, self.budget = top_k, budget
        self._index = None
        self._indexed = 0
        self._toks: list[list[str]] = []
        self.embedding_spec = embedding
        self._embedder = load_embedding(embedding) if embedding else None
        self._vecs: list[list[float]] = []

    @property
    def retrieval(self) -> str:
        """What ranks documents (disclosed in the scorecard)."""
        return f"dense embedding {self.embedding_spec}" if self.embedding_spec else "BM25 (bm25s)"

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        self.docs += raw_messages(messages, f"[{when or session_id}]")

    def _dense(self, query: str) -> list[str]:
        assert self._embedder is not None  # only called with an embedding
        import numpy as np  # bm25s's dependency: one matrix product per query, not a Python loop per document

        if len(self._vecs) < len(self.docs):
            self._vecs += [_unit(v) for v in self._embedder.embed_documents(self.docs[len(self._vecs):])]
        q = np.asarray(_unit(self._embedder.embed_query(query)), dtype=np.float64)
        scores = np.asarray(self._vecs, dtype=np.float64) @ q
        order = np.lexsort((np.arange(len(scores)), -scores))[: self.top_k]  # best first, ties by document order
        return within_budget([self.docs[i] for i in order.tolist()], self.budget)

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
        if self._embedder is not None:
            return self._dense(query)
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
        self._index, self._indexed, self._toks, self._vecs = None, 0, [], []

    def fork(self) -> RagMemory:
        # Bring the ranking up to date here, once, so that every fork shares it: a burst of probes
        # forks the same memory and would otherwise each rebuild it (an index of every document).
        if self.docs:
            if self._embedder is None:
                self._ensure()
            elif len(self._vecs) < len(self.docs):
                self._vecs += [_unit(v) for v in self._embedder.embed_documents(self.docs[len(self._vecs):])]
        m = RagMemory(self.top_k, self.budget)
        m.embedding_spec, m._embedder = self.embedding_spec, self._embedder
        m.docs = list(self.docs)
        m._index, m._indexed = self._index, self._indexed  # read-only sharing until it changes
        m._toks, m._vecs = list(self._toks), list(self._vecs)
        return m


def _unit(v: list[float]) -> list[float]:
    n = sum(x * x for x in v) ** 0.5 or 1.0
    return [x / n for x in v]
