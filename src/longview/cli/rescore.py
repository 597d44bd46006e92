"""`longview rescore RUN`: judges again over a finished run's stored results, into a new run folder."""

from __future__ import annotations

from pathlib import Path

import click

from longview.cli.printing import print_scorecard
from longview.harness import registry
from longview.harness.terminal.console import console, fail
from longview.kernel.errors import LongviewError


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--judge-model", default=None, help="Model for the suite's judge role (provider/model).")
@click.option("--role", multiple=True, help="Model for another re-judgeable role, ROLE=MODEL. Repeatable.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="New run folder (default: RUN-rescored-<model> beside RUN).")
@click.option("--force", is_flag=True, help="Replace an earlier rescore at --out.")
@click.option("--param", multiple=True, help="Generation parameter, ROLE.KEY=VALUE. Repeatable.")
@click.option("--api-base", default=None, help="Endpoint URL for the judge models.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the disk response cache.")
@click.option("--max-concurrency", type=click.IntRange(min=1), default=8, show_default=True,
              help="Cells re-judged at once.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Also write the scorecard JSON here.")
def rescore(run_dir: Path, judge_model: str | None, role: tuple[str, ...], out: Path | None, force: bool,
            param: tuple[str, ...], api_base: str | None, no_cache: bool, max_concurrency: int,
            json_out: Path | None) -> None:
    """Apply judges again to a finished run's stored results, without calling the agent: a new run
    folder with the new scorecard; the original is kept (docs/results.md)."""
    import asyncio

    from longview.harness import run as harness
    from longview.harness.rescore import arescore
    from longview.harness.roles import parse_role_models, parse_role_params
    from longview.harness.runstore import RunStore

    try:
        suite = registry.load(RunStore(run_dir).manifest().suite)
        role_models = parse_role_models(role, suite.rejudged_roles)
        if judge_model:
            role_models["judge"] = judge_model
        params = parse_role_params(param, list(role_models))
        if json_out:
            harness.check_output_file(json_out, "--json")
        target, sc = asyncio.run(arescore(run_dir, role_models, out=out, force=force, params=params,
                                          api_base=api_base, no_cache=no_cache, max_concurrency=max_concurrency))
        store = RunStore(target)
        manifest = store.manifest()
        if json_out:
            harness.write_json(sc, json_out, manifest, suite)
    except LongviewError as e:
        fail(e)
    print_scorecard(suite, sc, manifest)
    before = manifest.config["rescored"]["components_before"]  # the parts judged again, e.g. intents' rubric only
    parts = [f"{c}: {before[c] or 'none'} -> {manifest.components.get(c, 'none')}" for c in before]
    console.print(f"rescored run: {target} (from {run_dir}; judged by "
                  f"{', '.join(f'{r}={m}' for r, m in role_models.items())}; {'; '.join(parts)})",
                  highlight=False, markup=False)
