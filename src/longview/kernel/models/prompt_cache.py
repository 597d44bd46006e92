"""Provider-side prompt caching: mark the stable prefix of a request so providers reuse it.

OpenAI-style providers cache long prompt prefixes on their own; OpenAI also takes a
``prompt_cache_key`` that routes requests sharing a prefix to the same cache (give every call of
one cell the same key). Anthropic models (directly, on Bedrock or Vertex, or through OpenRouter)
cache only up to explicit ``cache_control`` breakpoints. Anthropic builds its prefix in the
order tools → system → messages, so :func:`mark_cache_control` puts a breakpoint on the last
tool, on the system prompt, and on the last message with text (so each turn of a session reads
the cache the previous turn wrote). That is three of the four breakpoints Anthropic allows.

Neither changes an answer, so neither is part of the response-cache key.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .contracts import GenParams

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}


def needs_cache_control(model: str) -> bool:
    """Whether ``model`` (a ``provider/name`` string) caches only at ``cache_control`` marks."""
    m = model.lower()
    return "anthropic" in m or "claude" in m


def _marked_content(content: Any) -> Any:
    """Message content as typed parts whose last part carries the breakpoint."""
    if isinstance(content, str):
        if not content:
            return content  # an empty text block is rejected by Anthropic; leave it unmarked
        return [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        return [*content[:-1], {**content[-1], "cache_control": dict(EPHEMERAL)}]
    return content


def mark_cache_control(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Copies of chat-completions ``messages`` and ``tools`` with cache breakpoints on the last
    tool, the (first) system message and the last non-tool message with content. The inputs are not changed (tool
    schemas are shared between sessions)."""
    out_tools = list(tools)
    if out_tools:
        out_tools[-1] = {**out_tools[-1], "cache_control": dict(EPHEMERAL)}
    out = list(messages)
    marks = set()
    for i, m in enumerate(out):
        if m.get("role") == "system":
            marks.add(i)
            break
    # The conversation tail: the last message that has content and is not a tool result (tool
    # results keep plain string content; not every gateway accepts typed parts there).
    for i in range(len(out) - 1, -1, -1):
        if out[i].get("role") != "tool" and out[i].get("content"):
            marks.add(i)
            break
    for i in marks:
        out[i] = {**out[i], "content": _marked_content(out[i].get("content"))}
    return out, out_tools


def with_cache_key(params: GenParams, *parts: str) -> GenParams:
    """``params`` with a ``prompt_cache_key`` derived from ``parts`` (e.g. suite, agent, variant,
    unit: the calls of one cell), unless the user set one."""
    if params.prompt_cache_key is not None:
        return params
    key = "lv-" + hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:24]
    return params.model_copy(update={"prompt_cache_key": key})
