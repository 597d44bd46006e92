"""``longview prefs ...``: rebuild the built-in dataset and check it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="MemPABench (prefs) tools.", no_args_is_help=True)


@app.callback()
def _root() -> None:
    """MemPABench (prefs) tools."""


@app.command()
def generate(seed: Annotated[int, typer.Option(help="Generator seed (7 = the built-in dataset).")] = 7,
             users: Annotated[int, typer.Option(help="Number of users.")] = 4,
             out: Annotated[Path | None, typer.Option(help="Write the dataset JSON here.")] = None,
             qc: Annotated[bool, typer.Option("--qc/--no-qc", help="Run the construction checks.")] = True) -> None:
    """Rebuild users, worlds and sessions deterministically from a seed; run QC."""
    from longview.suites.prefs.dataset import diff_pairs
    from longview.suites.prefs.dataset import generate as gen
    from longview.suites.prefs.qc import run_qc

    ds = gen(seed, users, name=str(out) if out else "builtin")
    typer.echo(f"seed {seed}: {len(ds.users)} users, sha256 {ds.sha256[:16]}")
    for u in ds.users:
        diff = diff_pairs(u.user.matrix)
        typer.echo(f"  {u.user.id}: {len(u.sessions)} sessions, {len(u.final_probes)} final + {len(u.pre_probes)} "
                   f"pre-event probes, {diff}/14 pairs differ, changes: "
                   + ", ".join(f"{c.context}/{c.attribute} {c.old}->{c.new}" for c in u.user.changes))
    if out:
        out.write_text(ds.model_dump_json(indent=1), encoding="utf-8")
        typer.echo(f"wrote {out}")
    if qc:
        report = run_qc(ds)
        for line in report.lines():
            typer.echo(line)
        if not report.ok:
            raise typer.Exit(1)


@app.command()
def calibrate(set_file: Annotated[Path | None, typer.Option("--set", help="A labelled JSONL set (default: the shipped one).")] = None,
              json_out: Annotated[Path | None, typer.Option("--json", help="Write the scores as JSON here.")] = None) -> None:
    """Precision, recall and null_false_rate of the plain-text reader on a labelled set."""
    import json

    from longview.kernel.errors import DataError
    from longview.suites.prefs.calibrate import builtin_set, calibrate, load_set

    path = set_file or builtin_set()
    try:
        items = load_set(path)
    except DataError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    res = calibrate(items)
    f = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    typer.echo(f"{path}: {len(items)} labelled replies")
    typer.echo(f"{'attribute':26} {'n':>4} {'precision':>9} {'recall':>7} {'null_false_rate':>15}")
    for a, s in [*res["by_attribute"].items(), ("OVERALL", res["overall"])]:
        typer.echo(f"{a:26} {s['n']:>4} {f(s['precision']):>9} {f(s['recall']):>7} {f(s['null_false_rate']):>15}")
    if json_out:
        try:
            json_out.write_text(json.dumps(res, indent=1), encoding="utf-8")
        except OSError as e:
            typer.echo(f"error: {json_out}: cannot write ({e.strerror})", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"wrote {json_out}")
