"""What each external agent of a run is, as the run learns it: the name and version its processes
reported (a ``cmd:`` hello, an MCP ``clientInfo``; :mod:`longview.agents.external.reported`), kept
per cell in ``cells/<cell>/agent.json`` and per run in the manifest's ``harnesses``, and the
harness line of each scorecard row (``row["harness"]``), which the report and ``compare`` show.

Every executor leaves a cell's marker to the driver; :func:`settle` runs there first: a cell whose
harness reported another name or version than the run's earlier cells becomes an aborted cell with
the reason (a resume under another version of the harness is refused cell by cell, since a process
is started only for a session and says what it is only then).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from longview.agents.external.reported import label, mismatch
from longview.harness.cell import Cell

if TYPE_CHECKING:
    from longview.harness.plan import Prepared
    from longview.harness.runstore import Manifest, RunStore
    from longview.harness.scorecard import Scorecard

AGENT_FILE = "agent.json"  # in a cell folder: {"name", "version"} its external agent reported


def keep(agent: Any, folder: Path) -> None:
    """Write what the cell's agent reported about itself, if anything, into its folder."""
    reported = getattr(agent, "reported", None)
    if isinstance(reported, dict):
        (folder / AGENT_FILE).write_text(json.dumps(reported), encoding="utf-8")


def _read(folder: Path) -> dict[str, str] | None:
    try:
        data = json.loads((folder / AGENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(data, dict) and all(isinstance(data.get(k), str) for k in ("name", "version")):
        return {"name": data["name"], "version": data["version"]}
    return None


def _aborted(folder: Path) -> bool:
    try:
        return bool(json.loads((folder / "result.json").read_text(encoding="utf-8")).get("status") == "aborted")
    except (OSError, ValueError, RecursionError, AttributeError):
        return True  # unreadable: not a record to hold others to


def recorded(p: Prepared, store: RunStore) -> dict[str, dict[str, str]]:
    """What the run's finished (not aborted) cells' harnesses reported, per agent label (a resume
    holds new cells to it)."""
    out: dict[str, dict[str, str]] = {}
    for cell in p.cells:
        if cell.agent in p.external and cell.agent not in out and store.is_done(cell.key):
            folder = store.cell_dir(cell.key)
            if not _aborted(folder) and (ident := _read(folder)) is not None:
                out[cell.agent] = ident
    return out


def settle(p: Prepared, store: RunStore, cell: Cell, result: BaseModel) -> BaseModel:
    """The marker the driver writes for a finished cell: ``result``, or an aborted cell when its
    harness is not the one the run's other cells ran (the first one to finish sets it)."""
    from longview.harness.plan import AbortedCell

    if cell.agent not in p.external or getattr(result, "status", "complete") == "aborted":
        return result
    ident = _read(store.cell_dir(cell.key))
    if ident is None:
        return result
    want = p.reported.setdefault(cell.agent, ident)
    if want == ident:
        return result
    return AbortedCell(agent=cell.agent, variant=cell.variant, unit=cell.unit, trial=cell.trial,
                       abort_reason=f"{cell.agent}: " + mismatch("its harness", ident, want))


def row_harness(manifest: Manifest, agent: str) -> dict[str, str] | None:
    """The harness line of a scorecard row: kind (python, entry_point, object, command, mcp,
    mcp+stdio), name, version when known, and the model its calls went to; None for reference
    agents and models."""
    ident = (manifest.config.get("external_agents") or {}).get(agent)
    if not isinstance(ident, dict):
        return None
    out: dict[str, str] = {"kind": str(ident.get("kind", "?"))}
    reported = (manifest.harnesses or {}).get(agent)
    if isinstance(reported, dict) and reported.get("name"):
        out["name"], out["version"] = str(reported["name"]), str(reported.get("version") or "")
    elif isinstance(ident.get("distribution"), str):  # a registered agent: its package
        name, _, version = ident["distribution"].partition(" ")
        out["name"], out["version"] = name, version
    elif isinstance(ident.get("command"), list) and ident["command"]:
        out["name"] = _command_name(ident["command"])
    else:
        out["name"] = str(ident.get("spec") or ident.get("class") or agent)
    if "version" not in out and isinstance(ident.get("version"), str):
        out["version"] = ident["version"]
    if isinstance(ident.get("model"), str):
        out["model"] = ident["model"]
    return out


def with_harnesses(sc: Scorecard, manifest: Manifest) -> Scorecard:
    """``sc`` with every external agent's row carrying its harness line (the terminal tables print
    it under the agent, the JSON keeps it)."""
    return sc.model_copy(update={"rows": [r.model_copy(update={"harness": row_harness(manifest, r.agent)})
                                          for r in sc.rows]})


def _command_name(argv: list[str]) -> str:
    """A command's name: its script when an interpreter runs one (python my_agent.py -> my_agent.py)."""
    first = Path(str(argv[0])).name
    if first.startswith(("python", "node", "uv", "bash", "sh")) and len(argv) > 1:
        script = next((a for a in argv[1:] if not str(a).startswith("-")), None)
        if script:
            return Path(str(script)).name
    return first


def describe(h: dict[str, str]) -> str:
    """One line: 'test-harness 0.3.1 (mcp+stdio) @ openai/gpt-5.4'."""
    text = f"{label(h)} ({h.get('kind', '?')})"
    return text + (f" @ {h['model']}" if h.get("model") else "")


_LAUNCH = {
    "command": "starts `{cmd}` once per session (JSON lines on its stdin/stdout)",
    "command/cell": "starts `{cmd}` once per cell (--agent-process cell; JSON lines on its stdin/stdout)",
    "mcp": "starts `{cmd}` once per session, serving the session's tools over MCP (streamable HTTP on 127.0.0.1)",
    "mcp+stdio": "starts `{cmd}` once per session, speaking MCP with it on its stdin/stdout",
}


def launch_lines(p: Prepared) -> list[str]:
    """--dry-run: what each external agent of the plan will run, how often, and where its model
    calls go (priced only when they go through longview's endpoint)."""
    out = []
    for label_, ext in sorted(p.external.items()):
        cells = [c for c in p.cells if c.agent == label_]
        if not cells:
            continue
        sessions = sum(p.suite.sessions(c, p.dataset, p.options) for c in cells)
        kind = ext.kind + ("/cell" if ext.identity.get("process") == "cell" else "")
        if kind in _LAUNCH:
            cmd = " ".join(ext.identity.get("command") or [label_])
            what = _LAUNCH[kind].format(cmd=cmd)
            processes = len(cells) if kind == "command/cell" else sessions
            what += f": ~{processes} process{'es' if processes != 1 else ''} over {len(cells)} cell(s)"
        else:
            what = f"calls {label_} in this process for every turn ({len(cells)} cell(s), ~{sessions} sessions)"
        if ext.model is not None:
            what += (f"; its model calls go to {ext.model} through longview's loopback endpoint (counted, cached, "
                     "limited; priced above as one call per turn)")
        else:
            what += "; longview calls no model for it (whatever model it calls itself is neither counted nor priced)"
        out.append(f"{label_}: {what}")
    return out

