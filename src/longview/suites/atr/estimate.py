"""`--dry-run`: the planned cells of an ATR run and a rough estimate of model calls and tokens."""

from __future__ import annotations

import json

from rich.table import Table

from longview.domains.personal import make_env
from longview.kernel.models.client import split_model
from longview.suites.atr.suite import RunOptions, load_dataset, plan
from longview.suites.atr.variants import get_variant, system_prompt

# Rough per-session turn counts for --dry-run estimates (the paper's traces average a few turns).
_EST_TURNS = {"learning": 8, "test": 5}
_EST_CONTEXT_PER_SESSION = 600  # tokens a rendered learning session adds to later prompts


def dry_run_table(opts: RunOptions) -> Table:
    """The planned cells and an estimate of model calls and input tokens per role."""
    dataset = load_dataset(opts.dataset)
    cells = plan(opts, dataset)
    for model in [*opts.models, opts.user_model, opts.router_model, opts.classifier_model]:
        if model:
            split_model(model)  # an unknown provider is worth knowing before any key is set
    episodes = {e.persona_id: e for e in dataset.episodes}
    calls: dict[str, int] = {}
    tokens: dict[str, int] = {}

    def add(role: str, n: int, tok: int) -> None:
        calls[role] = calls.get(role, 0) + n
        tokens[role] = tokens.get(role, 0) + n * tok

    for c in cells:
        ep, variant = episodes[c.persona_id], get_variant(c.variant)
        model_agent = not c.agent.startswith("ref:")
        sessions = [("learning", s.domain, i) for i, s in enumerate(ep.learning_sessions)] if variant.learning else []
        sessions += [("test", t.domain, len(sessions)) for t in ep.test_sessions]
        for phase, domain, k in sessions:
            base = len(system_prompt(variant, domain, phase, "")) // 4
            schema = len(json.dumps(make_env(domain, [], None).schemas())) // 4
            ctx = _EST_CONTEXT_PER_SESSION * (k if phase == "learning" else len(ep.learning_sessions) * variant.learning)
            if model_agent:
                add("agent", _EST_TURNS[phase], base + schema + ctx + 300)
            if phase == "learning":
                for role, model, n in (("router", opts.router_model, 3), ("classifier", opts.classifier_model, 1),
                                       ("user", opts.user_model, 3)):
                    if model:
                        add(role, n, 400)
    t = Table(title=f"Dry run: {len(cells)} cells over {len({c.persona_id for c in cells})} personas (nothing is called)")
    t.add_column("agent")
    t.add_column("variant")
    t.add_column("cells", justify="right")
    counts: dict[tuple[str, str], int] = {}
    for c in cells:
        counts[(c.agent, c.variant)] = counts.get((c.agent, c.variant), 0) + 1
    for (a, v), n in counts.items():
        t.add_row(a, v, str(n))
    for role in calls:
        t.add_row(f"estimate · {role}", f"~{calls[role]} calls", f"~{tokens[role] / 1e6:.2f}M input tokens")
    if not calls:
        t.add_row("estimate", "no model calls", "")
    return t
