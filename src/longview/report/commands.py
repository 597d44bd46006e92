"""The `report`, `compare` and `profile` commands (registered in longview.cli)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from longview.harness.cli_util import console, err, fail
from longview.harness.fit import print_tables
from longview.kernel.errors import LongviewError


def _size(path: Path) -> str:
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
    console.print(f"wrote {out} ({_size(out)}, {len(loaded)} run(s), {sessions} sessions) in {time.perf_counter() - t0:.1f} s")


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
        console.print(f"wrote {out} ({_size(out)})")


@click.command("profile")
@click.option("--model", required=True, help="The model to profile, provider/model (mock/... runs offline).")
@click.option("--quick", is_flag=True, help="Fewer units per suite (each suite's quick setting), stated on the report.")
@click.option("--dry-run", is_flag=True, help="Print the planned cells, estimated calls, tokens and cost; run nothing.")
@click.option("--units", type=int, default=None, help="Units per suite (overrides --quick's per-suite number).")
@click.option("--suite", "suites", multiple=True, help="Only these suites (default: every registered suite). Repeatable.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Folder of the runs, one per suite (default runs/profile-<model>[-quick]; re-running continues it).")
@click.option("-o", "--report", "report_path", type=click.Path(path_type=Path), default=None,
              help="The HTML report (default: <out>/profile.html).")
@click.option("--max-concurrency", type=int, default=4, show_default=True, help="Sessions in flight per suite run.")
@click.option("--max-turns", type=int, default=None, help="Assistant-turn cap per session (default: the harness's).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for bootstrap CIs and model trials.")
@click.option("--api-base", default=None, help="Endpoint URL for the model, e.g. http://localhost:8000/v1.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the disk response cache.")
@click.option("--force", is_flag=True, help="Start over runs whose configuration changed.")
def profile(model: str, quick: bool, dry_run: bool, units: int | None, suites: tuple[str, ...], out: Path | None, report_path: Path | None,
            max_concurrency: int, max_turns: int | None, seed: int, api_base: str | None, no_cache: bool, force: bool) -> None:
    """A model's proactivity profile: every registered suite on MODEL (with each suite's reference
    agents on the same units), then one report whose first view places each suite's headline metric
    between that suite's reference floor and ceiling."""
    from rich.table import Table

    from longview.harness import run as harness
    from longview.harness.tables import plan_table, usage_table
    from longview.report import profile as prof
    from longview.report.build import write_report
    from longview.report.data import load_run

    out = out or prof.default_out(model, quick)
    try:
        if report_path:
            harness.check_output_file(report_path, "--report")
        planned, skipped = prof.plan(model, quick=quick, out=out, suites=list(suites) or None, seed=seed,
                                     max_concurrency=max_concurrency, api_base=api_base, no_cache=no_cache, force=force,
                                     max_turns=max_turns, units=units)
        for name, why in skipped:
            err.print(f"[yellow]skipping suite {name}: {why}[/yellow]")
        if dry_run:
            summary = Table(title=f"Profile dry run · {model}{' (quick)' if quick else ''} · nothing is called")
            for col in ("suite", "cells", "units", "model calls (est.)", "input tokens (est.)", "cost USD (est.)"):
                summary.add_column(col, justify="left" if col == "suite" else "right")
            total = 0.0
            for p in planned:
                prepared = harness.prepare(p.cfg, dry_run=True)
                est = p.suite.estimate(prepared.cells, prepared.dataset, prepared.roles, prepared.options)
                print_tables(console, plan_table(p.suite.name, prepared.cells, est, True))
                cost, known = prof.estimate_cost(model, est, p.cfg.role_models)
                total += cost
                calls = sum(c for c, _ in est.values())
                tokens = sum(t for _, t in est.values())
                summary.add_row(p.suite.name, str(len(prepared.cells)), str(len({c.unit for c in prepared.cells})),
                                f"~{calls}" if est else "no estimate", f"~{tokens / 1e6:.2f}M" if est else "–",
                                f"~{cost:.2f}" + ("" if known else " (unpriced model)") if est else "–")
            summary.add_row("total", "", "", "", "", f"~{total:.2f}")
            print_tables(console, summary)
            console.print(f"outputs would go to {out}/<suite> and {report_path or out / 'profile.html'} "
                          f"(cost: input tokens at list price + ~{prof.ASSUMED_OUTPUT_TOKENS} output tokens per call)")
            return
        runs = {}
        for p in planned:
            console.print(f"[bold]{p.suite.name}[/bold]: reference agents and {model}"
                          f"{f' on {p.cfg.units} units' if p.cfg.units else ''} → {p.cfg.out}")
            store, _ = harness.run(p.cfg)
            usage = store.manifest().usage
            if usage.get("roles"):
                print_tables(console, usage_table(usage))
            runs[p.suite.name] = load_run(store.root, p.suite.name)
        data = prof.profile_data(model, planned, runs, skipped, quick)
        target = report_path or out / "profile.html"
        write_report(list(runs.values()), target, title=f"longview profile · {model}", profile=data)
    except LongviewError as e:
        fail(e)
    t = Table(title=f"Proactivity profile · {model}")
    for col in ("suite", "metric", "value [95% CI]", "floor → ceiling", "of the way"):
        t.add_column(col)
    for line in data["lines"]:
        v, ci = line.get("value"), line.get("ci95")
        val = "–" if v is None else f"{v:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
        fc = "–" if line.get("floor") is None else f"{line['floor']:.2f} → {line['ceiling']:.2f}"
        t.add_row(line["label"], line["metric"], val, fc, "–" if line.get("pos") is None else f"{line['pos']:.0%}")
    print_tables(console, t)
    console.print(f"wrote {target} ({_size(target)})")
