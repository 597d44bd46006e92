"""Dry-run cost: a suite's estimate of calls and input tokens, per role and model, priced.

Each model under test gets the agent role's estimate over its own cells; every other role's
estimate covers all cells and is priced at that role's model. Roles left to embedded components
cost nothing and are not listed. A model with no known price is listed as unpriced, never as $0.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from longview.harness.roles import AGENT
from longview.kernel.models.prices import ASSUMED_OUTPUT_TOKENS, estimate_usd, priced


class CostLine(NamedTuple):
    """One (role, model) of a dry-run estimate."""

    role: str
    model: str
    calls: int
    input_tokens: int
    usd: float | None  # None: unpriced
    source: str  # where the price came from ("given", "longview 2026-06", "litellm", "unpriced")


def estimate_lines(suite: Any, prepared: Any) -> list[CostLine]:
    """Priced estimate lines for a prepared run (``harness.prepare(cfg, dry_run=True)``)."""
    cfg = prepared.cfg
    lines: list[CostLine] = []

    def add(role: str, model: str | None, est: dict[str, tuple[int, int]]) -> None:
        if not model or role not in est:
            return
        calls, tokens = est[role]
        if model.startswith("mock/"):  # offline scripted models cost nothing
            lines.append(CostLine(role, model, calls, tokens, 0.0, "offline"))
            return
        price, source = priced(model, cfg.prices)
        lines.append(CostLine(role, model, calls, tokens, estimate_usd(price, calls, tokens) if price else None, source))

    for model in cfg.models:
        own = [c for c in prepared.cells if c.agent == model]
        if own:
            add(AGENT, model, suite.estimate(own, prepared.dataset, prepared.roles, prepared.options))
    if cfg.role_models:
        every = suite.estimate(prepared.cells, prepared.dataset, prepared.roles, prepared.options)
        for role, model in cfg.role_models.items():
            if role != AGENT:
                add(role, model, every)
    return lines


def total(lines: list[CostLine]) -> tuple[float, list[str]]:
    """(USD over the priced lines, the unpriced models)."""
    usd = sum(line.usd for line in lines if line.usd is not None)
    unpriced = sorted({line.model for line in lines if line.usd is None})
    return usd, unpriced


NOTE = (f"cost: input tokens at list price + ~{ASSUMED_OUTPUT_TOKENS} output tokens per call; "
        "give a price with --price MODEL=INPUT/OUTPUT[/CACHED] (USD per 1M tokens) or --prices FILE")
