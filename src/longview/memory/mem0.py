"""``mem0``: drives Mem0's own API (``mem0ai``) with a local Qdrant store — an optional extra,
``pip install 'longview[mem0]'``. Two modes, disclosed in the scorecard:

* **LLM extraction** (as the paper runs Mem0) when a model is given for the memory role
  (``--memory-model M``, an OpenAI-compatible provider): each finished session's user and
  assistant messages go to ``add(messages, infer=True)``, and Mem0's own LLM calls (through its
  OpenAI client, at the provider's endpoint or ``--api-base``) extract and update the memories it
  stores. Those calls go through Mem0's own client, so longview's response cache and retries do
  not apply; each one's token usage is handed to ``usage`` (Mem0's ``response_callback``), which the
  suite records under the ``memory`` role (usage.jsonl, the manifest, the scorecard's usage).
* **Plain store** (offline default): the raw-message documents of ``rag`` are added with
  ``infer=False``; no LLM runs.

Embedding: :class:`HashingEmbeddings` (deterministic bag-of-stemmed-words feature hashing) unless a
real LangChain embedding is named with ``embedding="module:Class"`` (shared with ``rag``). Search
is ``search(query, filters={"user_id": ...}, top_k=10)``; hits are kept within the same
4,000-token budget as ``rag``. Snapshots are what was added; a restore rebuilds the collection
(re-running extraction in LLM mode).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

from longview.kernel.agent import Message
from longview.kernel.errors import ConfigError
from longview.kernel.tools import Toolkit
from longview.memory.base import MemorySnapshot
from longview.memory.rag import (
    TOKEN_BUDGET,
    TOP_K,
    _toks,
    load_embedding,
    raw_messages,
    retrieved_context,
    within_budget,
)

DIM = 256

# Offline and contained: no telemetry, and Mem0's own state directory under the temp dir unless the
# user chose one. Both are read when mem0 is first imported, so they are set on importing this module.
os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("MEM0_DIR", os.path.join(tempfile.gettempdir(), "longview-mem0-home"))
# Mem0 warns on every instance that its optional extras (spaCy, fastembed hybrid search) are absent;
# we use it as a plain vector store, so those warnings are noise.
logging.getLogger("mem0").setLevel(logging.ERROR)


def _embeddings_base():
    try:
        from langchain_core.embeddings import Embeddings
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise ConfigError("the mem0 memory needs the extra: pip install 'longview[mem0]'") from e
    return Embeddings


def hashing_vector(text: str, dim: int = DIM) -> list[float]:
    """Signed feature hashing of stemmed tokens (and bigrams), L2-normalised; deterministic."""
    v = [0.0] * dim
    toks = _toks(text)
    feats = toks + [a + "_" + b for a, b in zip(toks, toks[1:], strict=False)]
    for f in feats:
        h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=8).digest(), "big")
        v[h % dim] += 1.0 if (h >> 63) & 1 else -1.0
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def make_hashing_embeddings():
    Embeddings = _embeddings_base()

    class HashingEmbeddings(Embeddings):
        """A deterministic, offline LangChain embedding."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [hashing_vector(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return hashing_vector(text)

    return HashingEmbeddings()


class Mem0Memory:
    """Mem0 with a local vector store."""

    name = "mem0"

    def __init__(self, embedding: str | None = None, dims: int | None = None, user_id: str = "longview",
                 llm: dict[str, str] | None = None, usage: Callable[[int, int, int], None] | None = None) -> None:
        try:
            from mem0 import Memory
        except ImportError as e:
            raise ConfigError("the mem0 memory needs the extra: pip install 'longview[mem0]'") from e
        if os.environ.get("MEM0_TELEMETRY", "").lower() not in ("true", "1", "yes"):
            import mem0.memory.main as _main  # mem0 was imported before us: switch its flag off too

            _main.MEM0_TELEMETRY = False
        self._Memory = Memory
        self.embedding_spec, self.user_id = embedding, user_id
        if embedding:
            self.embedder = load_embedding(embedding)  # module:Class, or minilm
            self.dims = dims or len(self.embedder.embed_query("dimension probe"))
        else:
            self.embedder, self.dims = make_hashing_embeddings(), DIM
        self.llm = llm  # {"model", "base_url", "api_key"}: LLM extraction; None: plain store
        self.usage = usage  # (input, cached, output tokens) of each of Mem0's LLM calls
        self.chunks: list[Any] = []  # what was added: documents (plain store) or sessions' messages (extraction)
        self._mem: Any = None  # a mem0 Memory once _client() has built it
        self._dir: str | None = None

    def _client(self):
        if self._mem is None:
            self._dir = tempfile.mkdtemp(prefix="longview-mem0-")
            config = {
                "vector_store": {"provider": "qdrant", "config": {
                    "collection_name": "longview", "path": os.path.join(self._dir, "qdrant"),
                    "embedding_model_dims": self.dims, "on_disk": False}},
                "embedder": {"provider": "langchain", "config": {"model": self.embedder}},
                "llm": {"provider": "openai", "config": (
                    {"api_key": self.llm.get("api_key") or "unused", "model": self.llm["model"],
                     "openai_base_url": self.llm["base_url"], "temperature": 0.0,
                     "response_callback": self._on_response} if self.llm
                    else {"api_key": "unused-offline", "model": "unused"})},
                "history_db_path": os.path.join(self._dir, "history.db"),
            }
            self._mem = self._Memory.from_config(config)
            for c in self.chunks:
                self._add(c)
        return self._mem

    def _on_response(self, llm: Any, response: Any, params: dict) -> None:
        """Mem0 calls this after each of its LLM calls: hand the call's token usage on."""
        if self.usage is None:
            return
        u = getattr(response, "usage", None)
        details = getattr(u, "prompt_tokens_details", None)
        self.usage(int(getattr(u, "prompt_tokens", 0) or 0), int(getattr(details, "cached_tokens", 0) or 0),
                   int(getattr(u, "completion_tokens", 0) or 0))

    @property
    def mode(self) -> str:
        """Disclosed in the scorecard."""
        return f"LLM extraction ({self.llm['model']})" if self.llm else "plain store (infer=False, no LLM)"

    def _add(self, item: Any) -> None:
        if self.llm:
            self._mem.add(item, user_id=self.user_id, infer=True)
        else:
            self._mem.add([{"role": "user", "content": item}], user_id=self.user_id, infer=False)

    def observe(self, session_id: str, messages: list[Message], *, when: str | None = None) -> None:
        if self.llm:  # the conversation as Mem0 takes it: user and assistant turns with text
            head = f"[{when or session_id}] "
            convo = [{"role": m.role, "content": (head if i == 0 else "") + (m.content or "")}
                     for i, m in enumerate(x for x in messages if x.role in ("user", "assistant") and x.content)]
            new: list[Any] = [convo] if convo else []
        else:
            new = raw_messages(messages, f"[{when or session_id}]")
        client = self._client()
        for c in new:
            self.chunks.append(c)
            self._add(c)
        del client

    def search(self, query: str) -> list[str]:
        if not self.chunks or not query.strip():
            return []
        res: Any = self._client().search(query, top_k=TOP_K, filters={"user_id": self.user_id}, threshold=0.0)
        items = res.get("results", res) if isinstance(res, dict) else res
        texts = [it.get("memory", "") if isinstance(it, dict) else str(it) for it in items]
        return within_budget(texts, TOKEN_BUDGET)

    def context(self, query: str = "") -> str:
        return retrieved_context(self.search(query))

    def tools(self) -> Toolkit | None:
        return None

    def snapshot(self) -> MemorySnapshot:
        return list(self.chunks)  # documents, or (extraction) the sessions' messages

    def restore(self, snap: MemorySnapshot) -> None:
        self.close()
        self.chunks = list(snap or [])

    def fork(self) -> Mem0Memory:
        return self  # no tools: a probe only searches, so it shares the store read-only

    def close(self) -> None:
        self._mem = None
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
