"""Suite-independent tables: model usage and cost per role."""

from __future__ import annotations

from typing import Any

from rich.table import Table


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
