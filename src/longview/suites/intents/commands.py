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
    from longview.harness.runstore import atomic_write
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


COLUMNS = (("loaded", "loaded"), ("runnable", "runnable offline"), ("needs_live_web", "needs live web"),
           ("needs_appworld_db", "needs AppWorld database"), ("needs_absent_asset", "needs an absent asset"),
           ("needs_image_input", "needs image input"), ("needs_shell", "needs a shell"),
           ("needs_app", "needs an app/API"), ("excluded_unit", "left out with its unit"))


def inspect_table(classification: dict) -> dict:
    """Per persona and in total: how many tasks have each verdict, and which (task ids)."""
    table: dict[str, dict[str, list[str]]] = {}
    for persona, items in classification.items():
        row: dict[str, list[str]] = {key: [] for key, _ in COLUMNS}
        for c in items:
            row["loaded"].append(c.task_id)
            row.setdefault(c.verdict, []).append(c.task_id)
        table[persona] = row
    total = {key: [t for row in table.values() for t in row.get(key, [])] for key, _ in COLUMNS}
    return {"personas": table, "total": total,
            "tasks": [{"persona": p, "task_id": c.task_id, "verdict": c.verdict, "kind": c.kind, "reason": c.reason}
                      for p, items in classification.items() for c in items]}


@app.command()
def inspect(spec: str = typer.Argument(..., help="pibench:PATH (your π-Bench checkout or its data/ folder)"),
            json_out: Path | None = typer.Option(None, "--json", help="Also write the table (counts and task ids per "
                                                 "persona and in total, every task's verdict and reason) here.")) -> None:
    """Load a π-Bench release as data (nothing of it runs) and say which tasks run offline, and why not."""
    import json

    from rich.console import Console
    from rich.table import Table

    from longview.harness.runstore import atomic_write
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
    data = inspect_table(ds.classification)
    console = Console(width=160)
    counts = Table(title=f"π-Bench tasks in {spec.split(':', 1)[1]}")
    counts.add_column("persona")
    for _, label in COLUMNS:
        counts.add_column(label, justify="right")
    for persona, row in [*data["personas"].items(), ("total", data["total"])]:
        counts.add_row(persona, *(str(len(row.get(key, []))) for key, _ in COLUMNS))
    console.print(counts)
    for key, label in COLUMNS[1:]:
        ids = data["total"][key]
        if ids:
            console.print(f"[bold]{label}[/bold] ({len(ids)}): " + ", ".join(ids), soft_wrap=True)
    why = Table(title="Why each task that does not run is left out")
    for col in ("task", "verdict", "reason"):
        why.add_column(col)
    for t in data["tasks"]:
        if t["verdict"] != "runnable":
            why.add_row(t["task_id"], t["verdict"], t["reason"])
    console.print(why)
    if json_out is not None:
        atomic_write(json_out, json.dumps(data, indent=1) + "\n", redact_secrets=False)
        typer.echo(f"wrote {json_out}")
