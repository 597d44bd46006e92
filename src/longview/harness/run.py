"""One run of any suite: load and validate the dataset → plan cells → validate models → manifest →
run store → run the unfinished cells (sessions bounded across the run) → usage into the manifest
→ score → scorecard JSON. Nothing is written before the dataset and the models are validated.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from longview.harness import registry
from longview.harness.cell import Cell, CellOutcomes, Dataset
from longview.harness.executor import EXECUTORS, Executor, LocalExecutor
from longview.harness.flight import order_key
from longview.harness.harnesses import recorded, with_harnesses
from longview.harness.options import RunConfig
from longview.harness.plan import (  # noqa: F401 - the run API in one place
    REFERENCE,
    AbortedCell,
    Prepared,
    agents_of,
    check_units,
    default_out,
    load_dataset,
    load_run_dataset,
    make_agent,
    plan,
    prepare,
    roles_of,
    suite_options,
)
from longview.harness.runstore import OUTCOMES, SCORECARD, Manifest, RunStore, atomic_write, config_hash
from longview.harness.scorecard import Scorecard, as_planned, with_models
from longview.harness.suite import AnySuite
from longview.kernel.errors import ConfigError
from longview.kernel.models.usage import add_summaries


def executor_for(cfg: RunConfig) -> Executor:
    """The executor a run config asks for (``--executor``)."""
    if cfg.executor == "local":
        if cfg.ray_address:
            raise ConfigError("--ray-address needs --executor ray")
        if cfg.workers > 1:
            from longview.harness.process_executor import ProcessExecutor

            return ProcessExecutor(cfg.workers)
        return LocalExecutor()
    if cfg.executor == "ray":
        if cfg.workers > 1:
            raise ConfigError("--workers is for the local executor; a Ray cluster has one worker per CPU")
        try:
            from longview.harness.ray_executor import RayExecutor
        except ImportError as e:
            raise ConfigError(f"--executor ray needs Ray: pip install 'longview[ray]' ({e})") from None
        return RayExecutor(address=cfg.ray_address)
    raise ConfigError(f"unknown executor '{cfg.executor}'; expected one of {', '.join(EXECUTORS)}")


def run(
    cfg: RunConfig,
    *,
    on_start: Callable[[int, int], None] = lambda cells, sessions: None,
    on_session: Callable[[], None] = lambda: None,
    on_cell: Callable[[Cell, BaseModel], None] = lambda c, r: None,
    prepared: Prepared | None = None,
    executor: Executor | None = None,
) -> tuple[RunStore, Scorecard]:
    """Plan, run the unfinished cells (on ``executor``, by default the one ``cfg.executor`` names),
    score, and write the scorecard into the run directory."""
    r = _Running(cfg, prepared, executor, on_start)
    try:
        asyncio.run(r.executor.run_cells(r.p, r.store, r.todo, on_session, on_cell))
    finally:
        r.finish()
    return r.store, score(r.store, r.p.suite, r.p.dataset, r.p.options)


async def arun(
    cfg: RunConfig,
    *,
    on_start: Callable[[int, int], None] = lambda cells, sessions: None,
    on_session: Callable[[], None] = lambda: None,
    on_cell: Callable[[Cell, BaseModel], None] = lambda c, r: None,
    prepared: Prepared | None = None,
    executor: Executor | None = None,
) -> tuple[RunStore, Any]:
    """:func:`run` on the running event loop (a notebook's kernel, an async application)."""
    r = _Running(cfg, prepared, executor, on_start)
    try:
        await r.executor.run_cells(r.p, r.store, r.todo, on_session, on_cell)
    finally:
        r.finish()
    return r.store, score(r.store, r.p.suite, r.p.dataset, r.p.options)


class _Running:
    """A run between opening its store and writing its final usage: what :func:`run` and
    :func:`arun` share around the executor's loop."""

    def __init__(self, cfg: RunConfig, prepared: Prepared | None, executor: Executor | None,
                 on_start: Callable[[int, int], None]) -> None:
        self.p = p = prepared or prepare(cfg)
        self.executor = executor = executor or executor_for(cfg)
        executor.connect(p)  # e.g. join the Ray cluster: a wrong address fails before anything is written
        # The default folder is named by the config hash, so finding it means the same run: continue it.
        self.store = store = RunStore(cfg.out or default_out(p.manifest))
        try:
            store.open(p.manifest, resume=cfg.resume or cfg.out is None, force=cfg.force)
        except BaseException:
            executor.stop()
            raise
        self.previous_usage = store.previous_usage  # from the usage journal: killed invocations count too
        p.reported.update(recorded(p, store))  # a resume holds its new cells to the harness that ran the old
        p.roles.ledger.journal = store.journal_usage
        sessions = {c: p.suite.sessions(c, p.dataset, p.options) for c in p.cells}
        # Longest cells first (flight.order_key): the sweep's tail is then made of short cells.
        # Aborted cells are not results: a resume tries them again (after an outage, say).
        retry = {key for key, _ in outcome(store).aborted}
        self.todo = sorted((c for c in p.cells if c.key in retry or not store.is_done(c.key)),
                           key=lambda c: order_key(p, c))
        # Everything alive now (modules, dataset, schemas) lives to the end of the run: the cyclic
        # collector need not walk it again and again (measured: ~2% of a fresh reference run's CPU,
        # ~13% in a process that holds more; at 256 concurrent model sessions its full collections fell
        # from 0.23 to 0.09 s), and forked workers share those pages instead of copying them.
        self.caller_froze = gc.get_freeze_count() > 0  # then leave the permanent generation as the caller made it
        gc.freeze()
        try:
            p.manifest.executor = executor.start(p, store)
            p.manifest.usage = self.previous_usage  # on record even if the driver is killed before the end
            store.write_manifest(p.manifest)
            on_start(len(self.todo), sum(sessions[c] for c in self.todo))
        except BaseException:
            self.finish()
            raise

    def finish(self) -> None:
        """Usage goes into the manifest even if the run stops early; resumes add up."""
        p, store = self.p, self.store
        try:
            p.manifest.usage = add_summaries(self.previous_usage, self.executor.usage(p))
            p.manifest.harnesses = dict(sorted(p.reported.items()))
            store.write_manifest(p.manifest)
            store.close_journal()
        finally:
            self.executor.stop()
            if not self.caller_froze:
                gc.unfreeze()


@dataclass
class Scored:
    """A run folder scored: the suite's scorecard and each finished cell's session outcomes."""

    suite: AnySuite
    scorecard: Scorecard
    outcomes: dict[str, CellOutcomes]  # cell folder -> its sessions' outcomes
    manifest: Manifest


def score_folder(store: RunStore, suite: AnySuite | None = None, dataset: Dataset | None = None,
                 options: BaseModel | None = None) -> Scored:
    """Score every finished cell of a run directory, writing nothing."""
    manifest = store.manifest()
    suite = suite or registry.load(manifest.suite)
    if options is None:
        options = suite_options(suite, manifest.config.get("options", {}))
    if dataset is None:  # from the manifest, which is data: nothing of a file not the run's is quoted
        dataset = load_run_dataset(suite, manifest, store.manifest_path, options, strict=False)
    elif dataset.sha256 != manifest.dataset.sha256:
        raise ConfigError(
            f"{store.root}: dataset '{manifest.dataset.load_spec()}' changed since the run (sha256 "
            f"{manifest.dataset.sha256[:12]} -> {dataset.sha256[:12]})"
        )
    finished = store.finished()
    sc = as_planned(suite.score([text for _, text in finished], dataset, options, manifest.config.get("seed", 0)),
                    manifest.units)
    sc = with_models(sc, manifest.config)  # the model behind each row: the harness knows it, not the suite
    sc = with_harnesses(sc, manifest)  # and what an external agent is, for the terminal tables too
    outcomes = {folder: cell_outcomes(suite, text, dataset) for folder, text in finished}
    return Scored(suite, sc, outcomes, manifest)


def cell_outcomes(suite: AnySuite, result: str, dataset: Dataset) -> CellOutcomes:
    """The suite's verdict on each session of one cell; a hook that fails is recorded, not raised
    (the scorecard must not be lost to a report hook)."""
    try:
        return CellOutcomes(sessions=suite.session_outcomes(result, dataset))
    except Exception as e:  # noqa: BLE001 (any suite error: said in the report, the run goes on)
        return CellOutcomes(error=f"{type(e).__name__}: {' '.join(str(e).split())[:300]}")


def score(store: RunStore, suite: AnySuite | None = None, dataset: Dataset | None = None,
          options: BaseModel | None = None) -> Scorecard:
    """Score every finished cell of a run directory; write each cell's session outcomes
    (``outcomes.json``), then ``scorecard.json``, so a report reads them and scores nothing."""
    scored = score_folder(store, suite, dataset, options)
    for folder, o in scored.outcomes.items():
        store.write_cell_file(folder, OUTCOMES, o.model_dump_json(indent=1))
    store.write_json(SCORECARD, scorecard_json(scored.scorecard, scored.manifest, scored.suite, outcome(store)))
    return scored.scorecard


@dataclass
class Outcome:
    """How complete a run folder is: planned cells, finished ones, aborts and damage found."""

    planned: int
    finished: int
    aborted: list[tuple[str, str]]  # (cell, reason)
    notes: dict[str, str]  # damaged files -> what was done about them

    @property
    def partial(self) -> bool:
        return self.finished < self.planned


def outcome(store: RunStore) -> Outcome:
    """Compare the manifest's planned cells with the completion markers on disk."""
    manifest = store.manifest()
    keys = manifest.config.get("cells") or []
    finished, aborted = 0, []
    for key in keys if isinstance(keys, list) else []:
        if not isinstance(key, str) or not store.is_done(key):
            continue
        finished += 1
        try:
            data = json.loads((store.cell_dir(key) / "result.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("status") == "aborted":
            aborted.append((key, str(data.get("abort_reason") or "no reason recorded")))
    return Outcome(planned=len(keys) if isinstance(keys, list) else 0, finished=finished, aborted=aborted,
                   notes=dict(store.notes))


def check_output_file(path: Path, flag: str, run_dir: Path | None = None) -> None:
    """An output file named by ``flag`` (``--json``, ``-o``) can be written, and is not inside the
    run folder: checked before anything is computed or written, so a bad path costs nothing. The
    folder is probed by creating (and removing) a file there: permission bits do not tell root
    that /sys or a read-only mount refuses it."""
    if path.exists() and not path.is_file():
        raise ConfigError(f"{flag} {path}: is a folder (or not a regular file); expected a file path")
    parent = path.parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise ConfigError(f"{flag} {path}: folder {parent} {what}")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ConfigError(f"{flag} {path}: cannot write in folder {parent} ({e.strerror or e})") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise ConfigError(f"{flag} {path}: file is not writable")
    if run_dir is not None:
        real, root = path.resolve(), run_dir.resolve()
        if real == root or real.is_relative_to(root):
            raise ConfigError(f"{flag} {path}: inside the run folder {run_dir}, which holds only what longview "
                              "writes there (it has scorecard.json already); choose a path outside it")


def check_output_folder(out: Path, force: bool) -> None:
    """A folder a command writes generated files into: a folder or creatable, and empty unless
    ``force`` (a generator never mixes its files into someone else's)."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: exists and is not a folder")
    if not out.exists() and any(p.exists() and not p.is_dir() for p in out.parents):
        raise ConfigError(f"{out}: cannot create the folder (a parent is a file)")
    if out.exists() and any(out.iterdir()) and not force:
        raise ConfigError(f"{out}: folder is not empty; pass --force to write into it")


def scorecard_json(sc: Scorecard, manifest: Manifest, suite: AnySuite | None = None,
                   done: Outcome | None = None) -> dict[str, Any]:
    """The suite's scorecard in the common shape, plus what makes it comparable: versions, config
    hash, seed, components, prompt hashes."""
    data = with_harnesses(sc, manifest).to_json_dict()  # an external agent's row says what it is
    for name, info in sc.metrics.items():  # judged by roles: name the components that played them
        if info.roles and not info.by:
            data["metrics"][name]["by"] = " + ".join(manifest.components.get(r, "?") for r in info.roles)
    if suite is not None and (notes := suite.notes(sc, manifest.components)):
        data["notes"] = notes
    data["run"] = {
        "package_version": manifest.package_version,
        "git_commit": manifest.git_commit,
        "config_hash": manifest.config_hash,
        "seed": manifest.config.get("seed"),
        "components": manifest.components,
        "prompts_sha256": config_hash(manifest.prompts),
    }
    if manifest.usage.get("roles"):  # model calls (agents' and harnesses' through longview's endpoint too)
        data["run"]["usage"] = manifest.usage
    if done is not None:  # a partial or aborted run says so in its scorecard, not only on screen
        data["run"]["cells"] = {"planned": done.planned, "finished": done.finished, "aborted": len(done.aborted),
                                "partial": done.partial}
    return data


def write_json(sc: Scorecard, path: Path, manifest: Manifest, suite: AnySuite | None = None,
               done: Outcome | None = None) -> None:
    atomic_write(path, json.dumps(scorecard_json(sc, manifest, suite, done), indent=2), make_parents=False)
