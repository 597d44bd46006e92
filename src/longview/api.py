"""The Python API: run a suite on your own agent from a script or a notebook.

    import longview

    result = longview.run("atr", agent=MyAgent(), units=2)          # a script
    result = await longview.arun("atr", agent=MyAgent(), units=2)   # a notebook cell, an async app
    result.scorecard["rows"], result.folder

``agent`` is an object with a ``name`` and an async ``act(observation) -> AssistantTurn`` (the
:class:`longview.kernel.agent.Agent` protocol), shared by every cell, or a class or function that
makes one per cell (called with no argument, or with the cell: agent, variant, unit, trial). Every
other keyword is an option of ``longview run`` (a :class:`~longview.harness.options.RunConfig`
field: ``units``, ``variants``, ``out``, ``resume``, ``models``, ``max_concurrency``...), and
``options`` holds the suite's own options (``-S key=value``). The run folder, resume, usage and the
scorecard are those of the CLI. docs/agents.md walks through it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from longview.kernel.errors import ConfigError


class RunResult(BaseModel):
    """What a run returns: its scorecard (the common JSON shape of ``--json``) and its folder."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    folder: Path = Field(description="The run folder (manifest, traces, usage.jsonl, scorecard.json).")
    scorecard: dict[str, Any] = Field(description="The scorecard JSON, as `longview run --json` writes it.")
    planned: int = Field(description="Cells planned.")
    finished: int = Field(description="Cells with a completion marker (aborted ones included).")
    aborted: list[tuple[str, str]] = Field(default_factory=list, description="(cell, reason) of every aborted cell.")

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The scorecard's rows: agent, variant, metrics, ci95, n..."""
        return list(self.scorecard.get("rows", []))

    def metrics(self, agent: str | None = None, variant: str | None = None) -> dict[str, Any]:
        """The metrics of the one row matching ``agent`` and ``variant`` (either may be left out if unambiguous)."""
        rows = [r for r in self.rows if (agent is None or r.get("agent") == agent)
                and (variant is None or r.get("variant") == variant)]
        if len(rows) != 1:
            have = ", ".join(f"{r.get('agent')}/{r.get('variant')}" for r in self.rows)
            raise KeyError(f"{len(rows)} rows match agent={agent!r} variant={variant!r}; rows: {have}")
        return dict(rows[0].get("metrics", {}))


def _config(suite: str, agents: Sequence[str] | None, options: dict[str, Any] | None,
            kwargs: dict[str, Any]) -> Any:
    from longview.harness.options import RunConfig

    fields = set(RunConfig.model_fields) - {"suite", "agents", "suite_options"}
    unknown = sorted(set(kwargs) - fields)
    if unknown:
        raise ConfigError(f"longview.run: unknown option {unknown[0]!r}; options: {', '.join(sorted(fields))}, "
                          "agent, agents, options")
    try:
        return RunConfig(suite=suite, agents=list(agents) if agents is not None else None,
                         suite_options=dict(options or {}), **kwargs)
    except ValidationError as e:
        err = e.errors()[0]
        raise ConfigError(f"longview.run: {'.'.join(str(x) for x in err['loc'])}: {err['msg']}") from None


def _prepare(suite: str, agent: Any, name: str | None, agents: Sequence[str] | None,
             options: dict[str, Any] | None, kwargs: dict[str, Any]) -> Any:
    from longview.agents.external.specs import from_object
    from longview.harness.plan import prepare

    objects = {}
    if agent is not None:
        ext = from_object(agent, name)
        objects[ext.name] = ext
    cfg = _config(suite, agents, options, kwargs)
    return prepare(cfg, objects=objects)


def _result(store: Any) -> RunResult:
    from longview.harness.run import outcome

    done = outcome(store)
    return RunResult(folder=store.root, scorecard=json.loads((store.root / "scorecard.json").read_text("utf-8")),
                     planned=done.planned, finished=done.finished, aborted=done.aborted)


async def arun(suite: str, *, agent: Any = None, name: str | None = None, agents: Sequence[str] | None = None,
               options: dict[str, Any] | None = None, **kwargs: Any) -> RunResult:
    """Run ``suite`` on the running event loop and return its scorecard and folder (see the module
    docstring). ``agents``: ``--agent`` values (``ref:...``, ``module:attr``, ``cmd:...``) run beside ``agent``."""
    from longview.harness.run import arun as harness_arun

    p = _prepare(suite, agent, name, agents, options, kwargs)
    store, _ = await harness_arun(p.cfg, prepared=p)
    return _result(store)


def run(suite: str, *, agent: Any = None, name: str | None = None, agents: Sequence[str] | None = None,
        options: dict[str, Any] | None = None, **kwargs: Any) -> RunResult:
    """:func:`arun` for code without an event loop. Called where a loop is already running (a
    notebook), it runs the suite on a loop of its own in a helper thread and waits for it."""
    from longview.harness.run import run as harness_run

    def blocking() -> RunResult:
        p = _prepare(suite, agent, name, agents, options, kwargs)
        store, _ = harness_run(p.cfg, prepared=p)
        return _result(store)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return blocking()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = blocking()
        except BaseException as e:  # handed to the caller's thread as is
            box["error"] = e

    t = threading.Thread(target=work, name="longview-run")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["result"]
