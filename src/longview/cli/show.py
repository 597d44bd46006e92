"""`longview show RUN`: reprint a run's scorecard from its folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.text import Text

from longview.cli.printing import print_outcome, print_scorecard
from longview.harness import registry
from longview.harness.terminal.console import console, err, fail
from longview.kernel.errors import LongviewError


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Also write the scorecard JSON here.")
def show(run_dir: Path, json_out: Path | None) -> None:
    """Reprint the scorecard of a finished (or partial) run."""
    from longview.harness import run as harness
    from longview.harness.runstore import RunStore

    try:
        store = RunStore(run_dir)
        manifest = store.manifest()
        suite = registry.load(manifest.suite)
        if json_out:
            harness.check_output_file(json_out, "--json", run_dir)
        result = harness.outcome(store)
        sc = harness.score(store, suite)
        if json_out:
            harness.write_json(sc, json_out, manifest, suite, result)
    except LongviewError as e:
        fail(e)
    except OSError as e:
        fail(LongviewError(f"{getattr(e, 'filename', None) or run_dir}: {e.strerror or e}"))
    if result.partial:
        err.print(Text.assemble(("PARTIAL RUN: ", "bold yellow"),
                                f"{result.finished} of {result.planned} planned cells finished; the scorecard below "
                                "covers only those (continue with `longview run ... --out RUN_DIR --resume`)"),
                  highlight=False)
    print_scorecard(suite, sc, manifest)
    print_outcome(result, manifest.usage)
    console.print(
        f"longview {manifest.package_version} · suite {manifest.suite}{_plugin(manifest.config)} · commit "
        f"{manifest.git_commit or 'unknown'} · dataset {manifest.dataset.name} {manifest.dataset.sha256[:12]} · "
        f"config {manifest.config_hash[:12]}", highlight=False, markup=False
    )


def _plugin(config: dict[str, Any]) -> str:
    """' (plugin NAME VERSION)' for a suite from another package than longview."""
    p = config.get("plugin")
    return f" (plugin {p.get('name')} {p.get('version')})" if isinstance(p, dict) else ""
