"""`longview run SUITE`: one subcommand per registered suite, built from the registry when asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from longview.cli.flags import COMMON, epilog, suite_flags, suite_option_values
from longview.cli.printing import print_outcome, print_scorecard
from longview.harness import registry
from longview.harness.terminal.console import console, err, fail
from longview.kernel.errors import LongviewError


def _run_command(suite_name: str) -> click.Command:
    suite = registry.load(suite_name)
    params: list[click.Parameter] = [click.Option(names, **kw) for names, kw in COMMON]
    taken = {n for names, _ in COMMON for n in names if n.startswith("--")}
    role_flags = [f"--{r.name}-model" for r in suite.roles]
    for r, flag in zip(suite.roles, role_flags, strict=True):
        params.append(click.Option([flag, f"role__{r.name}"], default=None,
                                   help=f"Model for the {r.name} role: {r.description} (default: embedded {r.embedded})."))
    params += suite_flags(suite, taken | set(role_flags))

    def callback(**kw: Any) -> None:
        _run(suite, kw)

    return click.Command(suite_name, params=params, callback=callback, epilog=epilog(suite),
                         help=f"Run the {suite_name} suite and print its scorecard.")


def _config(suite: Any, kw: dict[str, Any]):
    from longview.harness.options import RunConfig
    from longview.harness.roles import AGENT, parse_role_models, parse_role_params
    from longview.kernel.models import GenParams

    role_names = [r.name for r in suite.roles]
    role_models = parse_role_models(kw["role"], role_names)
    for r in role_names:
        if kw.get(f"role__{r}"):
            role_models[r] = kw[f"role__{r}"]
    role_params = parse_role_params(kw["param"], [AGENT, *role_names])
    agent_flags = {k: kw[k] for k in ("temperature", "reasoning_effort", "max_tokens") if kw.get(k) is not None}
    if agent_flags:
        base = role_params.get(AGENT, GenParams()).model_dump()
        role_params[AGENT] = GenParams.model_validate({**base, **agent_flags})
    flags = {k[len("opt__"):]: v for k, v in kw.items() if k.startswith("opt__")}
    return RunConfig(
        suite=suite.name, agents=list(kw["agent"]) or None, variants=list(kw["variant"]), dataset=kw["dataset"],
        units=kw["personas"], unit_ids=list(kw.get("unit_ids") or ()), out=kw["out"], resume=kw["resume"], force=kw["force"],
        max_concurrency=kw["max_concurrency"], seed=kw["seed"], max_turns=suite.default_max_turns if kw["max_turns"] is None else kw["max_turns"], trials=kw["trials"],
        models=list(kw["model"]), role_models=role_models, api_base=kw["api_base"], no_cache=kw["no_cache"],
        max_attempts=kw["max_attempts"], role_params=role_params, request_timeout=kw["request_timeout"],
        allow_aborts=kw["allow_aborts"], agent_timeout=kw["agent_timeout"], agent_process=kw["agent_process"],
        executor=kw["executor"], ray_address=kw["ray_address"], workers=kw["workers"],
        provider_limits=_provider_limits(kw["provider_limit"]),
        prices=_prices(kw.get("prices_file"), kw.get("price", ())),
        suite_options=suite_option_values(suite.Options, list(kw["suite_option"]), flags),
    )


def _prices(path: Path | None, items: tuple[str, ...]) -> dict[str, Any]:
    """--prices FILE, then --price MODEL=IN/OUT[/CACHED] on top."""
    from longview.kernel.models.prices import load_prices_file, parse_price

    out = dict(load_prices_file(path)) if path else {}
    out.update(parse_price(item) for item in items)
    return out


def _provider_limits(items: tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        prefix, sep, n = item.partition("=")
        if not sep or not n.strip().isdigit():
            raise LongviewError(f"--provider-limit '{item}': expected PROVIDER=N, e.g. openai=8")
        out[prefix.strip()] = int(n)
    return out


def _run(suite: Any, kw: dict[str, Any]) -> None:
    from longview.harness import run as harness
    from longview.harness.costs import NOTE as COST_NOTE
    from longview.harness.costs import estimate_lines, plan_estimate, total
    from longview.harness.harnesses import launch_lines
    from longview.harness.terminal.fit import print_tables
    from longview.harness.terminal.tables import cost_table, plan_table

    try:
        cfg = _config(suite, kw)
        prepared = harness.prepare(cfg, dry_run=kw["dry_run"])
    except LongviewError as e:
        fail(e)
    except ValidationError as e:  # option values: name the flag, not the model
        first = e.errors()[0]
        flag = "--" + ".".join(str(x) for x in first["loc"]).replace("_", "-") if first["loc"] else "option"
        fail(LongviewError(f"{flag}: {first['msg']} (got {first.get('input')!r:.80})"))
    except ValueError as e:
        fail(LongviewError(" ".join(str(e).split())))
    available = len(prepared.dataset.unit_ids())
    if cfg.units is not None and cfg.units > available:
        err.print(f"note: {cfg.units} units asked for; dataset '{prepared.manifest.dataset.name}' has {available}, "
                  "so all of them run", highlight=False)
    if kw["dry_run"]:
        est = plan_estimate(suite, prepared)  # the agent role only for cells longview calls a model for
        print_tables(console, plan_table(suite.name, prepared.cells, est, bool(cfg.models or cfg.role_models)))
        for line in launch_lines(prepared):  # external agents: what will be started, where their calls go
            console.print(f"launches · {line}", highlight=False, markup=False, soft_wrap=True)
        lines = estimate_lines(suite, prepared)
        if lines:
            print_tables(console, cost_table(lines))
            unpriced = total(lines)[1]
            if unpriced:
                err.print(f"note: no price known for {', '.join(unpriced)}", highlight=False, markup=False)
            err.print(COST_NOTE, highlight=False, markup=False)
        from longview.harness.flight import flight

        for line in flight(prepared).lines():
            console.print(line, highlight=False, markup=False)
        return
    try:  # output paths are checked before anything is written
        if kw["json_out"]:
            harness.check_output_file(kw["json_out"], "--json", cfg.out or harness.default_out(prepared.manifest))
    except LongviewError as e:
        fail(e)
    # Redrawn 4 times a second on a terminal; elsewhere (a log file, CI) only at the end: a
    # refresh thread costs CPU for every second a model run waits.
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=False, auto_refresh=err.is_terminal, refresh_per_second=4)
    tasks: dict[str, Any] = {}

    def on_start(cells: int, sessions: int) -> None:
        # Shown from here, after the executor started: its worker processes fork from one thread.
        progress.start()
        tasks["cells"] = progress.add_task("cells", total=cells)
        tasks["sessions"] = progress.add_task("sessions", total=sessions)

    try:
        try:
            store, sc = harness.run(cfg, prepared=prepared, on_start=on_start,
                                    on_session=lambda: progress.advance(tasks["sessions"]),
                                    on_cell=lambda c, r: progress.advance(tasks["cells"]))
        finally:
            progress.stop()
        manifest = store.manifest()
        result = harness.outcome(store)
        if kw["json_out"]:
            harness.write_json(sc, kw["json_out"], manifest, suite, result)
    except LongviewError as e:
        fail(e)
    except OSError as e:  # disk full, permissions changed under us...
        fail(LongviewError(f"{getattr(e, 'filename', None) or 'run folder'}: {e.strerror or e}"))
    print_scorecard(suite, sc, manifest)
    console.print(f"run directory: {store.root}")
    print_outcome(result, manifest.usage)
    if result.aborted and not cfg.allow_aborts:
        err.print(Text.assemble(("error: ", "bold red"), f"{len(result.aborted)} of {result.planned} cells aborted "
                                "(see above); they are not scored. Fix the cause and rerun with --resume, or pass "
                                "--allow-aborts to accept a partial scorecard."), highlight=False)
        raise SystemExit(1)


class RunGroup(click.Group):
    """`longview run SUITE`: one subcommand per registered suite, built when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(registry.available())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in registry.available():
            fail(LongviewError(f"unknown suite '{name}'; available: {', '.join(registry.available())}"))
        try:
            return _run_command(name)
        except LongviewError as e:
            fail(e)
