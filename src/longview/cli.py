"""The `longview` command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from longview import __version__
from longview.kernel.errors import LongviewError

app = typer.Typer(
    help="Evaluate long-lived, proactive personal-assistant agents.", no_args_is_help=True, pretty_exceptions_show_locals=False
)
data_app = typer.Typer(help="Build datasets.", no_args_is_help=True)
app.add_typer(data_app, name="data")
# Tables need room: outside a terminal (pipes, CI logs) rich would wrap at 80 columns.
console = Console(width=None if sys.stdout.isatty() else 180)
err = Console(stderr=True, soft_wrap=True)  # never break a file path across lines

SUITES = {"atr": "ask-to-remember (paper 000, ATRBench)"}


def _fail(e: Exception) -> None:
    err.print(f"[bold red]error:[/] {e}", highlight=False)
    raise typer.Exit(2)


def _suite(name: str) -> None:
    if name not in SUITES:
        _fail(LongviewError(f"unknown suite '{name}'; available: {', '.join(SUITES)}"))


def _print_scorecard(sc, usage: dict) -> None:
    """Scorecard, Table 3 when models ran, breakdowns, and model usage when any."""
    from longview.report import usage_table
    from longview.suites.atr.report import breakdown_table, paper_table, scorecard_table

    console.print(scorecard_table(sc))
    if any(not r.agent.startswith("ref:") for r in sc.rows):
        console.print(paper_table(sc))
    console.print(breakdown_table(sc))
    if usage.get("roles"):
        console.print(usage_table(usage))


@app.command()
def run(
    suite: Annotated[str, typer.Argument(help="Suite to run: atr.")],
    agent: Annotated[Optional[list[str]], typer.Option("--agent", help="ref:passive, ref:asker, ref:oracle, or 'reference' for all three. Repeatable.")] = None,
    variant: Annotated[Optional[list[str]], typer.Option("--variant", help="default, atr, always_ask, oracle_target, oracle_full. Repeatable; default: each agent's own.")] = None,
    dataset: Annotated[str, typer.Option(help="'builtin', a folder of episode JSON files, or atrbench:PATH.")] = "builtin",
    personas: Annotated[Optional[int], typer.Option(help="Use only the first N personas (by id).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Run directory (default: runs/atr-<config hash>, continued if it exists).")] = None,
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Also write the scorecard JSON here.")] = None,
    resume: Annotated[bool, typer.Option(help="Continue a run: skip cells that finished.")] = False,
    force: Annotated[bool, typer.Option(help="Replace an existing run directory (or resume across a config change).")] = False,
    max_concurrency: Annotated[int, typer.Option(help="Cells run at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for bootstrap CIs and model trials.")] = 0,
    max_turns: Annotated[int, typer.Option(help="Assistant-turn cap per session.")] = 20,
    trials: Annotated[int, typer.Option(help="Run every cell this many times; adds pass^k and averages trials per persona.")] = 1,
    model: Annotated[Optional[list[str]], typer.Option("--model", help="Model under test, provider/model (LiteLLM style: openai/gpt-5.4, anthropic/claude-opus-4-7, ollama/qwen3, hosted_vllm/NAME). Repeatable: one Table-3 row each.")] = None,
    user_model: Annotated[Optional[str], typer.Option(help="Model that words the user simulator's replies (default: embedded).")] = None,
    router_model: Annotated[Optional[str], typer.Option(help="Router model (default: embedded keyword router).")] = None,
    classifier_model: Annotated[Optional[str], typer.Option(help="Classifier model (default: embedded topic classifier).")] = None,
    api_base: Annotated[Optional[str], typer.Option(help="Endpoint URL for every model role, e.g. http://localhost:8000/v1.")] = None,
    temperature: Annotated[Optional[float], typer.Option(help="Agent sampling temperature (provider default if unset).")] = None,
    reasoning_effort: Annotated[Optional[str], typer.Option(help="Agent reasoning effort: low, medium, high.")] = None,
    max_tokens: Annotated[Optional[int], typer.Option(help="Agent max output tokens per turn.")] = None,
    param: Annotated[Optional[list[str]], typer.Option("--param", help="Generation parameter per role, ROLE.KEY=VALUE (roles: agent, user, router, classifier), e.g. router.temperature=0 or agent.reasoning_effort=high. Repeatable; other keys pass to the provider.")] = None,
    no_cache: Annotated[bool, typer.Option(help="Do not read or write the disk response cache.")] = False,
    max_attempts: Annotated[int, typer.Option(help="Attempts per model call (rate limits, 5xx, timeouts) before the cell is recorded as aborted.")] = 6,
    dry_run: Annotated[bool, typer.Option(help="Print the planned cells and an estimate of calls and tokens; run nothing.")] = False,
) -> None:
    """Run a suite and print its scorecard."""
    _suite(suite)
    from longview.kernel.models import GenParams
    from longview.suites.atr import suite as atr
    from longview.suites.atr.estimate import dry_run_table
    from longview.suites.atr.roles import parse_role_params

    try:
        role_params = parse_role_params(param or [])
        agent_flags = {k: v for k, v in {"temperature": temperature, "reasoning_effort": reasoning_effort,
                                         "max_tokens": max_tokens}.items() if v is not None}
        if agent_flags:
            base = role_params.get("agent", GenParams()).model_dump()
            role_params["agent"] = GenParams.model_validate({**base, **agent_flags})
        opts = atr.RunOptions(
            agents=agent or None, variants=variant or [], dataset=dataset, personas=personas, out=out,
            resume=resume, force=force, max_concurrency=max_concurrency, seed=seed, max_turns=max_turns, trials=trials,
            models=model or [], user_model=user_model, router_model=router_model, classifier_model=classifier_model,
            api_base=api_base, no_cache=no_cache, max_attempts=max_attempts,
            role_params=role_params,
        )
    except LongviewError as e:
        _fail(e)
    except ValueError as e:  # pydantic validation of option values
        _fail(LongviewError(" ".join(str(e).split())))
    if dry_run:
        try:
            console.print(dry_run_table(opts))
        except LongviewError as e:
            _fail(e)
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=False,
    )
    tasks: dict[str, int] = {}

    def on_start(cells: int, sessions: int) -> None:
        tasks["cells"] = progress.add_task("cells", total=cells)
        tasks["sessions"] = progress.add_task("sessions", total=sessions)

    try:
        with progress:
            store, sc = atr.run(
                opts,
                on_start=on_start,
                on_session=lambda: progress.advance(tasks["sessions"]),
                on_cell=lambda c, r: progress.advance(tasks["cells"]),
            )
        if json_out:
            atr.write_json(sc, json_out, store.manifest())
    except LongviewError as e:
        _fail(e)
    _print_scorecard(sc, store.manifest().usage)
    console.print(f"run directory: {store.root}")


@app.command()
def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Also write the scorecard JSON here.")] = None,
) -> None:
    """Reprint the scorecard of a finished (or partial) run."""
    from longview.kernel.runstore import RunStore
    from longview.suites.atr import suite as atr

    try:
        store = RunStore(run_dir)
        manifest = store.manifest()
        _suite(manifest.suite)
        sc = atr.score(store)
        if json_out:
            atr.write_json(sc, json_out, manifest)
    except LongviewError as e:
        _fail(e)
    _print_scorecard(sc, manifest.usage)
    console.print(
        f"longview {manifest.package_version} · commit {manifest.git_commit or 'unknown'} · "
        f"dataset {manifest.dataset.name} {manifest.dataset.sha256[:12]} · config {manifest.config_hash[:12]}"
    )


@app.command()
def trace(
    path: Annotated[Path, typer.Argument(help="A session transcript (RUN_DIR/cells/<cell>/<session>.jsonl) or a cell folder.")],
) -> None:
    """Print session transcripts in readable form."""
    from longview.kernel.trace import read_trace
    from longview.report import trace_lines

    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        _fail(LongviewError(f"{path}: expected a session .jsonl file or a folder containing some"))
    for f in files:
        try:
            events = read_trace(f)
        except ValueError as e:
            _fail(LongviewError(f"{f}: not a longview transcript ({' '.join(str(e).split())[:200]})"))
        for line in trace_lines(events):
            console.print(line, highlight=False, markup=False)
        console.print()


@app.command("list")
def list_() -> None:
    """Show suites, datasets and agents."""
    from longview.suites.atr.agents import REFERENCE_AGENTS
    from longview.suites.atr.variants import VARIANTS

    t = Table(title=f"longview {__version__}")
    t.add_column("kind")
    t.add_column("name")
    t.add_column("notes")
    for name, desc in SUITES.items():
        t.add_row("suite", name, desc)
    t.add_row("dataset", "atr: builtin", "20 generated personas shipped with longview")
    t.add_row("dataset", "atr: PATH", "a folder of ATRBench-format episode JSON files")
    t.add_row("dataset", "atr: atrbench:PATH", "the released ATRBench data (data/personas/*/episodes)")
    for a, v in REFERENCE_AGENTS.items():
        t.add_row("agent", a, f"scripted reference agent (default variant: {v})")
    for v in VARIANTS:
        t.add_row("variant", v, "")
    console.print(t)


@data_app.command("generate")
def generate(
    suite: Annotated[str, typer.Argument(help="Suite whose dataset to build: atr.")],
    seed: Annotated[int, typer.Option(help="Generation seed.")] = 0,
    personas: Annotated[int, typer.Option(help="Number of personas.")] = 20,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("atr-cohort"),
    force: Annotated[bool, typer.Option(help="Write into a folder that already has files.")] = False,
) -> None:
    """Generate a cohort deterministically from a seed, with its QC report."""
    _suite(suite)
    from longview.suites.atr.generator import build

    if out.exists() and any(out.iterdir()) and not force:
        _fail(LongviewError(f"{out}: folder is not empty; pass --force to write into it"))
    if personas < 1:
        _fail(LongviewError(f"--personas must be at least 1, got {personas}"))

    episodes, report = build.generate(seed, personas)
    build.write(episodes, report, out)
    console.print(f"wrote {len(episodes)} episodes and qc_report.json to {out}")


@app.command()
def calibrate(
    role: Annotated[str, typer.Argument(help="router or classifier.")],
    router_model: Annotated[Optional[str], typer.Option(help="Calibrate this Router model instead of the embedded one.")] = None,
    classifier_model: Annotated[Optional[str], typer.Option(help="Calibrate this Classifier model instead of the embedded one.")] = None,
    api_base: Annotated[Optional[str], typer.Option(help="Endpoint URL for the model.")] = None,
    calibration_set: Annotated[Optional[Path], typer.Option("--set", help="A calibration JSONL file (default: the built-in set).")] = None,
    no_cache: Annotated[bool, typer.Option(help="Do not read or write the disk response cache.")] = False,
    errors: Annotated[int, typer.Option(help="How many disagreements to list.")] = 20,
) -> None:
    """Report precision, recall and accuracy of the configured ATR Router or Classifier on a labelled set."""
    import asyncio

    from longview.suites.atr import calibration as cal
    from longview.suites.atr import suite as atr
    from longview.suites.atr.roles import Models

    if role not in ("router", "classifier"):
        _fail(LongviewError(f"unknown role '{role}'; expected router or classifier"))
    try:
        models = Models(atr.RunOptions(router_model=router_model, classifier_model=classifier_model,
                                           api_base=api_base, no_cache=no_cache))
        scaffold = models.scaffold()
        if role == "router":
            result = asyncio.run(cal.calibrate_router(scaffold.router, cal.load_router_set(calibration_set)))
        else:
            result = asyncio.run(cal.calibrate_classifier(scaffold.classifier, cal.load_classifier_set(calibration_set)))
    except LongviewError as e:
        _fail(e)
    for table in cal.render(result, errors=errors):
        console.print(table)


def main() -> None:  # pragma: no cover
    app()
