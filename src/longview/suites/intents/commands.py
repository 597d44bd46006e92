"""``longview intents ...``: generate the built-in episodes (with QC) and inspect a π-Bench checkout."""

from __future__ import annotations

import hashlib
from pathlib import Path

import typer

app = typer.Typer(help="intents suite commands", no_args_is_help=True)


@app.command()
def generate(out: Path = typer.Option(Path("intents-episodes.json"),
                                      help="Where to write the dataset JSON (run it with --dataset PATH). The "
                                           "package's built-in file is replaced only when named here."),
             seed: int = typer.Option(7, help="Generator seed (7 = the built-in episodes)."),
             check: bool = typer.Option(True, help="Run QC (static and oracle/literal runs) before writing."),
             force: bool = typer.Option(False, help="Replace an existing file.")) -> None:
    """Generate the built-in episodes' kind (5 personas x 20 sessions) and check them."""
    from longview.kernel.runstore import atomic_write
    from longview.suites.intents.dataset import IntentsDataset
    from longview.suites.intents.generator.build import build_dataset
    from longview.suites.intents.generator.qc import qc

    if out.is_dir():
        typer.echo(f"error: --out {out}: is a folder; expected a .json file path", err=True)
        raise typer.Exit(2)
    if out.exists() and not force:
        typer.echo(f"error: --out {out}: exists; pass --force to replace it", err=True)
        raise typer.Exit(2)
    data = build_dataset(seed)
    text = data.model_dump_json(indent=1, exclude_defaults=True)
    if check:
        ds = IntentsDataset(name="generated", sha256=hashlib.sha256(text.encode()).hexdigest(),
                            episodes={e.persona.id: e for e in data.episodes})
        problems = qc(ds)
        if problems:
            for p in problems[:30]:
                typer.echo(p, err=True)
            typer.echo(f"QC failed: {len(problems)} problem(s); nothing written", err=True)
            raise typer.Exit(1)
    atomic_write(out, text + "\n", redact_secrets=False)  # generated text: no secret can be in it
    n = sum(len(e.sessions) for e in data.episodes)
    typer.echo(f"wrote {out}: {len(data.episodes)} personas, {n} sessions" + (", QC passed" if check else ""))


@app.command()
def inspect(spec: str = typer.Argument(..., help="pibench:PATH (your π-Bench checkout or its data/ folder)")) -> None:
    """Load a π-Bench release strictly and classify every task: runnable offline or not, and why."""
    from rich.console import Console
    from rich.table import Table

    from longview.kernel.errors import LongviewError
    from longview.suites.intents.importer import load_pibench

    if not spec.startswith("pibench:"):
        typer.echo("expected pibench:PATH", err=True)
        raise typer.Exit(2)
    try:
        ds = load_pibench(spec.split(":", 1)[1])
    except LongviewError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    table = Table(title=f"π-Bench tasks in {spec.split(':', 1)[1]}")
    for col in ("persona", "task", "verdict", "kind", "reason"):
        table.add_column(col)
    counts: dict[str, int] = {}
    for unit, items in ds.classification.items():
        for c in items:
            table.add_row(unit, c.task_id, c.verdict, c.kind, c.reason)
            key = f"{c.verdict}" + (f"/{c.kind}" if c.verdict == "runnable" else "")
            counts[key] = counts.get(key, 0) + 1
    Console().print(table)
    typer.echo("  ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
