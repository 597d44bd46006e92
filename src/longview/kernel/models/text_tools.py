"""Tool calls that a model wrote as text (``--param agent.tool_calls=text``): opt-in, counted.

Small open models served without a per-family tool parser (llama.cpp's server for Qwen2.5-Coder,
say) write a call as text instead of ``tool_calls``. Three forms are read:

* the whole reply is a JSON object ``{"name": ..., "arguments": {...}}`` (or several, or a list);
* a fenced block (```` ```json ... ``` ````) holding such an object or list, prose around it;
* ``<tool_call>{...}</tool_call>`` tags (Hermes/Qwen style), prose around them.

A call counts only if its name is one of the offered tools and its arguments are a JSON object
(``arguments`` or ``parameters``; absent means none); anything else stays text, so prose that merely
contains JSON is never taken for a call. What is left of the text besides the calls stays the
turn's text. The number of calls read this way is kept per role (``text_tool_calls``) so a result
obtained with this parser is never confused with one without it.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from longview.kernel.agent import AssistantTurn, ToolCall

_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|tool_call)?[ \t]*\n(.*?)\n?[ \t]*```", re.S)
_DECODER = json.JSONDecoder()


def offered_names(tools: list[dict]) -> set[str]:
    """The function names in a request's tool block (bare or ``{"type": "function"}`` form)."""
    names = set()
    for t in tools:
        fn = t.get("function", t) if isinstance(t, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            names.add(fn["name"])
    return names


def _objects(text: str) -> list[Any] | None:
    """Every JSON value in ``text`` when the text is nothing but JSON values; else None."""
    out: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n,;":
            i += 1
        if i >= n:
            return out or None
        try:
            value, i = _DECODER.raw_decode(text, i)
        except (ValueError, RecursionError):
            return None
        out.extend(value if isinstance(value, list) else [value])


def _call(obj: Any, names: set[str]) -> tuple[str, dict] | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict) and "name" not in obj:  # {"function": {"name", "arguments"}}
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or name not in names:
        return None
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError):
            return None
    if args is None:
        args = {}
    return (name, args) if isinstance(args, dict) else None


def _read(text: str, names: set[str]) -> tuple[list[tuple[str, dict]], str] | None:
    """(calls, text left) for the first form that yields calls, all of them valid."""
    for pattern in (_TAG, _FENCE):
        found = list(pattern.finditer(text))
        if not found:
            continue
        calls = []
        for m in found:
            objs = _objects(m.group(1))
            parsed = [_call(o, names) for o in objs] if objs else [None]
            if any(p is None for p in parsed):
                return None  # a block that does not hold valid calls: leave the reply as text
            calls += [p for p in parsed if p is not None]
        rest = pattern.sub("", text).strip()
        return calls, rest
    objs = _objects(text)
    if not objs:
        return None
    parsed = [_call(o, names) for o in objs]
    if any(p is None for p in parsed):
        return None
    return [p for p in parsed if p is not None], ""


def calls_from_text(turn: AssistantTurn, tools: list[dict]) -> tuple[AssistantTurn, int]:
    """``turn`` with the tool calls its text holds, and how many; unchanged (0) when it already has
    native calls, no text, no tools were offered, or the text holds no valid call."""
    text = turn.text
    if turn.tool_calls or not text or not tools or ("{" not in text):
        return turn, 0
    found = _read(text.strip(), offered_names(tools))
    if not found or not found[0]:
        return turn, 0
    calls, rest = found
    stem = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:10]
    tool_calls = [ToolCall(id=f"call_{stem}_{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)]
    return turn.model_copy(update={"text": rest or None, "tool_calls": tool_calls}), len(tool_calls)
