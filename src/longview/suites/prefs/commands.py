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
    from longview.suites.prefs.dataset import generate as gen
    from longview.suites.prefs.qc import run_qc

    ds = gen(seed, users, name=str(out) if out else "builtin")
    typer.echo(f"seed {seed}: {len(ds.users)} users, sha256 {ds.sha256[:16]}")
    for u in ds.users:
        diff = sum(u.user.matrix["work"][a] != u.user.matrix["personal"][a] for a in u.user.matrix["work"])
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
