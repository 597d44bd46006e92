"""`longview rescore RUN --judge-model M`: the run's judges again, over what its cells stored.

The agent is never called. A new run folder is made beside the old one (its traces, prompts and
usage copied, never linked): every finished cell's result is re-judged by the suite
(``Suite.rejudge``, for the roles it declares in ``rejudged_roles``), the manifest records the
run it came from, the roles re-judged and the components that judged before, and the new folder
is scored like any run. The original run and its scorecard are left as they were.
"""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from longview.harness import registry
from longview.harness.plan import load_run_dataset, suite_options
from longview.harness.roles import Roles
from longview.harness.runstore import CELLS, MARKER, RunStore, atomic_write, config_hash, read_run_file, safe_name
from longview.harness.scorecard import Scorecard
from longview.kernel.errors import CellAborted, ConfigError, LongviewError, RunFolderError
from longview.kernel.models import GenParams, aclose_all
from longview.kernel.models.usage import add_summaries

SKIPPED = ("scorecard.json", "*.html", ".longview-files")  # what the new folder makes for itself


class RescoreFailed(LongviewError):
    """A judge failed for good on one cell (after its retries, or refused to send its input): the
    rescore stops with the reason, exit 1, and leaves no folder."""

    exit_code = 1


def default_out(run: Path, role_models: dict[str, str]) -> Path:
    tag = "-".join(safe_name(m) for m in role_models.values())
    return run.parent / f"{run.name}-rescored-{tag}"


async def arescore(run: Path, role_models: dict[str, str], *, out: Path | None = None, force: bool = False,
                   params: dict[str, GenParams] | None = None, api_base: str | None = None, no_cache: bool = False,
                   max_attempts: int = 6, request_timeout: float | None = None,
                   max_concurrency: int = 8) -> tuple[Path, Scorecard]:
    """Re-judge ``run`` with ``role_models`` into ``out``; returns the new folder and its scorecard."""
    from longview.harness.run import score

    source = RunStore(run)
    manifest = source.manifest()
    suite = registry.load(manifest.suite)
    wrong = sorted(set(role_models) - set(suite.rejudged_roles))
    if not role_models or wrong:
        can = ", ".join(suite.rejudged_roles) or "none (its judges act during the sessions)"
        raise ConfigError(f"suite {suite.name} can re-judge: {can}; asked for {', '.join(wrong) or 'nothing'}")
    options = suite_options(suite, manifest.config.get("options", {}))
    dataset = load_run_dataset(suite, manifest, source.manifest_path, options)
    roles = Roles(role_models, params or {}, api_base=api_base, no_cache=no_cache, max_attempts=max_attempts,
                  seed=manifest.config.get("seed", 0), request_timeout=request_timeout)
    roles.validate()
    finished = source.finished()
    if not finished:
        raise ConfigError(f"{run}: no finished cell to re-judge")
    target = out or default_out(run, role_models)
    _prepare(run, target, force)
    gate = asyncio.Semaphore(max_concurrency)

    async def one(folder: str, text: str) -> None:
        async with gate:
            try:
                new = await suite.rejudge(text, dataset, options, roles,
                                          lambda name: read_run_file(run / CELLS / folder / name, run, f"<cell {folder}>"))
            except ValidationError as e:  # a forged or damaged marker: one message naming it, not pydantic's dump
                raise RunFolderError.from_error(str(run / CELLS / folder / MARKER), f"<cell {folder}>",
                                                e.errors()[0]["loc"], e.errors()[0]) from None
            except CellAborted as e:  # a judge that failed for good: a run would abort the cell; a rescore stops
                raise RescoreFailed(f"cell {folder}: {e.reason}; nothing was written, rescore again") from None
        atomic_write(target / CELLS / folder / MARKER, new)

    tasks = [asyncio.ensure_future(one(f, t)) for f, t in finished]
    try:
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:  # one cell refused (inputs not kept) or failed: the others stop too
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await aclose_all()
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)  # nothing half-written: the copy is ours, made above
        raise
    names = suite.component_names(suite.components(roles, options))
    replaced = [c for r in role_models for c in suite.rejudged_components.get(r, (r,))]
    gone = {c for c in replaced if c not in names}  # a part no judge given plays now (tempo's second judge)
    config = dict(manifest.config)
    config["models"] = {k: m for k, m in {**config.get("models", {}), **role_models}.items()
                        if k in role_models or k not in gone}
    config["rescored"] = {
        "from": str(run.resolve()), "roles": role_models, "config_hash": manifest.config_hash,
        "components_before": {c: manifest.components.get(c) for c in replaced},
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    components = {**manifest.components, **{c: names[c] for c in replaced if c in names}}
    new = manifest.model_copy(update={
        "config": config, "config_hash": config_hash(config),
        "components": {c: v for c, v in components.items() if c not in gone},
        "usage": add_summaries(manifest.usage, roles.ledger.summary().model_dump()),
    })
    store = RunStore(target)
    store.write_manifest(new)
    return target, score(store)


def _prepare(run: Path, target: Path, force: bool) -> None:
    """A copy of ``run`` at ``target`` without what scoring writes; an existing folder is replaced
    only with ``force`` and only when it is a rescore of a run (never any other folder)."""
    if target.resolve() == run.resolve():
        raise ConfigError(f"--out {target}: is the run itself; the original is kept, choose another folder")
    if target.exists():
        if not force:
            raise ConfigError(f"--out {target}: exists; pass --force to replace an earlier rescore")
        try:
            previous = RunStore(target).manifest()
        except Exception:  # noqa: BLE001 - anything unreadable is not ours to delete
            previous = None
        if previous is None or "rescored" not in previous.config:
            raise ConfigError(f"--out {target}: exists and is not a rescored run; longview does not delete it")
        shutil.rmtree(target)
    shutil.copytree(run, target, symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED))
