"""The `longview` command line: thin, and the same for every suite.

``run SUITE`` and ``longview SUITE ...`` (a suite's own commands) are built lazily from the suite
registry, so ``longview list`` and ``--help`` import no suite. Common run flags are declared once
(:data:`COMMON`); each suite adds its typed options (``-S key=value`` or ``--key value``) and a
``--ROLE-model`` flag per model role.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from longview._version import __version__
from longview.harness import registry
from longview.harness.terminal.console import console, err, fail
from longview.kernel.errors import LongviewError, printable, terminal_safe

# name, click kwargs: the flags every `run SUITE` has.
COMMON: list[tuple[list[str], dict[str, Any]]] = [
    (["--agent"], dict(multiple=True, help="Agent under test: a reference agent (ref:...) or 'reference' for all; your own as module:attr (a Python factory), a name registered under 'longview.agents', 'cmd:COMMAND ARGS' (JSON lines over stdio) or 'mcp:COMMAND ... {prompt} ... {mcp_config}' (docs/agents.md). Repeatable.")),
    (["--agent-timeout"], dict(type=float, default=120.0, show_default=True, help="Seconds an external agent (cmd:, mcp:) may stay silent before its cell aborts.")),
    (["--variant"], dict(multiple=True, help="Variant or condition. Repeatable; default: each agent's own.")),
    (["--dataset"], dict(default="builtin", show_default=True, help="'builtin', a folder, or importer:PATH.")),
    (["--personas", "--units"], dict(type=int, default=None, help="Use only the first N units (personas, users, scenarios).")),
    (["--unit", "unit_ids"], dict(multiple=True, help="Run this unit (persona, user, scenario id), or A..B for every unit from A to B in dataset order. Repeatable.")),
    (["--out"], dict(type=click.Path(path_type=Path), default=None, help="Run directory (default: runs/<suite>-<config hash>, continued if it exists).")),
    (["--json", "json_out"], dict(type=click.Path(path_type=Path), default=None, help="Also write the scorecard JSON here.")),
    (["--resume"], dict(is_flag=True, help="Continue a run: skip cells that finished.")),
    (["--force"], dict(is_flag=True, help="Replace an existing run (or resume across a config change).")),
    (["--max-concurrency"], dict(type=int, default=4, show_default=True, help="Sessions in flight across the run.")),
    (["--provider-limit"], dict(multiple=True, help="Model requests in flight to one provider across the run (and a Ray cluster), PROVIDER=N (e.g. openai=8). Repeatable.")),
    (["--seed"], dict(type=int, default=0, show_default=True, help="Seed for bootstrap CIs and model trials.")),
    (["--max-turns"], dict(type=int, default=None, help="Turn cap per session (default: the suite's, as its paper: 20 assistant turns; intents 30 replies to the user).")),
    (["--trials"], dict(type=int, default=1, show_default=True, help="Run every cell this many times (adds pass^k where defined).")),
    (["--model"], dict(multiple=True, help="Model under test, provider/model (LiteLLM style: openai/gpt-5.4, anthropic/claude-opus-4-7, ollama/qwen3, hosted_vllm/NAME). Repeatable.")),
    (["--role"], dict(multiple=True, help="Model for a suite role, ROLE=MODEL (e.g. judge=openai/gpt-5.4). Repeatable.")),
    (["--api-base"], dict(default=None, help="Endpoint URL for every model role, e.g. http://localhost:8000/v1.")),
    (["--temperature"], dict(type=float, default=None, help="Agent sampling temperature (provider default if unset).")),
    (["--reasoning-effort"], dict(default=None, help="Agent reasoning effort: low, medium, high.")),
    (["--max-tokens"], dict(type=int, default=None, help="Agent max output tokens per turn.")),
    (["--param"], dict(multiple=True, help="Generation parameter per role, ROLE.KEY=VALUE (e.g. agent.reasoning_effort=high). Repeatable.")),
    (["--price"], dict(multiple=True, help="A model's price, MODEL=INPUT/OUTPUT[/CACHED] in USD per 1M tokens (cached defaults to INPUT); before longview's table. Repeatable.")),
    (["--prices", "prices_file"], dict(type=click.Path(path_type=Path), default=None, help="A JSON or YAML file of prices: provider/model -> {input, output, cached} in USD per 1M tokens.")),
    (["--no-cache"], dict(is_flag=True, help="Do not read or write the disk response cache.")),
    (["--max-attempts"], dict(type=int, default=6, show_default=True, help="Attempts per model call before its cell is recorded as aborted.")),
    (["--request-timeout"], dict(type=float, default=None, help="Seconds of server silence before a model request is abandoned and retried (default 30; raise it for slow non-streamed reasoning models).")),
    (["--allow-aborts"], dict(is_flag=True, help="Exit 0 even when some cells aborted (they are still reported and never scored).")),
    (["-S", "--suite-option", "suite_option"], dict(multiple=True, help="Suite option KEY=VALUE (see below). Repeatable.")),
    (["--executor"], dict(type=click.Choice(["local", "ray"]), default="local", show_default=True, help="What runs the cells: this process, or a Ray cluster (pip install 'longview[ray]').")),
    (["--workers"], dict(type=click.IntRange(min=1), default=1, show_default=True, help="Processes of this machine that run cells (local executor); more than one speeds up CPU-bound runs (reference agents, embedded components), not model waits.")),
    (["--ray-address"], dict(default=None, help="Ray cluster to join with --executor ray (e.g. auto, ray://head:10001); default: start a local Ray instance for the run.")),
    (["--dry-run"], dict(is_flag=True, help="Print the planned cells and an estimate of calls and tokens; run nothing.")),
]


def _decode(value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def _is_list(annotation: Any) -> bool:
    return typing.get_origin(annotation) is list or any(
        typing.get_origin(a) is list for a in typing.get_args(annotation)
    )


def suite_option_values(options_model: Any, pairs: list[str], flags: dict[str, Any]) -> dict[str, Any]:
    """``-S key=value`` pairs and ``--key value`` flags as raw suite options (validated later)."""
    raw: dict[str, Any] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise LongviewError(f"-S '{item}': expected KEY=VALUE")
        field = options_model.model_fields.get(key)
        if field is not None and _is_list(field.annotation):
            raw.setdefault(key, []).extend(v if isinstance(v := _decode(value), list) else [v])
        else:
            raw[key] = _decode(value)
    for key, value in flags.items():
        if value in (None, (), False) or key in raw:
            continue
        raw[key] = list(value) if isinstance(value, tuple) else value
    return raw


def _suite_flags(suite: Any, taken: set[str]) -> list[click.Option]:
    """A ``--key`` flag per suite option (unless a common flag has that name)."""
    out = []
    for key, field in suite.Options.model_fields.items():
        flag = "--" + key.replace("_", "-")
        if flag in taken:
            continue
        kw: dict[str, Any] = dict(default=None, help=(field.description or "") + f" (suite option {key})")
        if field.annotation is bool:
            kw.update(is_flag=True, default=False)
        elif _is_list(field.annotation):
            kw.update(multiple=True, default=())
        out.append(click.Option([flag, f"opt__{key}"], **kw))
    return out


def _epilog(suite: Any) -> str:
    lines = [f"Suite {suite.name}: {suite.summary}", ""]
    lines.append("Reference agents: " + (", ".join(f"{a} (runs {v})" for a, v in suite.reference_agents.items()) or "none"))
    lines.append("Variants: " + ", ".join(suite.variants))
    lines.append("Model roles besides the agent: " + (", ".join(f"{r.name} ({r.description}; embedded: {r.embedded})" for r in suite.roles) or "none"))
    lines.append("Datasets: " + ", ".join(f"{k} ({v})" for k, v in suite.datasets.items()))
    fields = suite.Options.model_fields
    if fields:
        lines.append("Suite options (-S KEY=VALUE or --KEY VALUE): " + "; ".join(
            f"{k}: {f.description or ''} (default {f.default!r})" for k, f in fields.items()))
    return "\n\n".join(lines)


def _run_command(suite_name: str) -> click.Command:
    suite = registry.load(suite_name)
    params: list[click.Parameter] = [click.Option(names, **kw) for names, kw in COMMON]
    taken = {n for names, _ in COMMON for n in names if n.startswith("--")}
    role_flags = [f"--{r.name}-model" for r in suite.roles]
    for r, flag in zip(suite.roles, role_flags, strict=True):
        params.append(click.Option([flag, f"role__{r.name}"], default=None,
                                   help=f"Model for the {r.name} role: {r.description} (default: embedded {r.embedded})."))
    params += _suite_flags(suite, taken | set(role_flags))

    def callback(**kw: Any) -> None:
        _run(suite, kw)

    return click.Command(suite_name, params=params, callback=callback, epilog=_epilog(suite),
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
        allow_aborts=kw["allow_aborts"], agent_timeout=kw["agent_timeout"],
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
    from longview.harness.costs import estimate_lines, total
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
        est = suite.estimate(prepared.cells, prepared.dataset, prepared.roles, prepared.options)
        print_tables(console, plan_table(suite.name, prepared.cells, est, bool(cfg.models or cfg.role_models)))
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
    _print_scorecard(suite, sc, manifest)
    console.print(f"run directory: {store.root}")
    _report_outcome(result, manifest.usage)
    if result.aborted and not cfg.allow_aborts:
        err.print(Text.assemble(("error: ", "bold red"), f"{len(result.aborted)} of {result.planned} cells aborted "
                                "(see above); they are not scored. Fix the cause and rerun with --resume, or pass "
                                "--allow-aborts to accept a partial scorecard."), highlight=False)
        raise SystemExit(1)


def _report_outcome(result: Any, usage: dict) -> None:
    """Damaged files found, aborted cells grouped by reason, retries per role: never silent."""
    for where, note in result.notes.items():
        err.print(Text(f"note: {printable(where)}: {printable(note, 300)}"), highlight=False)
    if result.aborted:
        reasons: dict[str, list[str]] = {}
        for cell, reason in result.aborted:
            reasons.setdefault(reason, []).append(cell)
        err.print(Text(f"{len(result.aborted)} of {result.planned} cells aborted:"), highlight=False)
        for reason, cells in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
            err.print(Text(f"  {len(cells)} × {printable(reason, 300)} (e.g. {printable(cells[0])})"), highlight=False)
    retries = {r: u.get("retries", 0) for r, u in (usage.get("roles") or {}).items() if u.get("retries")}
    failed = {r: u.get("failed_calls", 0) for r, u in (usage.get("roles") or {}).items() if u.get("failed_calls")}
    parts = [f"{label}: " + ", ".join(f"{r} {n}" for r, n in counts.items())
             for label, counts in (("model retries", retries), ("calls failed for good", failed)) if counts]
    if parts:
        err.print(Text("; ".join(parts)), highlight=False)
    from longview.kernel.models.usage import usage_notes

    for note in usage_notes(usage):
        err.print(Text(f"note: {note}"), highlight=False)


def _print_scorecard(suite: Any, sc: Any, manifest: Any) -> None:
    from longview.harness.run import scorecard_json
    from longview.harness.terminal.fit import print_tables
    from longview.harness.terminal.tables import legend, usage_table

    print_tables(console, *suite.tables(sc))
    for line in legend(scorecard_json(sc, manifest)):
        console.print(line, highlight=False, markup=False)
    for note in suite.notes(sc, manifest.components):
        console.print(f"note: {note}", highlight=False, markup=False)
    if manifest.usage.get("roles"):
        print_tables(console, usage_table(manifest.usage))


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


def _suite_commands(name: str) -> click.Command:
    """`longview SUITE ...`: the suite's own commands (a typer app or a click command), run as given."""

    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                          "help_option_names": []},
                   help=f"Commands of the {name} suite (generate, calibrate...): longview {name} --help.")
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        try:
            commands = registry.load(name).commands()
        except LongviewError as e:
            fail(e)
        if commands is None:
            fail(LongviewError(f"suite '{name}' has no commands of its own"))
        import typer  # only here: every `longview run` would pay for it at start-up

        if isinstance(commands, typer.Typer):
            commands(args=list(args), prog_name=f"longview {name}")
        else:
            commands.main(args=list(args), prog_name=f"longview {name}")

    return command


class LongviewGroup(click.Group):
    """The top level: fixed commands, `run SUITE`, and each suite's own commands (`longview SUITE ...`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in registry.available() if n not in self.commands)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is None and name in registry.available():
            return _suite_commands(name)
        return cmd


@click.group(cls=LongviewGroup, help="Evaluate long-lived, proactive personal-assistant agents.")
@click.version_option(__version__, prog_name="longview")
def app() -> None:
    pass


app.add_command(RunGroup("run", help="Run a suite and print its scorecard: longview run SUITE [OPTIONS].",
                         no_args_is_help=True))


@app.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Also write the scorecard JSON here.")
def show(run_dir: Path, json_out: Path | None) -> None:
    """Reprint the scorecard of a finished (or partial) run."""
    from longview.harness import run as harness
    from longview.harness.runstore import RunStore

    try:
        store = RunStore(run_dir)
        manifest = store.manifest()
        suite = registry.load(manifest.suite)
        if json_out:
            harness.check_output_file(json_out, "--json", run_dir)
        result = harness.outcome(store)
        sc = harness.score(store, suite)
        if json_out:
            harness.write_json(sc, json_out, manifest, suite, result)
    except LongviewError as e:
        fail(e)
    except OSError as e:
        fail(LongviewError(f"{getattr(e, 'filename', None) or run_dir}: {e.strerror or e}"))
    if result.partial:
        err.print(Text.assemble(("PARTIAL RUN: ", "bold yellow"),
                                f"{result.finished} of {result.planned} planned cells finished; the scorecard below "
                                "covers only those (continue with `longview run ... --out RUN_DIR --resume`)"),
                  highlight=False)
    _print_scorecard(suite, sc, manifest)
    _report_outcome(result, manifest.usage)
    console.print(
        f"longview {manifest.package_version} · suite {manifest.suite}{_plugin(manifest.config)} · commit "
        f"{manifest.git_commit or 'unknown'} · dataset {manifest.dataset.name} {manifest.dataset.sha256[:12]} · "
        f"config {manifest.config_hash[:12]}", highlight=False, markup=False
    )


def _plugin(config: dict[str, Any]) -> str:
    """' (plugin NAME VERSION)' for a suite from another package than longview."""
    p = config.get("plugin")
    return f" (plugin {p.get('name')} {p.get('version')})" if isinstance(p, dict) else ""


def _suite_of_trace(path: Path) -> Any | None:
    """The suite of the run a transcript belongs to (its manifest in a parent folder), if any."""
    from longview.harness.runstore import Manifest

    for parent in [path, *path.parents][:4]:
        m = parent / "manifest.json"
        if m.is_file():
            try:
                return registry.load(Manifest.model_validate_json(m.read_text()).suite)
            except (LongviewError, ValueError):
                return None
    return None


@app.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--raw", is_flag=True, help="Print every request the agent was sent (system prompt, tools, messages, "
              "parameters) as JSON, as an OpenAI-compatible server received it.")
@click.option("--turn", type=int, default=None, help="With --raw: only the requests of this assistant turn.")
def trace(path: Path, raw: bool, turn: int | None) -> None:
    """Print session transcripts (a .jsonl file or a cell folder) in readable form."""
    from longview.harness.transcript import trace_lines
    from longview.kernel.trace import read_trace

    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        fail(LongviewError(f"{path}: expected a session .jsonl file or a folder containing some"))
    suite = _suite_of_trace(path.resolve())
    render = suite.transcript if suite is not None else trace_lines
    for f in files:
        try:
            events = read_trace(f)
        except (ValueError, UnicodeDecodeError) as e:
            fail(LongviewError(f"{f}: not a longview transcript ({' '.join(str(e).split())[:200]})"))
        except RecursionError:
            fail(LongviewError(f"{f}: not a longview transcript (JSON nested too deep)"))
        except OSError as e:
            fail(LongviewError(f"{f}: cannot read ({e.strerror or e})"))
        if raw:
            _print_requests(f, events, turn)
            continue
        for line in render(events):  # model and dataset text must not drive the terminal
            console.print(terminal_safe(line), highlight=False, markup=False)
        console.print()


def _print_requests(path: Path, events: list[Any], turn: int | None) -> None:
    """`trace --raw`: the session's requests, rebuilt from its trace and its cell's stored prompts."""
    from longview.harness.transcript import model_requests, wire_body
    from longview.kernel.trace import read_prompt

    start = next((e for e in events if e.type == "session_start"), None)
    sha = str(start.data.get("prompt") or "") if start is not None else ""
    prompt = read_prompt(path.parent, sha)
    if prompt is None:
        err.print(f"note: {path.name}: the system prompt and tools were not kept (a run from before longview "
                  "recorded them); they are left out", highlight=False, markup=False)
    for req in model_requests(events, prompt):
        if turn is not None and req.turn != turn:
            continue
        console.print(f"# {path.stem} · request {req.index} · turn {req.turn} · {req.kind}", highlight=False, markup=False)
        body = json.dumps(wire_body(req), ensure_ascii=False, indent=2)
        console.print(terminal_safe(body), highlight=False, markup=False, soft_wrap=True)


@app.command("list")
@click.argument("suite", required=False)
def list_(suite: str | None) -> None:
    """The registered suites (nothing imported), or one suite's agents, variants, roles and datasets."""
    from longview.harness.terminal.fit import print_tables

    t = Table(title=f"longview {__version__}")
    for col in ("kind", "name", "notes"):
        t.add_column(col)
    if suite is None:
        from longview.agents.external.specs import registered

        for name, ep in registry.available().items():
            t.add_row("suite", name, f"{ep.value} · longview list {name} for its agents and variants")
        for name, ep in registered().items():
            t.add_row("agent", name, f"{ep.value} · registered agent (longview.agents): --agent {name}")
        print_tables(console, t)
        return
    try:
        s = registry.load(suite)
    except LongviewError as e:
        fail(e)
    t.add_row("suite", s.name, s.summary)
    for spec, desc in s.datasets.items():
        t.add_row("dataset", spec, desc)
    defaults = s.Options()  # what the agents run without -S options or --variant
    for a, v in s.reference_agents.items():
        runs = s.default_variants(a, defaults) or [v]
        t.add_row("agent", a, f"scripted reference agent (default variant{'s' if len(runs) > 1 else ''}: "
                              f"{', '.join(runs)})")
    from longview.agents.external.specs import registered

    for a, ep in registered().items():
        t.add_row("agent", a, f"{ep.value} · registered agent (longview.agents; runs the model variants)")
    for v, desc in s.variants.items():
        t.add_row("variant", v, desc + (" · run by --model" if v in s.model_variants else ""))
    for r in s.roles:
        t.add_row("role", r.name, f"{r.description} (embedded: {r.embedded}; --{r.name}-model or --role {r.name}=MODEL)")
    for k, f in s.Options.model_fields.items():
        t.add_row("option", k, f"{f.description or ''} (default {f.default!r})")
    print_tables(console, t)


@app.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--judge-model", default=None, help="Model for the suite's judge role (provider/model).")
@click.option("--role", multiple=True, help="Model for another re-judgeable role, ROLE=MODEL. Repeatable.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="New run folder (default: RUN-rescored-<model> beside RUN).")
@click.option("--force", is_flag=True, help="Replace an earlier rescore at --out.")
@click.option("--param", multiple=True, help="Generation parameter, ROLE.KEY=VALUE. Repeatable.")
@click.option("--api-base", default=None, help="Endpoint URL for the judge models.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the disk response cache.")
@click.option("--max-concurrency", type=click.IntRange(min=1), default=8, show_default=True,
              help="Cells re-judged at once.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Also write the scorecard JSON here.")
def rescore(run_dir: Path, judge_model: str | None, role: tuple[str, ...], out: Path | None, force: bool,
            param: tuple[str, ...], api_base: str | None, no_cache: bool, max_concurrency: int,
            json_out: Path | None) -> None:
    """Apply judges again to a finished run's stored results, without calling the agent: a new run
    folder with the new scorecard; the original is kept (docs/results.md)."""
    import asyncio

    from longview.harness import run as harness
    from longview.harness.rescore import arescore
    from longview.harness.roles import parse_role_models, parse_role_params
    from longview.harness.runstore import RunStore

    try:
        suite = registry.load(RunStore(run_dir).manifest().suite)
        role_models = parse_role_models(role, suite.rejudged_roles)
        if judge_model:
            role_models["judge"] = judge_model
        params = parse_role_params(param, list(role_models))
        if json_out:
            harness.check_output_file(json_out, "--json")
        target, sc = asyncio.run(arescore(run_dir, role_models, out=out, force=force, params=params,
                                          api_base=api_base, no_cache=no_cache, max_concurrency=max_concurrency))
        store = RunStore(target)
        manifest = store.manifest()
        if json_out:
            harness.write_json(sc, json_out, manifest, suite)
    except LongviewError as e:
        fail(e)
    _print_scorecard(suite, sc, manifest)
    console.print(f"rescored run: {target} (from {run_dir}; judged by "
                  f"{', '.join(f'{r}={m}' for r, m in role_models.items())})", highlight=False, markup=False)


@app.command()
@click.argument("metric")
@click.option("--suite", "suite_name", default=None, help="Only this suite's metrics.")
@click.option("--run", "run_dir", type=click.Path(path_type=Path), default=None,
              help="Explain the metric as that run scored it (its judges and components).")
def explain(metric: str, suite_name: str | None, run_dir: Path | None) -> None:
    """What a metric counts, how it is obtained and where it differs from its paper (long form)."""
    from longview.harness.run import load_dataset, suite_options
    from longview.harness.terminal.tables import metric_line

    def key(name: str) -> str:
        return name.lower().replace("_", "").replace("-", "")

    found: list[tuple[str, str, dict[str, Any]]] = []
    try:
        if run_dir is not None:
            from longview.harness.runstore import read_run_file

            data = json.loads(read_run_file(run_dir / "scorecard.json", run_dir, "<scorecard>"))
            sources = {str(data.get("suite")): data.get("metrics") or {}}
        else:
            sources = {}
            for name in [suite_name] if suite_name else list(registry.available()):
                s = registry.load(name)
                options = suite_options(s, {})
                sources[name] = s.score([], load_dataset(s, "builtin", options), options, 0).to_json_dict()["metrics"]
    except (LongviewError, OSError, ValueError) as e:
        fail(LongviewError(f"explain: {e}"))
    for suite, metrics in sources.items():
        found += [(suite, k, v) for k, v in metrics.items() if key(k) == key(metric)]
    if not found:
        known = ", ".join(f"{s}: {', '.join(m)}" for s, m in sources.items())
        fail(LongviewError(f"no metric '{metric}'; known metrics — {known}"))
    for suite, name, info in found:
        console.print(f"{suite} · {metric_line(name, info)}", highlight=False, markup=False)
        console.print(f"  definition, coverage and differences from the paper: docs/{suite}.md "
                      f"(section on {name})", highlight=False, markup=False)


@app.command()
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
                click.echo(text, nl=False)
        if csv_out is not None or (jsonl_out is None and parquet_out is None):
            text = write_csv(rows, None if csv_out is None or str(csv_out) == "-" else csv_out)
            if csv_out is None or str(csv_out) == "-":
                click.echo(text, nl=False)
    except LongviewError as e:
        fail(e)
    written = [str(t) for t in (csv_out, jsonl_out, parquet_out) if t is not None and str(t) != "-"]
    if written:
        err.print(f"{len(rows)} rows from {len(loaded)} run(s) → {', '.join(written)}", highlight=False, markup=False)


def run_flags(*names: str, reword: dict[str, str] | None = None) -> Any:
    """Some of the run flags (:data:`COMMON`, named by their first long name) for another command,
    from the same definition (``reword``: name -> help, where a flag's meaning there differs)."""
    by_name = {opts[0]: (opts, kw) for opts, kw in COMMON}

    def decorate(fn: Any) -> Any:
        for name in reversed(names):
            opts, kw = by_name[name]
            fn = click.option(*opts, **{**kw, **({"help": reword[name]} if reword and name in reword else {})})(fn)
        return fn

    return decorate


@app.command("profile")
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
    from rich.table import Table

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


def _add_report_commands() -> None:
    from longview.report.commands import compare, report

    for command in (report, compare):
        app.add_command(command)


_add_report_commands()


def main() -> None:  # pragma: no cover
    app()
