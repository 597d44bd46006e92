"""`longview export RUN...`: runs' results as one table (CSV, JSON lines, Parquet)."""

from __future__ import annotations

from pathlib import Path

import click

from longview.harness.terminal.console import err, fail
from longview.kernel.errors import LongviewError, terminal_safe


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--csv", "csv_out", type=click.Path(path_type=Path), default=None, help="Write CSV here ('-': stdout).")
@click.option("--jsonl", "jsonl_out", type=click.Path(path_type=Path), default=None, help="Write JSON lines here.")
@click.option("--parquet", "parquet_out", type=click.Path(path_type=Path), default=None,
              help="Write Parquet here (needs pandas and pyarrow).")
def export(runs: tuple[Path, ...], csv_out: Path | None, jsonl_out: Path | None, parquet_out: Path | None) -> None:
    """Runs' results as one table: a row per (run, agent, model, variant, metric, breakdown) with
    intervals, coverage and the run's identity (docs/results.md). Without a file option, CSV to stdout."""
    from longview.harness.run import check_output_file
    from longview.results import load_run, write_csv, write_jsonl, write_parquet

    try:
        for target, flag in ((csv_out, "--csv"), (jsonl_out, "--jsonl"), (parquet_out, "--parquet")):
            if target is not None and str(target) != "-":
                check_output_file(target, flag)
        loaded = [load_run(r) for r in runs]
        rows = [row for run in loaded for row in run.metric_rows()]
        if parquet_out is not None:
            write_parquet(loaded, parquet_out)
        if jsonl_out is not None:
            text = write_jsonl(rows, None if str(jsonl_out) == "-" else jsonl_out)
            if str(jsonl_out) == "-":
                click.echo(terminal_safe(text), nl=False)
        if csv_out is not None or (jsonl_out is None and parquet_out is None):
            text = write_csv(rows, None if csv_out is None or str(csv_out) == "-" else csv_out)
            if csv_out is None or str(csv_out) == "-":  # a hostile name must not drive the terminal
                click.echo(terminal_safe(text), nl=False)
    except LongviewError as e:
        fail(e)
    written = [str(t) for t in (csv_out, jsonl_out, parquet_out) if t is not None and str(t) != "-"]
    if written:
        err.print(f"{len(rows)} rows from {len(loaded)} run(s) → {', '.join(written)}", highlight=False, markup=False)
