"""Memory systems are plugins: built-ins plus anything registered under the ``longview.memory``
entry-point group (``name = "pkg.module:factory"``; the factory takes keyword options and returns an
object meeting :class:`~longview.memory.base.Memory`)."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from longview.kernel.errors import ConfigError

GROUP = "longview.memory"

BUILTIN: dict[str, tuple[str, str]] = {
    "none": ("longview.memory.simple:NoMemory", "nothing carried across sessions"),
    "file": ("longview.memory.simple:FileMemory", "a MEMORY.md the agent reads in context and edits with tools"),
    "rag": ("longview.memory.rag:RagMemory", "simple RAG over raw messages (BM25, or a named dense embedding), "
            "top 10 within 4,000 tokens"),
    "oracle": ("longview.memory.simple:OracleMemory", "the target setting and its definition (upper bound)"),
    "transcript": ("longview.memory.simple:DatedTranscriptMemory", "every earlier session's transcript, dated, in order"),
    "mem0": ("longview.memory.mem0:Mem0Memory", "Mem0's own API, local vector store; LLM extraction with a memory "
             "model, else a plain store (extra: longview[mem0])"),
}


def _load(target: str) -> Callable[..., Any]:
    import importlib

    mod, _, attr = target.partition(":")
    return getattr(importlib.import_module(mod), attr)


def available() -> dict[str, str]:
    """Name -> description of every memory system (built-in and plugins)."""
    out = {k: d for k, (_, d) in BUILTIN.items()}
    for ep in entry_points(group=GROUP):
        out.setdefault(ep.name, f"plugin {ep.value}")
    return out


def factory(name: str) -> Callable[..., Any]:
    if name in BUILTIN:
        return _load(BUILTIN[name][0])
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            return ep.load()
    raise ConfigError(f"unknown memory system {name!r}; available: {', '.join(sorted(available()))}")


def create(name: str, **options: Any) -> Any:
    """A fresh instance of memory system ``name``; options it does not take are ignored."""
    import inspect

    fn = factory(name)
    try:
        params = inspect.signature(fn).parameters
        if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
            options = {k: v for k, v in options.items() if k in params}
    except (TypeError, ValueError):
        pass
    return fn(**options)


def fork(memory: Any) -> Any:
    """An independent copy for a probe branch: ``fork()`` if the memory has it; a memory without
    tools is never written during a session, so it is shared read-only."""
    if hasattr(memory, "fork"):
        return memory.fork()
    if memory.tools() is None:
        return memory
    raise ConfigError(f"memory system {memory.name!r} has tools but no fork(); probes cannot branch from it")
