"""``--executor ray``: a run's cells spread over a Ray cluster, with the local executor's run folder,
resume rules, concurrency bound and numbers.

- **Workers.** One async actor per CPU (at most ``--max-concurrency``) rebuilds the run from its
  :class:`RunConfig` (``prepare`` is pure: suite from the registry, dataset, roles, components; the
  dataset hash must match the driver's) and runs the cells the driver sends it, concurrently, on its
  own event loop. A cell is the unit of work: its sessions stay on one worker in the suite's order.
- **Files.** When a worker sees the run folder (a shared filesystem; checked at start with a probe
  file the driver writes) it writes the cell's traces there; otherwise it runs the cell in a
  temporary folder and returns the files with the result. Either way the driver alone writes the
  completion marker, after the traces are in place, so markers, the config hash and ``--resume``
  behave exactly as locally.
- **Failures.** A worker that dies mid-cell leaves no marker; Ray restarts the actor. Once the actor
  answers again, the driver asks whether the failed attempt still runs there (a call that was only
  undeliverable, e.g. sent while the actor was restarting, leaves a live process behind) and kills it
  if so; then it frees the attempt's session slots and sends the cell again (a fresh folder), up to
  ``cell_attempts`` times. A late copy of a given-up attempt refuses to start, so attempts of one
  cell never overlap. A cell's result is accepted once, so nothing is counted twice. An error
  raised by the suite itself is not retried: it stops the run, as locally.
- **Bound.** Sessions in flight are bounded across the cluster by one limiter actor that every
  session acquires (``ctx.session()``), so ``--max-concurrency`` holds globally, never above.
- **Progress and usage.** The limiter counts finished sessions (the driver polls it); each worker
  returns its usage ledger's running summary with every cell and the driver adds them up.
- **Loopback.** A local instance (no ``--ray-address``) listens on 127.0.0.1 only: see
  :func:`start_local_ray`. Joining a cluster is the user's explicit choice (docs/ray.md).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import shutil
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import ray
from ray.exceptions import RayActorError, RayTaskError, WorkerCrashedError

import longview.harness.ray_executor as _this
from longview.harness.cell import Cell
from longview.harness.executor import Executor, OnCell, OnSession, rebuild, run_one
from longview.harness.harnesses import settle
from longview.kernel.errors import ConfigError, LongviewError
from longview.kernel.models.usage import add_summaries

if TYPE_CHECKING:
    from longview.harness.plan import Prepared
    from longview.harness.runstore import RunStore

WORKER_DIED = (RayActorError, WorkerCrashedError)
PROBE = ".ray-probe-"
SESSION = "session"
# The cell attempt the current task works for (reached through this module: Ray pickles actor
# classes by value, and a ContextVar cannot be pickled).
HOLDER: contextvars.ContextVar[str] = contextvars.ContextVar("longview_ray_holder", default="-")


@ray.remote
class Limiter:
    """Slots shared by every worker, per key: ``session`` (``--max-concurrency``) and
    ``provider:NAME`` (``--provider-limit``); at most the key's limit held at once, cluster-wide.

    Slots are held per *holder* (one attempt of one cell), so the driver can give back the slots
    of an attempt whose worker died; a slot granted to a forgotten holder is returned at once.
    """

    def __init__(self, limits: dict[str, int]) -> None:
        self.sems = {k: asyncio.Semaphore(n) for k, n in limits.items()}
        self.held: Counter[tuple[str, str]] = Counter()  # (holder, key) -> slots held
        self.done: Counter[str] = Counter()  # sessions finished, per holder
        self.forgotten: set[str] = set()
        self.in_flight: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        self.completed = 0

    async def acquire(self, holder: str, key: str = SESSION) -> None:
        await self.sems[key].acquire()
        if holder in self.forgotten:  # its attempt is over (worker died, or cell cancelled)
            self.sems[key].release()
            return
        self.held[holder, key] += 1
        self.in_flight[key] += 1
        self.peak[key] = max(self.peak[key], self.in_flight[key])

    def release(self, holder: str, key: str = SESSION) -> None:
        if self.held[holder, key] <= 0:  # forgotten already
            return
        self.held[holder, key] -= 1
        self.in_flight[key] -= 1
        self.sems[key].release()
        if key == SESSION:
            self.done[holder] += 1
            self.completed += 1

    def forget(self, holder: str, failed: bool) -> None:
        """The attempt is over: free its slots. A failed attempt's sessions no longer count; a
        finished one's slots still held are sessions whose release is on its way (count them)."""
        self.forgotten.add(holder)
        for (h, key) in [k for k in self.held if k[0] == holder]:
            n = self.held.pop((h, key))
            self.in_flight[key] -= n
            for _ in range(n):
                self.sems[key].release()
            if key == SESSION and not failed:
                self.done[holder] += n
                self.completed += n
        done = self.done.pop(holder, 0)
        if failed:
            self.completed -= done

    def is_forgotten(self, holder: str) -> bool:
        return holder in self.forgotten

    def stats(self) -> dict[str, Any]:
        return {"completed": self.completed, "in_flight": dict(self.in_flight), "peak": dict(self.peak)}


class RemoteSlots:
    """``async with`` one of the limiter's slots: around each session (``ctx.session()``) and,
    for a limited provider, around each request to it."""

    def __init__(self, limiter: Any, holder: str, key: str = SESSION) -> None:
        self.limiter, self.holder, self.key = limiter, holder, key

    async def __aenter__(self) -> None:
        await self.limiter.acquire.remote(self.holder, self.key)

    async def __aexit__(self, *exc: Any) -> None:
        self.limiter.release.remote(self.holder, self.key)  # not awaited: the bound only gets stricter


@ray.remote
class CellWorker:
    """Rebuilds the run from its config and runs the cells it is sent."""

    def __init__(self, cfg_json: str, cwd: str, root: str, probe: str, dataset_sha256: str, limiter: str) -> None:
        from longview.harness.runstore import RunStore

        self.incarnation = uuid.uuid4().hex
        self.seq = 0
        self.active: set[str] = set()  # the cell attempts running in this process
        self.limiter = ray.get_actor(limiter)  # by name: a restarted worker finds it again
        self.error: str | None = None
        probe_file = Path(root) / probe
        self.shared = probe_file.is_file() and probe_file.read_text() == probe
        self.store = RunStore(Path(root))
        try:
            node = ray.get_runtime_context().get_node_id()[:8]
            self.p = rebuild(cfg_json, cwd, dataset_sha256, f"on node {node}")
        except LongviewError as e:
            self.error = str(e)
            return
        # Every model call's usage entry goes back to the driver, which appends it to the run's journal.
        self.entries: list[dict[str, Any]] = []
        self.p.roles.ledger.journal = self.entries.append
        # Requests to a limited provider take their slot from the cluster-wide limiter too.
        self.p.roles.gate = lambda prefix: RemoteSlots(self.limiter, _this.HOLDER.get(), f"provider:{prefix}")

    def info(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "node": ray.get_runtime_context().get_node_id(), "shared": self.shared,
                "error": self.error, "active": sorted(self.active)}

    def usage(self) -> tuple[str, int, dict[str, Any], list[dict[str, Any]]]:
        """This incarnation's running usage summary, with a sequence number (newest wins), and the
        journal entries recorded since the last report."""
        self.seq += 1
        drained = self.entries[:]
        del self.entries[: len(drained)]
        return self.incarnation, self.seq, self.p.roles.ledger.summary().model_dump(), drained

    async def run(self, cell: Cell, holder: str, shared: bool) -> dict[str, Any]:
        _this.HOLDER.set(holder)  # this task's context: the cell's sessions and model calls inherit it
        self.active.add(holder)  # before the check below: the driver either sees it here or it sees the driver
        try:
            if await self.limiter.is_forgotten.remote(holder):  # a late copy of an attempt the driver gave up on
                return {"stale": holder}
            return await self._run(cell, shared, holder)
        finally:
            self.active.discard(holder)

    async def _run(self, cell: Cell, shared: bool, holder: str) -> dict[str, Any]:
        folder = self.store.start_cell(cell.key) if shared else Path(tempfile.mkdtemp(prefix="longview-cell-"))
        try:
            result = await run_one(self.p, cell, folder, RemoteSlots(self.limiter, holder), lambda: None,
                                   self.store if shared else None)
            files = None if shared else {
                f.relative_to(folder).as_posix(): f.read_bytes() for f in sorted(folder.rglob("*")) if f.is_file()
            }
        finally:
            if not shared:
                shutil.rmtree(folder, ignore_errors=True)
        return {"result": result, "files": files, "usage": self.usage(), "pid": os.getpid()}


LOOPBACK = "127.0.0.1"
SINGLE_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def start_local_ray(num_cpus: int, **kw: Any) -> None:
    """A new Ray instance on this machine whose every listener is on 127.0.0.1, dashboard off.

    Ray has no bind-address setting for its core processes: the GCS, the raylet's node and object
    managers and every worker's gRPC server listen on 127.0.0.1 only when the node's IP is
    127.0.0.1, and otherwise on all interfaces; the agents (dashboard agent, metrics, runtime env)
    bind the node's IP. But Ray replaces a 127.0.0.1 node IP (``_node_ip_address``) by the machine's
    reachable address unless clusters are off, its single-machine mode (the default on macOS and
    Windows, chosen with ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``). So that mode is switched on while
    the instance starts — in this process (Ray read the variable at import) and in the environment
    its processes inherit — and restored afterwards. tests/harness/test_ray.py lists the sockets
    the instance's processes open and fails on any that is not loopback.
    """
    from ray._private import ray_constants

    saved_env, saved_flag = os.environ.get(SINGLE_MACHINE_ENV), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[SINGLE_MACHINE_ENV] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        # "local": a new instance, even where RAY_ADDRESS or `ray start` points elsewhere.
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, _node_ip_address=LOOPBACK, **kw)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(SINGLE_MACHINE_ENV, None)
        else:
            os.environ[SINGLE_MACHINE_ENV] = saved_env


class RayExecutor(Executor):
    """Cells as calls to worker actors on a Ray cluster (started locally when no address is given)."""

    name = "ray"

    def __init__(self, address: str | None = None, *, files: Literal["auto", "shared", "driver"] = "auto",
                 num_cpus: int | None = None, workers: int | None = None, cell_attempts: int = 3,
                 poll_interval: float = 0.2) -> None:
        self.address, self.files, self.num_cpus = address, files, num_cpus
        self.n_workers, self.cell_attempts, self.poll_interval = workers, cell_attempts, poll_interval
        self.owns_ray = False
        self.workers: list[Any] = []
        self.limiter: Any = None
        self.shared: list[bool] = []
        self.snapshots: dict[str, tuple[int, dict[str, Any]]] = {}  # worker incarnation -> (seq, usage summary)
        self.retried: list[str] = []  # cell keys sent again after their worker died
        self.cells_by_pid: Counter[int] = Counter()  # cells accepted per worker process
        self.load: list[int] = []  # cells in flight per worker
        self.pids: list[int] = []  # each worker's current process
        self.processes: set[int] = set()  # every worker process seen (a restart adds one)
        self.locks: list[asyncio.Lock] = []
        self.limiter_stats: dict[str, Any] = {}  # completed sessions; in flight and peak per key
        self.journal: Callable[[dict[str, Any]], None] = lambda entry: None

    # -- lifecycle ------------------------------------------------------------------------------
    def connect(self, p: Prepared) -> None:
        if ray.is_initialized():  # joined already (tests, notebooks): use it, leave it running
            return
        kw: dict[str, Any] = dict(logging_level=logging.WARNING, configure_logging=True)
        if self.address:
            try:
                ray.init(address=self.address, **kw)
            except (ConnectionError, RuntimeError, ValueError) as e:
                why = " ".join(f"{e} {e.__cause__ or ''}".split())
                raise ConfigError(f"--ray-address {self.address}: cannot join that Ray cluster ({why[:600]})") from None
        else:
            start_local_ray(self.num_cpus or os.cpu_count() or 1, **kw)
        self.owns_ray = True

    def start(self, p: Prepared, store: RunStore) -> dict[str, Any]:
        nodes = [n for n in ray.nodes() if n.get("Alive")]  # type: ignore[no-untyped-call]
        cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        n = self.n_workers or max(1, min(cpus, p.cfg.max_concurrency))
        self.journal = store.journal_usage
        token = uuid.uuid4().hex
        limiter = f"longview-limiter-{token}"
        limits = {SESSION: p.cfg.max_concurrency, **{f"provider:{k}": v for k, v in p.cfg.provider_limits.items()}}
        self.limiter = Limiter.options(  # type: ignore[attr-defined]
            name=limiter, num_cpus=0, max_concurrency=100_000).remote(limits)
        root = store.root.resolve()
        probe = f"{PROBE}{token}"
        (root / probe).write_text(probe)
        try:
            self.workers = [
                CellWorker.options(  # type: ignore[attr-defined]
                    num_cpus=1, max_restarts=-1, max_task_retries=0, max_concurrency=p.cfg.max_concurrency + 8,
                ).remote(p.cfg.model_dump_json(), os.getcwd(), str(root), probe, p.dataset.sha256, limiter)
                for _ in range(n)
            ]
            infos = ray.get([w.info.remote() for w in self.workers])
        finally:
            (root / probe).unlink(missing_ok=True)
        for info in infos:
            if info["error"]:
                raise ConfigError(f"a Ray worker could not prepare the run: {info['error']}")
        self.pids = [i["pid"] for i in infos]
        self.processes.update(self.pids)
        seen = [bool(i["shared"]) for i in infos]
        if self.files == "shared" and not all(seen):
            raise ConfigError(f"{root}: not visible from every Ray worker (no shared filesystem); drop files='shared'")
        self.shared = [s and self.files != "driver" for s in seen]
        mode = "shared" if all(self.shared) else "driver" if not any(self.shared) else "mixed"
        return {"name": self.name, "address": self.address or "local", "nodes": len(nodes), "cpus": cpus,
                "workers": n, "files": mode}

    def stop(self) -> None:
        for actor in [*self.workers, *([self.limiter] if self.limiter is not None else [])]:
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 (already gone; nothing else to release)
                pass
        self.workers, self.limiter = [], None
        if self.owns_ray:
            ray.shutdown()
            self.owns_ray = False

    # -- cells ----------------------------------------------------------------------------------
    async def run_cells(self, p: Prepared, store: RunStore, todo: list[Cell], on_session: OnSession,
                        on_cell: OnCell) -> None:
        cell_slots = asyncio.Semaphore(p.cfg.max_concurrency)  # cells in flight, as locally
        self.locks = [asyncio.Lock() for _ in self.workers]
        load = self.load = [0] * len(self.workers)
        reported = 0

        async def progress() -> None:
            nonlocal reported
            self.limiter_stats = await self.limiter.stats.remote()
            completed = self.limiter_stats["completed"]
            for _ in range(completed - reported):  # monotone: a retried cell's sessions are not recounted
                on_session()
            reported = max(reported, completed)

        async def poll() -> None:
            while True:
                await asyncio.sleep(self.poll_interval)
                await progress()

        async def one(cell: Cell) -> None:
            async with cell_slots:
                for attempt in range(self.cell_attempts):
                    i = min(range(len(self.workers)), key=lambda k: load[k])
                    holder = f"{cell.key}#{attempt}"
                    load[i] += 1
                    try:
                        out = await self.workers[i].run.remote(cell, holder, self.shared[i])
                    except WORKER_DIED:
                        self.retried.append(cell.key)
                        # The attempt must be over before its slots are given back and the cell resent.
                        await self._recover(i, holder)
                        await self.limiter.forget.remote(holder, True)
                        continue
                    except RayTaskError as e:  # the suite's own error: stop the run, as locally
                        await self.limiter.forget.remote(holder, True)
                        cause = e.cause if isinstance(e.cause, Exception) else None
                        raise (cause or e) from None
                    finally:
                        load[i] -= 1
                    await self.limiter.forget.remote(holder, False)
                    self._add_usage(out["usage"])
                    if out["files"] is not None:
                        folder = store.start_cell(cell.key)
                        for name, data in out["files"].items():
                            path = store.inside(folder / name)  # a returned name never leads out of the run
                            if not path.resolve().is_relative_to(folder.resolve()):
                                raise ConfigError(f"cell {cell.key}: a worker returned a file outside its folder: {name!r}")
                            path.parent.mkdir(parents=True, exist_ok=True)
                            path.write_bytes(data)
                    result = settle(p, store, cell, out["result"])
                    store.finish_cell(cell.key, result)  # the marker: last, atomic, by the driver only
                    self.cells_by_pid[out["pid"]] += 1
                    on_cell(cell, result)
                    return
                raise LongviewError(f"cell {cell.key}: its Ray worker died {self.cell_attempts} times; "
                                    "no marker was written (--resume runs it again)")

        poller = asyncio.create_task(poll())
        try:
            await asyncio.gather(*(one(c) for c in todo))
            await progress()
        finally:
            poller.cancel()
            await p.roles.aclose()

    async def _recover(self, i: int, holder: str, timeout: float = 120.0) -> None:
        """Wait until worker ``i`` answers again and the attempt ``holder`` no longer runs there.
        Ray restarts a dead actor, so usually the answer comes from a new process; a call that was
        only undeliverable (``ActorUnavailableError``: sent while the actor restarted, or a dropped
        connection) may leave the attempt running in a live process, which is then killed (and
        restarted). A restarting actor is never killed again for a call it could not take."""
        async with self.locks[i]:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                try:
                    info = await self.workers[i].info.remote()
                except WORKER_DIED:
                    info = None
                if info is not None:
                    if holder not in info["active"]:
                        break
                    ray.kill(self.workers[i], no_restart=False)  # the attempt still runs: end it first
                if loop.time() > deadline:
                    raise LongviewError(f"Ray worker {i} did not come back within {timeout:.0f} s")
                await asyncio.sleep(0.5)
            if info["error"]:
                raise ConfigError(f"a restarted Ray worker could not prepare the run: {info['error']}")
            self.pids[i] = info["pid"]
            self.processes.add(info["pid"])

    # -- usage ----------------------------------------------------------------------------------
    def _add_usage(self, snapshot: tuple[str, int, dict[str, Any], list[dict[str, Any]]]) -> None:
        incarnation, seq, summary, entries = snapshot
        for entry in entries:  # each reported once: the journal a resume recovers usage from
            self.journal(entry)
        if seq > self.snapshots.get(incarnation, (-1, {}))[0]:
            self.snapshots[incarnation] = (seq, summary)

    def usage(self, p: Prepared) -> dict[str, Any]:
        for w in self.workers:  # the latest running totals of every live worker
            try:
                self._add_usage(ray.get(w.usage.remote(), timeout=30))
            except (*WORKER_DIED, RayTaskError, ray.exceptions.GetTimeoutError):
                pass  # a dead incarnation keeps the totals it last reported
        total: dict[str, Any] = {}
        for _, summary in sorted(self.snapshots.values(), key=lambda s: s[0]):
            total = add_summaries(total, summary)
        return total or p.roles.ledger.summary().model_dump()
