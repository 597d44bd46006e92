"""`--dry-run` for ATR: a rough estimate of model calls and input tokens per role."""

from __future__ import annotations

import json
from typing import Literal

from longview.domains.personal import make_env
from longview.harness.roles import Roles
from longview.harness.suite import Cell
from longview.suites.atr.dataset import Dataset
from longview.suites.atr.variants import get_variant, system_prompt

# Rough per-session turn counts (the paper's traces average a few turns).
_EST_TURNS = {"learning": 8, "test": 5}
_EST_CONTEXT_PER_SESSION = 600  # tokens a rendered learning session adds to later prompts


def estimate(cells: list[Cell], dataset: Dataset, roles: Roles) -> dict[str, tuple[int, int]]:
    """role -> (estimated calls, estimated input tokens) for the cells' model roles."""
    calls: dict[str, int] = {}
    tokens: dict[str, int] = {}

    def add(role: str, n: int, tok: int) -> None:
        calls[role] = calls.get(role, 0) + n
        tokens[role] = tokens.get(role, 0) + n * tok

    schema_tokens: dict[str, int] = {}
    for c in cells:
        ep, variant = dataset.episode(c.unit), get_variant(c.variant)
        model_agent = not c.agent.startswith("ref:")
        sessions: list[tuple[Literal["learning", "test"], str, int]] = (
            [("learning", s.domain, i) for i, s in enumerate(ep.learning_sessions)] if variant.learning else []
        )
        sessions += [("test", t.domain, len(sessions)) for t in ep.test_sessions]
        for phase, domain, k in sessions:
            base = len(system_prompt(variant, domain, phase, "")) // 4
            if domain not in schema_tokens:
                schema_tokens[domain] = len(json.dumps(make_env(domain, [], None).schemas())) // 4
            ctx = _EST_CONTEXT_PER_SESSION * (k if phase == "learning" else len(ep.learning_sessions) * variant.learning)
            if model_agent:
                add("agent", _EST_TURNS[phase], base + schema_tokens[domain] + ctx + 300)
            if phase == "learning":
                for role, n in (("router", 3), ("classifier", 1), ("user", 3)):
                    if roles.model(role):
                        add(role, n, 400)
    return {r: (calls[r], tokens[r]) for r in calls}
