"""`longview explain METRIC`: what a metric counts (long form)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from longview.harness import registry
from longview.harness.terminal.console import console, fail
from longview.kernel.errors import LongviewError


@click.command()
@click.argument("metric")
@click.option("--suite", "suite_name", default=None, help="Only this suite's metrics.")
@click.option("--run", "run_dir", type=click.Path(path_type=Path), default=None,
              help="Explain the metric as that run scored it (its judges and components).")
def explain(metric: str, suite_name: str | None, run_dir: Path | None) -> None:
    """What a metric counts, how it is obtained and where it differs from its paper (long form)."""
    from longview.harness.run import load_dataset, suite_options
    from longview.harness.terminal.tables import metric_line

    def key(name: str) -> str:
        return name.lower().replace("_", "").replace("-", "")

    found: list[tuple[str, str, dict[str, Any]]] = []
    try:
        if run_dir is not None:
            from longview.harness.runstore import read_run_file

            data = json.loads(read_run_file(run_dir / "scorecard.json", run_dir, "<scorecard>"))
            sources = {str(data.get("suite")): data.get("metrics") or {}}
        else:
            sources = {}
            for name in [suite_name] if suite_name else list(registry.available()):
                s = registry.load(name)
                options = suite_options(s, {})
                sources[name] = s.score([], load_dataset(s, "builtin", options), options, 0).to_json_dict()["metrics"]
    except (LongviewError, OSError, ValueError) as e:
        fail(LongviewError(f"explain: {e}"))
    for suite, metrics in sources.items():
        found += [(suite, k, v) for k, v in metrics.items() if key(k) == key(metric)]
    if not found:
        known = ", ".join(f"{s}: {', '.join(m)}" for s, m in sources.items())
        fail(LongviewError(f"no metric '{metric}'; known metrics — {known}"))
    for suite, name, info in found:
        console.print(f"{suite} · {metric_line(name, info)}", highlight=False, markup=False)
        console.print(f"  definition, coverage and differences from the paper: docs/{suite}.md "
                      f"(section on {name})", highlight=False, markup=False)
