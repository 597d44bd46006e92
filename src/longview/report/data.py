"""Everything a report reads from run directories: the scorecard (common shape), the manifest, the
cells' completion markers and every session trace, plus what the suite (when installed) adds.

A report never needs the suite: a run directory alone gives the scorecard, run identity, usage,
aborted cells, every transcript and each session's outcome (pass/fail, buckets: stored when the run
was scored). When the suite is installed, it adds its summary and extra sections (its
``report_sections``); nothing is scored again, except a partial run that has no scorecard yet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longview.harness.cell import CellOutcomes
from longview.harness.runstore import MARKER, OUTCOMES, SCORECARD, RunStore, read_run_file
from longview.harness.scorecard import fill_models_json, upgrade_json
from longview.harness.suite import AnySuite
from longview.kernel.errors import DataError, LongviewError, RunFolderError
from longview.kernel.trace import PROMPTS

if TYPE_CHECKING:
    from longview.harness.run import Scored



@dataclass
class Session:
    """One session transcript of a run, indexed for the trace viewer."""

    cell: str
    sid: str
    agent: str
    variant: str
    unit: str
    phase: str
    turns: int
    end: str
    tools: list[str]
    first: str
    start: str
    stop: str
    outcome: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    reason: str = ""


@dataclass
class CellInfo:
    name: str
    agent: str
    variant: str
    unit: str
    trial: int
    status: str
    abort_reason: str | None


@dataclass
class RunData:
    """One run directory, loaded."""

    path: Path
    label: str
    manifest: dict[str, Any]
    scorecard: dict[str, Any]
    suite: AnySuite | None
    cells: dict[str, CellInfo]
    sessions: list[Session]
    texts: dict[str, dict[str, str]]  # cell -> session id -> raw JSONL transcript
    notes: list[str] = field(default_factory=list)  # what could not be loaded, said on the report

    @property
    def suite_name(self) -> str:
        return self.scorecard.get("suite") or self.manifest.get("suite", "?")

    def rows(self) -> list[dict[str, Any]]:
        return self.scorecard.get("rows", [])


def per_unit(row: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """A row's unit -> metrics."""
    return row.get("per_unit") or {}


def _read_json(path: Path, root: Path) -> dict[str, Any]:
    text = read_run_file(path, root, "<file>")  # a FIFO, device, loop or link out is one error
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise DataError(str(path), "<file>", "<root>", f"readable JSON ({' '.join(str(e).split())[:120]})") from None
    if not isinstance(data, dict):
        raise DataError(str(path), "<file>", "<root>", "a JSON object")
    return data


def _load_suite(name: str) -> AnySuite | None:
    from longview.harness import registry

    try:
        return registry.load(name)
    except LongviewError:
        return None


def _scorecard(root: Path, manifest: dict[str, Any], suite: AnySuite | None) -> tuple[dict[str, Any], Scored | None]:
    """The run's scorecard.json; a partial run without one is scored here, in memory (nothing is
    written into the run directory), and that scoring is returned for its session outcomes."""
    path = root / SCORECARD
    if path.exists() or path.is_symlink():
        # a run scored before the common shape (or before rows carried their model) reads as a current one
        config = manifest.get("config")
        data = fill_models_json(upgrade_json(_read_json(path, root)), config if isinstance(config, dict) else {})
        for key in ("suite", "rows"):
            if key not in data:
                raise DataError(str(path), "<scorecard>", key, "the common scorecard shape (suite, dataset, metrics, rows)")
        return data, None
    if suite is None:
        raise DataError(str(path), "<file>", "<root>", f"a scorecard (the run has none and suite '{manifest.get('suite')}' is not installed to score it)")
    from longview.harness import run as harness

    scored = harness.score_folder(RunStore(root), suite)
    return harness.scorecard_json(scored.scorecard, scored.manifest, suite), scored


def _cell_info(folder: Path, root: Path) -> CellInfo:
    parts = folder.name.split("__")
    trial = 0
    if len(parts) > 3 and parts[-1].startswith("t") and parts[-1][1:].isdigit():
        trial = int(parts.pop()[1:])
    guess = {"agent": parts[0], "variant": parts[1] if len(parts) > 1 else "", "unit": "__".join(parts[2:])}
    marker = folder / MARKER
    status, reason = "unfinished", None
    if (marker.exists() or marker.is_symlink()) and not (marker.is_dir() and not marker.is_symlink()):
        try:
            res = json.loads(read_run_file(marker, root, "<result>", errors="replace"))
        except (ValueError, RecursionError):
            res = {}
        res = res if isinstance(res, dict) else {}  # a damaged marker: the cell is listed from its name
        status, reason = str(res.get("status", "complete")), res.get("abort_reason")
        guess["agent"] = res.get("agent", guess["agent"])
        guess["variant"] = res.get("variant", guess["variant"])
        guess["unit"] = res.get("unit") or res.get("persona_id") or guess["unit"]
        trial = int(res.get("trial", trial) or 0)
    return CellInfo(name=folder.name, agent=guess["agent"], variant=guess["variant"], unit=guess["unit"], trial=trial,
                    status=status, abort_reason=reason)


def _index(cell: CellInfo, sid: str, text: str) -> Session:
    s = Session(cell=cell.name, sid=sid, agent=cell.agent, variant=cell.variant, unit=cell.unit, phase="", turns=0,
                end="", tools=[], first="", start="", stop="")
    tools: dict[str, None] = {}
    for line in text.splitlines():
        # Tool results are most of a transcript's bytes and add nothing the assistant turn (which
        # names its calls) does not: skip parsing them.
        if not line.strip() or '"type":"tool_call"' in line:
            continue
        try:
            e = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a half-written last line of an interrupted session, or damage
        if not isinstance(e, dict):
            continue
        data = e.get("data")
        d: dict[str, Any] = data if isinstance(data, dict) else {}
        t = e.get("type")
        clock = e.get("clock") or ""
        if clock:
            s.start = s.start or clock
            s.stop = clock
        if t == "session_start":
            s.phase = str(d.get("phase") or "")
        elif t in ("user_message", "activation") and not s.first:
            s.first = str(d.get("text") or "")[:200]
        elif t == "assistant_turn":
            s.turns += 1
            calls = d.get("tool_calls")
            for c in calls if isinstance(calls, list) else []:
                if isinstance(c, dict):
                    tools[str(c.get("name"))] = None
        elif t == "session_end":
            s.end = str(d.get("reason") or "")
    s.tools = list(tools)
    return s


def _read_outcomes(folder: Path, root: Path) -> CellOutcomes | str | None:
    """A cell's stored session outcomes; a problem as text; None when the cell has none stored."""
    path = folder / OUTCOMES
    if not (path.exists() or path.is_symlink()) or (path.is_dir() and not path.is_symlink()):
        return None
    try:
        return CellOutcomes.model_validate_json(read_run_file(path, root, "<outcomes>", errors="replace"))
    except (ValueError, RecursionError) as e:
        return f"{path}: not readable as session outcomes ({type(e).__name__}); left out"


def _outcomes(run: RunData, scored: Scored | None) -> None:
    """Each session's outcome as the run stored it when scored (``cells/*/outcomes.json``), or as a
    partial run was just scored in memory: a report never asks the suite again."""
    by_cell: dict[str, CellOutcomes] = dict(scored.outcomes) if scored is not None else {}
    missing = 0
    for name, cell in run.cells.items():
        if cell.status == "unfinished" or name in by_cell:
            continue
        found = _read_outcomes(run.path / "cells" / name, run.path)
        if isinstance(found, str):
            run.notes.append(found)
        elif found is None:
            missing += 1
        else:
            by_cell[name] = found
    if missing:
        run.notes.append(f"{missing} finished cell(s) have no stored session outcomes (the run was scored by an "
                         "older longview): their sessions are listed without outcomes; `longview show` on the run "
                         "stores them")
    for name, o in by_cell.items():
        if o.error:
            run.notes.append(f"outcomes of cell {name} unavailable: {o.error}")
    for s in run.sessions:
        found_o = by_cell.get(s.cell)
        o_s = found_o.sessions.get(s.sid) if found_o is not None else None
        if o_s is not None:
            s.outcome = o_s.outcome
            s.labels = dict(o_s.labels)
            s.reason = o_s.reason


PROMPTS_KEY = "/prompts"  # a cell's stored prompts, beside its transcripts in the report's data
MAX_PROMPTS = 256  # per cell: a cell's sessions share a few distinct prompts


def _prompts(folder: Path, root: Path, notes: list[str]) -> dict[str, Any]:
    """The system prompts and tool schemas a cell's sessions were given (``prompts/<sha256>.json``)."""
    store = folder / PROMPTS
    if store.is_symlink() or not store.is_dir():
        return {}
    out: dict[str, Any] = {}
    for f in sorted(store.glob("*.json"))[:MAX_PROMPTS]:
        try:
            data = json.loads(read_run_file(f, root, "<prompt>"))
        except (ValueError, RecursionError, LongviewError) as e:
            notes.append(f"{f}: not readable ({' '.join(str(e).split())[:120]}); left out")
            continue
        if isinstance(data, dict):
            out[f.stem] = {"system": data.get("system"), "tools": data.get("tools")}
    return out


def load_run(path: Path, label: str | None = None, *, with_outcomes: bool = True) -> RunData:
    """Read a run directory: manifest, scorecard, cells and every session transcript."""
    root = Path(path)
    if not root.is_dir() or not ((root / "manifest.json").exists() or (root / "manifest.json").is_symlink()):
        raise DataError(str(root), "<run>", "manifest.json", "a run directory written by `longview run`")
    manifest = _read_json(root / "manifest.json", root)
    suite = _load_suite(str(manifest.get("suite")))
    scorecard, scored = _scorecard(root, manifest, suite)
    if scorecard.get("suite") != manifest.get("suite"):  # as show and --resume: an edited or mixed-up run folder
        raise RunFolderError(str(root / "manifest.json"), "<manifest>", "suite",
                             f"the suite its scorecard.json was scored by ({str(scorecard.get('suite'))[:60]!r}), "
                             f"got {str(manifest.get('suite'))[:60]!r}")
    cells: dict[str, CellInfo] = {}
    sessions: list[Session] = []
    texts: dict[str, dict[str, str]] = {}
    notes: list[str] = []
    cells_dir = root / "cells"
    for folder in sorted(cells_dir.glob("*")) if cells_dir.is_dir() else []:
        if folder.is_symlink() or cells_dir.is_symlink():  # the run's own folders only, as show and --resume
            raise RunFolderError(str(folder), "<run folder>", "<cell folder>",
                                 "a folder longview wrote (found a symbolic link); the run folder was tampered with")
        if not folder.is_dir():
            continue
        cell = _cell_info(folder, root)
        cells[cell.name] = cell
        for f in sorted(folder.glob("*.jsonl")):
            if f.is_dir() and not f.is_symlink():  # a folder where a transcript should be: listed as damaged
                notes.append(f"{f}: not readable (a folder); left out")
                continue
            text = read_run_file(f, root, "<transcript>", errors="replace")  # a FIFO would hang the report
            texts.setdefault(cell.name, {})[f.stem] = text
            sessions.append(_index(cell, f.stem, text))
        prompts = _prompts(folder, root, notes)
        if prompts:  # travels with the cell's transcripts; the key cannot be a session id (ids hold no '/')
            texts.setdefault(cell.name, {})[PROMPTS_KEY] = json.dumps(prompts, ensure_ascii=False)
    run = RunData(path=root, label=label or root.name, manifest=manifest, scorecard=scorecard, suite=suite,
                  cells=cells, sessions=sessions, texts=texts)
    run.notes.extend(notes)
    if suite is None:
        run.notes.append(f"suite '{run.suite_name}' is not installed here: the generic view (no suite sections)")
    if with_outcomes:
        _outcomes(run, scored)
    return run


def unique_labels(paths: list[Path]) -> list[str]:
    """Short distinct labels for run directories (their names, parents added when they clash)."""
    labels = [p.resolve().name for p in paths]
    if len(set(labels)) < len(labels):
        labels = [f"{p.resolve().parent.name}/{p.resolve().name}" for p in paths]
    if len(set(labels)) < len(labels):
        labels = [f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
    return labels
