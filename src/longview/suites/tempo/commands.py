"""`longview tempo ...`: generate scenarios, check them, show a run's timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="Proactivity-Gym (tempo) tools.", no_args_is_help=True)

OUT_HELP = ("Folder for the scenario JSON files (run them with --dataset PATH). The package's built-in "
            "folder is replaced only when named here.")


@app.command()
def generate(
    seed: Annotated[int, typer.Option(help="Generator seed (0 = the built-in set).")] = 0,
    out: Annotated[Path, typer.Option(help=OUT_HELP)] = Path("tempo-scenarios"),
    force: Annotated[bool, typer.Option(help="Write into a folder that already holds files.")] = False,
) -> None:
    """Build every scenario from the skeleton and fills, run QC, and write them if QC passes."""
    from longview.harness.run import check_output_folder
    from longview.harness.terminal.console import fail
    from longview.kernel.errors import LongviewError
    from longview.kernel.ids import write_models
    from longview.suites.tempo.generator.generate import generate as gen
    from longview.suites.tempo.qc import check

    try:
        check_output_folder(out, force)
    except LongviewError as e:
        fail(e)

    scenarios = gen(seed)
    problems = [p for s in scenarios for p in check(s)]
    if problems:
        for p in problems:
            typer.echo(f"QC: {p}", err=True)
        raise typer.Exit(1)
    paths = write_models(out, ((s.id, s) for s in scenarios))
    typer.echo(f"{len(paths)} scenarios passed QC and were written to {paths[0].parent}")


@app.command()
def qc(dataset: Annotated[str, typer.Option(help="'builtin' or a folder of scenario JSON files.")] = "builtin") -> None:
    """Check scenarios: oracle passes every task, every branch is reachable, timeline consistent."""
    from longview.suites.tempo.dataset import load
    from longview.suites.tempo.qc import check

    data = load(dataset)
    problems = [p for s in data.scenarios for p in check(s)]
    for p in problems:
        typer.echo(f"QC: {p}")
    typer.echo(f"{len(data.scenarios)} scenarios, {sum(len(s.tasks) for s in data.scenarios)} tasks, {len(problems)} problems")
    if problems:
        raise typer.Exit(1)


@app.command()
def timeline(cell_folder: Annotated[Path, typer.Argument(help="A tempo cell folder of a run directory.")]) -> None:
    """Print what happened each simulated day of a run."""
    from longview.suites.tempo.timeline import timeline_lines

    for line in timeline_lines(cell_folder):
        typer.echo(line)
