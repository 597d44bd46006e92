"""Readable session transcripts (`longview trace`), for any suite: kernel events by name, suite
protocol events shown generically."""

from __future__ import annotations

import json
from typing import Any

from longview.kernel.trace import TraceEvent


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trace_lines(events: list[TraceEvent], width: int = 160, to_user: frozenset[str] = frozenset()) -> list[str]:
    """A session transcript as readable lines: who said what, every tool call and its outcome,
    and protocol events (suite-specific ones shown generically).

    Domain calls are shown with their result (their ``tool_call`` event); a suite's control calls
    (those with no result event) are shown where the assistant made them; ``to_user`` names the
    control tools whose ``output`` argument is text delivered to the user.
    """
    executed = {e.data.get("call_id") for e in events if e.type == "tool_call"}
    out: list[str] = []
    for e in events:
        t = f"[{e.clock[11:16]}] " if e.clock else ""
        d = e.data
        if e.type == "session_start":
            out.append(f"{t}session {e.session_id} · phase {d.get('phase')} · agent {d.get('agent')}")
        elif e.type == "activation":
            out.append(f"{t}woken by {d.get('trigger')}: {_short(d.get('text'), width)}")
        elif e.type == "user_message":
            out.append(f"{t}user: {_short(d.get('text'), width)}")
        elif e.type == "assistant_turn":
            if d.get("text"):
                out.append(f"{t}assistant (turn {e.turn}): {_short(d['text'], width)}")
            for c in d.get("tool_calls", []):
                if c.get("id") in executed:
                    continue  # a domain call: shown with its result below
                if c["name"] in to_user:
                    out.append(f"{t}assistant to user: {_short(c['arguments'].get('output'), width)}")
                else:
                    args = _short(c.get("arguments") or {}, 100) if c.get("arguments") else ""
                    out.append(f"{t}assistant: {c['name']}({args})")
        elif e.type == "tool_call":
            mark = "ok" if d.get("ok") else f"FAILED: {d.get('error')}"
            out.append(f"{t}  tool {d.get('name')}({_short(d.get('arguments'), 100)}) [{d.get('kind')}] {mark}")
        elif e.type == "session_end":
            out.append(f"{t}end: {d.get('reason')} after {d.get('turns')} turns")
        else:
            fields = ", ".join(f"{k}={_short(v, 80)}" for k, v in d.items())
            out.append(f"{t}  · {e.type}: {fields}")
    return out
