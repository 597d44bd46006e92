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


def calls_model(prepared: Any, agent: str) -> bool:
    """Whether longview calls a model for ``agent``'s turns: a model under test, or an external
    agent whose calls go through longview's endpoint (``--model`` with cmd:/mcp:). Reference
    agents and external agents on their own (their model calls, if any, are theirs) do not."""
    ext = prepared.external.get(agent)
    if ext is not None:
        return ext.model is not None
    return agent not in prepared.suite.reference_agents and not agent.startswith("ref:")


def model_of(prepared: Any, agent: str) -> str:
    """The model an agent's turns are priced at: its paired model for a routed harness, else itself."""
    ext = prepared.external.get(agent)
    return ext.model if ext is not None and ext.model is not None else agent


def plan_estimate(suite: Any, prepared: Any) -> dict[str, tuple[int, int]]:
    """The suite's estimate per role, with the agent role's over the cells longview calls a model
    for only (:func:`calls_model`); the other roles (judges, simulated users) over every cell."""
    every = suite.estimate(prepared.cells, prepared.dataset, prepared.roles, prepared.options)
    if not prepared.external:
        return dict(every)
    out = {k: v for k, v in every.items() if k != AGENT}
    own = [c for c in prepared.cells if c.agent not in prepared.external or calls_model(prepared, c.agent)]
    if own:
        agent = suite.estimate(own, prepared.dataset, prepared.roles, prepared.options).get(AGENT)
        if agent is not None:
            out = {AGENT: agent, **out}
    return out


def estimate_lines(suite: Any, prepared: Any) -> list[CostLine]:
    """Priced estimate lines for a prepared run (``harness.prepare(cfg, dry_run=True)``). A harness
    routed through longview's endpoint is priced as if it made one model call per turn, as a native
    agent does (``source`` says so): its own loop may make more or fewer."""
    cfg = prepared.cfg
    lines: list[CostLine] = []
    external = getattr(prepared, "external", {})

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
        routed = [c for c in prepared.cells if c.agent in external and external[c.agent].model == model]
        if routed:
            before = len(lines)
            add(AGENT, model, suite.estimate(routed, prepared.dataset, prepared.roles, prepared.options))
            if len(lines) > before:  # the harness runs its own loop: its calls per turn are a guess
                lines[-1] = lines[-1]._replace(role=f"{AGENT} (harness)",
                                               source=lines[-1].source + "; ~1 call per turn assumed")
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
