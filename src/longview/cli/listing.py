"""`longview list [SUITE]`: the registered suites and agents, or one suite's parts."""

from __future__ import annotations

import click
from rich.table import Table

from longview._version import __version__
from longview.harness import registry
from longview.harness.terminal.console import console, fail
from longview.kernel.errors import LongviewError


@click.command("list")
@click.argument("suite", required=False)
def list_(suite: str | None) -> None:
    """The registered suites (nothing imported), or one suite's agents, variants, roles and datasets."""
    from longview.harness.terminal.fit import print_tables

    t = Table(title=f"longview {__version__}")
    for col in ("kind", "name", "notes"):
        t.add_column(col)
    if suite is None:
        from longview.agents.external.specs import registered

        for name, ep in registry.available().items():
            t.add_row("suite", name, f"{ep.value} · longview list {name} for its agents and variants")
        for name, ep in registered().items():
            t.add_row("agent", name, f"{ep.value} · registered agent (longview.agents): --agent {name}")
        print_tables(console, t)
        return
    try:
        s = registry.load(suite)
    except LongviewError as e:
        fail(e)
    t.add_row("suite", s.name, s.summary)
    for spec, desc in s.datasets.items():
        t.add_row("dataset", spec, desc)
    defaults = s.Options()  # what the agents run without -S options or --variant
    for a, v in s.reference_agents.items():
        runs = s.default_variants(a, defaults) or [v]
        t.add_row("agent", a, f"scripted reference agent (default variant{'s' if len(runs) > 1 else ''}: "
                              f"{', '.join(runs)})")
    from longview.agents.external.specs import registered

    for a, ep in registered().items():
        t.add_row("agent", a, f"{ep.value} · registered agent (longview.agents; runs the model variants)")
    for v, desc in s.variants.items():
        t.add_row("variant", v, desc + (" · run by --model" if v in s.model_variants else ""))
    for r in s.roles:
        t.add_row("role", r.name, f"{r.description} (embedded: {r.embedded}; --{r.name}-model or --role {r.name}=MODEL)")
    for k, f in s.Options.model_fields.items():
        t.add_row("option", k, f"{f.description or ''} (default {f.default!r})")
    print_tables(console, t)
