"""`longview profile --model M`: every registered suite on one model, then one report."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from longview.cli.flags import run_flags
from longview.cli.printing import print_outcome
from longview.harness.terminal.console import console, err, fail
from longview.kernel.errors import LongviewError


@click.command("profile")
@click.option("--model", required=True, help="The model to profile, provider/model (mock/... runs offline).")
@click.option("--quick", is_flag=True, help="Fewer units per suite (each suite's quick setting), stated on the report.")
@click.option("--suite", "suites", multiple=True, help="Only these suites (default: every registered suite). Repeatable.")
@click.option("-o", "--report", "report_path", type=click.Path(path_type=Path), default=None,
              help="The HTML report (default: <out>/profile.html).")
@run_flags("--dry-run", "--personas", "--out", "--max-concurrency", "--max-turns", "--seed", "--api-base", "--no-cache",
           "--force", reword={
               "--dry-run": "Print the planned cells, estimated calls, tokens and cost; run nothing.",
               "--personas": "Units per suite (overrides --quick's per-suite number).",
               "--out": "Folder of the runs, one per suite (default runs/profile-<model>[-quick]; re-running continues it).",
               "--max-concurrency": "Sessions in flight per suite run.",
               "--force": "Start over runs whose configuration changed."})
def profile(model: str, quick: bool, suites: tuple[str, ...], report_path: Path | None, dry_run: bool,
            personas: int | None, out: Path | None, max_concurrency: int, max_turns: int | None, seed: int,
            api_base: str | None, no_cache: bool, force: bool) -> None:
    """A model's proactivity profile: every registered suite on MODEL (with each suite's reference
    agents on the same units), then one report whose first view places each suite's headline metric
    between that suite's reference floor and ceiling."""

    from longview.harness import run as harness
    from longview.harness.costs import estimate_lines
    from longview.harness.costs import total as total_usd
    from longview.harness.terminal.fit import print_tables
    from longview.harness.terminal.tables import plan_table, usage_table
    from longview.kernel.models.prices import ASSUMED_OUTPUT_TOKENS
    from longview.report import profile as prof
    from longview.report.build import write_report
    from longview.report.commands import file_size
    from longview.report.data import load_run

    out = out or prof.default_out(model, quick)
    try:
        if report_path:
            harness.check_output_file(report_path, "--report")
        planned, skipped = prof.plan(model, quick=quick, out=out, suites=list(suites) or None, seed=seed,
                                     max_concurrency=max_concurrency, api_base=api_base, no_cache=no_cache, force=force,
                                     max_turns=max_turns, units=personas)
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
                cost, unpriced = total_usd(estimate_lines(p.suite, prepared))
                known = not unpriced
                total += cost
                calls = sum(c for c, _ in est.values())
                tokens = sum(t for _, t in est.values())
                summary.add_row(p.suite.name, str(len(prepared.cells)), str(len({c.unit for c in prepared.cells})),
                                f"~{calls}" if est else "no estimate", f"~{tokens / 1e6:.2f}M" if est else "–",
                                f"~{cost:.2f}" + ("" if known else " (unpriced model)") if est else "–")
            summary.add_row("total", "", "", "", "", f"~{total:.2f}")
            print_tables(console, summary)
            console.print(f"outputs would go to {out}/<suite> and {report_path or out / 'profile.html'} "
                          f"(cost: input tokens at list price + ~{ASSUMED_OUTPUT_TOKENS} output tokens per call)")
            return
        runs = {}
        for p in planned:
            console.print(f"[bold]{p.suite.name}[/bold]: reference agents and {model}"
                          f"{f' on {p.cfg.units} units' if p.cfg.units else ''} → {p.cfg.out}")
            store, _ = harness.run(p.cfg)
            usage = store.manifest().usage
            if usage.get("roles"):
                print_tables(console, usage_table(usage))
            print_outcome(harness.outcome(store), usage)  # damaged files found on resume, aborted cells: as `run` says them
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
    console.print(f"wrote {target} ({file_size(target)})")
