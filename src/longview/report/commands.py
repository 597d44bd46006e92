"""The `report` and `compare` commands (registered in longview.cli): they read run folders."""

from __future__ import annotations

import time
from pathlib import Path

import click

from longview.harness.terminal.console import console, err, fail
from longview.harness.terminal.fit import print_tables
from longview.kernel.errors import LongviewError


def file_size(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB"


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), default=Path("report.html"), show_default=True,
              help="The HTML file to write.")
@click.option("--title", default=None, help="Page title (default: the suites shown).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the paired bootstrap of comparisons.")
def report(runs: tuple[Path, ...], out: Path, title: str | None, seed: int) -> None:
    """One self-contained HTML report (tables, plots, transcripts) of any run directories.

    Opens offline from a file or a mail attachment: every script and style is inline. Two runs of
    the same suite on the same dataset also get a paired comparison."""
    from longview.harness.run import check_output_file
    from longview.report.build import auto_comparisons, load_runs, write_report

    t0 = time.perf_counter()
    try:
        check_output_file(out, "--out")
        loaded = load_runs(list(runs))
        write_report(loaded, out, title=title, comparisons=auto_comparisons(loaded, seed))
    except LongviewError as e:
        fail(e)
    sessions = sum(len(r.sessions) for r in loaded)
    console.print(f"wrote {out} ({file_size(out)}, {len(loaded)} run(s), {sessions} sessions) in {time.perf_counter() - t0:.1f} s")


@click.command("compare")
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), default=None,
              help="Also write an HTML report of both runs with the comparison.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the paired bootstrap.")
def compare(run_a: Path, run_b: Path, out: Path | None, seed: int) -> None:
    """Paired differences B − A per metric, with a paired bootstrap 95% CI over the units (personas,
    users, scenarios) scored in both runs. Rows pair by agent and variant, else by variant."""
    from longview.harness.run import check_output_file
    from longview.report.build import load_runs, write_report
    from longview.report.compare import compare as do_compare
    from longview.report.compare import comparison_table

    try:
        if out:
            check_output_file(out, "--out")
        a, b = load_runs([run_a, run_b])
        if a.suite_name != b.suite_name:
            raise LongviewError(f"cannot compare a '{a.suite_name}' run with a '{b.suite_name}' run")
        c = do_compare(a, b, seed)
        if not c.diffs:
            raise LongviewError(f"no row of {run_a} pairs with a row of {run_b} (unpaired: {', '.join(c.unpaired)})")
    except LongviewError as e:
        fail(e)
    print_tables(console, comparison_table(c))
    if not c.same_dataset:
        err.print("[yellow]the two runs evaluated different datasets: units are paired by id[/yellow]")
    if c.unpaired:
        err.print("unpaired rows: " + ", ".join(c.unpaired))
    if out:
        try:
            write_report([a, b], out, comparisons=[c])
        except LongviewError as e:
            fail(e)
        console.print(f"wrote {out} ({file_size(out)})")
