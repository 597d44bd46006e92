"""The flags of `longview run SUITE`, declared once (:data:`COMMON`), a suite's typed options as
flags, and :func:`run_flags` for another command that shares some of them (`profile`)."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import click

from longview.kernel.errors import LongviewError

# name, click kwargs: the flags every `run SUITE` has.
COMMON: list[tuple[list[str], dict[str, Any]]] = [
    (["--agent"], dict(multiple=True, help="Agent under test: a reference agent (ref:...) or 'reference' for all; your own as module:attr (a Python factory), a name registered under 'longview.agents', 'cmd:COMMAND ARGS' (JSON lines over stdio), 'mcp:COMMAND ... {prompt} ... {mcp_config}' or 'mcp+stdio:COMMAND ... {prompt}' (an MCP harness over HTTP or its own stdio; docs/agents.md). Repeatable.")),
    (["--agent-process"], dict(type=click.Choice(["session", "cell"]), default="session", show_default=True, help="A cmd: agent's process per session (nothing it keeps in memory crosses sessions) or per cell (a stateful harness keeps state across the cell's sessions; each cell starts fresh).")),
    (["--agent-timeout"], dict(type=float, default=120.0, show_default=True, help="Seconds an external agent (cmd:, mcp:, mcp+stdio:) may stay silent before its cell aborts.")),
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


def suite_flags(suite: Any, taken: set[str]) -> list[click.Option]:
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


def epilog(suite: Any) -> str:
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
