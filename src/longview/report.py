"""Suite-independent rendering: model usage per role, and readable session transcripts."""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table

from longview.kernel.trace import TraceEvent


def usage_table(usage: dict[str, Any]) -> Table:
    """Token, cached-token and cost accounting per role (the manifest's `usage` block)."""
    t = Table(title="Model usage (this invocation)")
    for col in ("role", "calls", "cache hits", "input tok", "cached tok", "cached share", "output tok", "cost USD"):
        t.add_column(col, justify="left" if col == "role" else "right")
    rows = dict(usage.get("roles", {}))
    if usage.get("total"):
        rows["total"] = usage["total"]
    for role, u in rows.items():
        inp = u.get("input_tokens", 0)
        share = u.get("cached_tokens", 0) / inp if inp else 0.0
        cost = f"{u.get('cost_usd', 0.0):.4f}" + ("" if u.get("cost_known", True) else " (unpriced)")
        t.add_row(role, str(u.get("calls", 0)), str(u.get("cache_hits", 0)), str(inp), str(u.get("cached_tokens", 0)),
                  f"{share:.0%}", str(u.get("output_tokens", 0)), cost)
    return t


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trace_lines(events: list[TraceEvent], width: int = 160) -> list[str]:
    """A session transcript as readable lines: who said what, every tool call and its outcome,
    and protocol events (suite-specific ones shown generically)."""
    out: list[str] = []
    for e in events:
        t = f"[{e.clock[11:16]}] " if e.clock else ""
        d = e.data
        if e.type == "session_start":
            out.append(f"{t}session {e.session_id} · phase {d.get('phase')} · agent {d.get('agent')}")
        elif e.type == "user_message":
            out.append(f"{t}user: {_short(d.get('text'), width)}")
        elif e.type == "assistant_turn":
            if d.get("text"):
                out.append(f"{t}assistant (turn {e.turn}): {_short(d['text'], width)}")
            for c in d.get("tool_calls", []):
                if c["name"] == "send_to_user":
                    out.append(f"{t}assistant to user: {_short(c['arguments'].get('output'), width)}")
                elif c["name"] not in {"finish_session"}:
                    continue  # domain calls are shown with their result below
                else:
                    out.append(f"{t}assistant: {c['name']}()")
        elif e.type == "tool_call":
            mark = "ok" if d.get("ok") else f"FAILED: {d.get('error')}"
            out.append(f"{t}  tool {d.get('name')}({_short(d.get('arguments'), 100)}) [{d.get('kind')}] {mark}")
        elif e.type == "session_end":
            out.append(f"{t}end: {d.get('reason')} after {d.get('turns')} turns")
        else:
            fields = ", ".join(f"{k}={_short(v, 80)}" for k, v in d.items())
            out.append(f"{t}  · {e.type}: {fields}")
    return out
