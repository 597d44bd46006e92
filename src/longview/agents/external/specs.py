"""``--agent`` values for agents longview did not write, resolved to a per-cell factory and an identity.

    module:attr          a Python factory (class or function, called once per cell) or Agent object
    NAME                 an agent registered under the ``longview.agents`` entry-point group
    cmd:COMMAND ARGS     a process speaking the JSON-lines protocol of docs/agents.md (:mod:`.stdio`)
    mcp:COMMAND ARGS     an MCP-capable harness running its own loop, served over HTTP (:mod:`.mcp`)
    mcp+stdio:COMMAND    the same, speaking MCP on its own stdin/stdout

The identity (what the agent is: its spec, version, the hash of its source or of the files its
command names) goes into the run's config, so its hash, the default run folder and ``--resume``
tell one agent from another.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, cast

from longview.kernel.agent import Agent
from longview.kernel.errors import CellAborted, ConfigError, printable

GROUP = "longview.agents"
COMMAND_PREFIXES = ("cmd:", "mcp:", "mcp+stdio:")
_HASHED_FILE_LIMIT = 16 * 1024 * 1024  # files a command names are hashed into its identity up to this size


@dataclass
class ExternalAgent:
    """One agent under test that is not a reference agent or a model string."""

    name: str  # the cell's agent label (row of the scorecard)
    kind: str  # python, entry_point, object, command, mcp
    identity: dict[str, Any]  # recorded in the run's config
    make: Callable[[Any], Agent]  # the cell (agent, variant, unit, trial) -> a fresh agent for it
    in_process: bool = False  # an object handed to longview.run: cannot be rebuilt in another process
    model: str | None = None  # --model paired with a command agent: its calls go through longview's endpoint

    @property
    def shared(self) -> bool:
        """One object serves every cell (it was given as an agent, not as a factory): nobody closes it."""
        return getattr(self.make, "shared", False)


def registered() -> dict[str, EntryPoint]:
    """Agents registered under ``longview.agents`` (name -> entry point; nothing imported)."""
    return {ep.name: ep for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name)}


def is_external(spec: str) -> bool:
    """Whether an ``--agent`` value names an agent of this module (not ``ref:...`` or ``reference``)."""
    if spec.startswith(COMMAND_PREFIXES):
        return True
    if spec.startswith("ref:") or spec == "reference":
        return False
    return ":" in spec or spec in registered()


def resolve(spec: str, *, timeout: float, process: str = "session") -> ExternalAgent:
    """The external agent an ``--agent`` value names; ConfigError (nothing written yet) if it cannot be had.
    ``process``: a ``cmd:`` agent's process lives per ``session`` or per ``cell`` (``--agent-process``)."""
    if spec.startswith("cmd:"):
        from longview.agents.external.stdio import CommandAgent

        argv = _argv(spec, "cmd:")
        # Per cell is another protocol (the process may carry state across sessions): another run.
        ident = {"kind": "command", **command_identity(argv), **({"process": "cell"} if process == "cell" else {})}
        return ExternalAgent(spec, "command", ident,
                             lambda cell: CommandAgent(argv, name=spec, timeout=timeout, per_cell=process == "cell"))
    if spec.startswith(("mcp:", "mcp+stdio:")):
        from longview.agents.external.mcp import MCPHarnessAgent, check_placeholders

        prefix, _, _ = spec.partition(":")
        transport = "stdio" if prefix == "mcp+stdio" else "http"
        argv = _argv(spec, prefix + ":")
        check_placeholders(argv, transport)
        MCPHarnessAgent.check_available(prefix)
        kind = "mcp" if transport == "http" else "mcp+stdio"
        return ExternalAgent(spec, kind, {"kind": kind, **command_identity(argv)},
                             lambda cell: MCPHarnessAgent(argv, name=spec, timeout=timeout, transport=transport))
    eps = registered()
    if spec in eps:
        ep = eps[spec]
        try:
            target = ep.load()
        except Exception as e:  # a plugin's import error names the plugin, never a traceback
            raise ConfigError(f"--agent {spec}: registered agent ({ep.value}) failed to load: "
                              f"{type(e).__name__}: {printable(e, 300)}") from None
        dist = getattr(ep, "dist", None)
        ident = {"kind": "entry_point", "value": ep.value, **source_identity(target),
                 **({"distribution": f"{dist.name} {dist.version}"} if dist is not None else {})}
        return ExternalAgent(spec, "entry_point", ident, factory_of(target, f"--agent {spec}"))
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"--agent {spec!r}: expected ref:NAME, module:attr, cmd:COMMAND, mcp:COMMAND, "
                          "mcp+stdio:COMMAND or an agent "
                          f"registered under '{GROUP}' ({', '.join(eps) or 'none registered'})")
    target = _import(module, attr, spec)
    return ExternalAgent(spec, "python", {"kind": "python", "spec": spec, **source_identity(target)},
                         factory_of(target, f"--agent {spec}"))


def paired_name(spec: str, model: str) -> str:
    """The row label of a command agent run with a model (one row per --agent x --model)."""
    return f"{spec} @ {model}"


def with_model(ext: ExternalAgent, model: str) -> ExternalAgent:
    """A command agent (cmd:, mcp:) whose model calls go to ``model`` through longview's endpoint."""
    return ExternalAgent(paired_name(ext.name, model), ext.kind, {**ext.identity, "model": model}, ext.make,
                         model=model)


def from_object(obj: Any, name: str | None = None) -> ExternalAgent:
    """An agent object, class or factory handed to ``longview.run`` (lives in this process only)."""
    label = name or _label(obj)
    if not label or "\n" in label:
        raise ConfigError(f"agent {obj!r:.80}: needs a one-line name (give it a `name` attribute or pass name=...)")
    where = type(obj) if not (inspect.isclass(obj) or inspect.isfunction(obj)) else obj
    ident = {"kind": "object", "class": f"{getattr(where, '__module__', '?')}.{getattr(where, '__qualname__', '?')}",
             **source_identity(obj)}
    return ExternalAgent(label, "object", ident, factory_of(obj, f"agent {label}"), in_process=True)


def _label(obj: Any) -> str:
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name.strip():
        return name.strip()
    return getattr(obj, "__qualname__", None) or type(obj).__qualname__


def _argv(spec: str, prefix: str) -> list[str]:
    try:
        argv = shlex.split(spec[len(prefix):])
    except ValueError as e:
        raise ConfigError(f"--agent {spec!r}: cannot split the command ({e})") from None
    if not argv:
        raise ConfigError(f"--agent {spec!r}: expected a command after '{prefix}'")
    return argv


def _import(module: str, attr: str, spec: str) -> Any:
    # As `python -m` would: the current folder is importable (an agent file beside the user's data).
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        mod = importlib.import_module(module)
    except Exception as e:
        raise ConfigError(f"--agent {spec}: cannot import module '{module}': {type(e).__name__}: "
                          f"{printable(e, 300)}") from None
    target: Any = mod
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ConfigError(f"--agent {spec}: module '{module}' has no attribute '{attr}'")
        target = getattr(target, part)
    return target


def _required_positional(f: Callable[..., Any]) -> int | None:
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in sig.parameters.values() if p.kind in kinds and p.default is p.empty)


def factory_of(target: Any, what: str) -> Callable[[Any], Agent]:
    """A per-cell factory: a class or function is called for every cell (with the cell if it takes
    one argument); an object that already is an agent is shared by every cell."""
    if inspect.isclass(target) or inspect.isfunction(target) or inspect.ismethod(target):
        n = _required_positional(target)
        call: Callable[..., Any] = target
        if n not in (0, 1):
            raise ConfigError(f"{what}: a factory takes no argument or one (the cell); {target!r:.80} takes {n}")

        def make(cell: Any) -> Agent:
            try:
                agent = call(cell) if n == 1 else call()
            except Exception as e:  # the user's factory: the cell aborts with the reason, no traceback
                return Unavailable(what, f"the factory failed: {type(e).__name__}: {printable(e, 200)}")
            if not _looks_like_agent(agent):
                return Unavailable(what, f"the factory returned {type(agent).__name__}, not an agent (expected a "
                                         "`name` string and an async `act(observation)` method)")
            return cast(Agent, agent)

        return make
    if _looks_like_agent(target):
        def same(cell: Any) -> Agent:
            return target

        same.shared = True  # type: ignore[attr-defined]
        return same
    raise ConfigError(f"{what}: {target!r:.80} is neither an agent (a `name` and an async `act(observation)`) "
                      "nor a class or function that makes one")


def _looks_like_agent(obj: Any) -> bool:
    return isinstance(getattr(obj, "name", None), str) and inspect.iscoroutinefunction(getattr(obj, "act", None))


class Unavailable:
    """Stands for an agent whose factory failed: its first turn aborts the cell (through the suite's
    own abort path, so the cell's result has the suite's shape) with the reason."""

    def __init__(self, name: str, reason: str) -> None:
        self.name, self.reason = name, reason

    async def act(self, obs: Any) -> Any:
        raise CellAborted(f"{self.name}: {self.reason}")


def source_identity(obj: Any) -> dict[str, Any]:
    """What tells two versions of a Python agent apart: its ``version`` attribute if it has one,
    else the sha256 of the file that defines it."""
    version = getattr(obj, "version", None)
    if isinstance(version, str | int | float) and not isinstance(version, bool):
        return {"version": str(version)}
    where = obj if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj) else type(obj)
    try:
        source = inspect.getsourcefile(where)
    except TypeError:
        source = None
    return {"source_sha256": _file_sha256(Path(source))} if source and Path(source).is_file() else {}


def command_identity(argv: list[str]) -> dict[str, Any]:
    """A command's identity: the command line and the sha256 of every file it names (a script, a config)."""
    files = {}
    for token in argv[1:]:
        for cand in (token, token.partition("=")[2]):
            p = Path(cand) if cand else None
            if p is not None and "{" not in cand and p.is_file() and p.stat().st_size <= _HASHED_FILE_LIMIT:
                files[cand] = _file_sha256(p)
    return {"command": argv, **({"files_sha256": files} if files else {})}


@cache
def _cached_sha256(path: str, mtime: float, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _file_sha256(path: Path) -> str:
    st = path.stat()
    return _cached_sha256(str(path.resolve()), st.st_mtime, st.st_size)
