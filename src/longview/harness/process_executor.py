"""``--workers N``: the local executor's cells spread over N worker processes on this machine, for
runs whose cost is the harness's own CPU (reference agents, embedded judges and users) rather than
waiting on a model.

- **Start.** On Linux, when this process has a single thread, workers are forked after the run is
  prepared and inherit it (no second dataset load); otherwise they are spawned and rebuild the run
  from its :class:`RunConfig` (``prepare`` is pure) and check the dataset hash.
- **Work.** The driver hands out cells, longest first, to whichever worker has a free cell slot. A
  worker runs its cells on its own event loop and writes their traces into the run folder; the
  driver alone writes the completion marker when the result comes back, so markers, the config
  hash and ``--resume`` behave exactly as with one process.
- **Bounds.** ``--max-concurrency`` and every ``--provider-limit`` are split between the workers
  (shares add up to the limit: never above it), so at most ``min(N, --max-concurrency)`` workers
  start and a provider limit below that is refused.
- **Usage.** Workers append model calls to the run's usage journal themselves (one line per write,
  in append mode); this invocation's usage is what they appended, so a worker that died still
  counts every call it made.
- **Failures.** An error raised by the suite stops the run, as locally; a worker that dies stops it
  too, and its unfinished cells have no marker, so ``--resume`` runs them again. Workers ignore
  Ctrl-C (the driver ends them) and leave when the driver's end of their pipe closes.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections import deque
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longview.harness.cell import Cell
from longview.harness.executor import Executor, OnCell, OnSession, rebuild, run_one
from longview.harness.harnesses import settle
from longview.harness.slots import PrioritySlots
from longview.kernel.errors import ConfigError, LongviewError, RunInterrupted

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from longview.harness.plan import Prepared
    from longview.harness.runstore import RunStore

PROGRESS_EVERY = 0.1  # seconds between a worker's progress messages (finished sessions)
# Cells handed to one worker and not yet finished. A cell travels as its index in the plan (a few
# bytes), so this many never fill the pipe: the driver's send cannot block while the worker is
# blocked sending a result back.
MAX_CELLS_PER_WORKER = 1024


def share(limit: int, n: int, i: int) -> int:
    """Worker ``i``'s part of ``limit`` split ``n`` ways; the parts add up to ``limit``."""
    return limit // n + (1 if i < limit % n else 0)


class ProcessExecutor(Executor):
    """Cells in ``workers`` processes of this machine, driven from this one."""

    name = "local"

    def __init__(self, workers: int, start_method: str | None = None) -> None:
        self.requested = workers
        self.start_method = start_method  # None: fork where safe, else spawn (tests choose one)
        self.n = workers
        self.procs: list[BaseProcess] = []
        self.conns: list[Connection] = []
        self.method = ""
        self.store: RunStore | None = None
        self.journal_start = 0  # the usage journal's size before the workers started

    def connect(self, p: Prepared) -> None:
        """Check the split before anything is written: every worker needs a slot of each bound."""
        if sys.platform == "win32":  # the driver watches the workers' pipes with the event loop's add_reader
            raise ConfigError("--workers needs Linux or macOS; on Windows use --executor ray")
        self.n = max(1, min(self.requested, p.cfg.max_concurrency))
        for prefix, limit in p.cfg.provider_limits.items():
            if limit < self.n:
                raise ConfigError(f"--provider-limit {prefix}={limit}: below --workers {self.n}; every worker "
                                  "process needs at least one request slot (lower --workers or raise the limit)")

    def start(self, p: Prepared, store: RunStore) -> dict[str, Any]:
        # fork is safe only without other threads; elsewhere (macOS, a progress thread) spawn.
        self.method = self.start_method or (
            "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn")
        ctx: Any = multiprocessing.get_context(self.method)
        self.store, self.journal_start = store, store.journal_size()
        for i in range(self.n):
            here, there = ctx.Pipe()
            limits = {
                "sessions": share(p.cfg.max_concurrency, self.n, i),
                "providers": {k: share(v, self.n, i) for k, v in p.cfg.provider_limits.items()},
            }
            # A forked worker inherits the prepared run; a spawned one gets the config to rebuild it.
            run_of = p if self.method == "fork" else p.cfg.model_dump_json()
            # A forked worker closes its copies of the driver's pipe ends, or it would never see EOF.
            theirs = [*self.conns, here] if self.method == "fork" else []
            proc = ctx.Process(target=_worker, args=(there, run_of, os.getcwd(), str(store.root), limits,
                                                     (p.dataset.sha256, [c.key for c in p.cells]), theirs),
                               daemon=True, name=f"longview-worker-{i}")
            proc.start()
            there.close()
            self.procs.append(proc)
            self.conns.append(here)
        for i in range(self.n):  # each worker says it is ready, or why not
            kind, *rest = self._recv(i, "starting")
            if kind == "failed":
                raise ConfigError(f"worker process {i} could not prepare the run: {rest[0]}")
        return {"name": self.name, "nodes": 1, "cpus": os.cpu_count() or 1, "workers": self.n, "start": self.method}

    def _recv(self, i: int, doing: str) -> tuple[Any, ...]:
        try:
            msg: tuple[Any, ...] = self.conns[i].recv()
            return msg
        except (EOFError, OSError):
            self.procs[i].join(5)
            raise RunInterrupted(f"worker process {i} (pid {self.procs[i].pid}) died while {doing} (exit code "
                                f"{self.procs[i].exitcode}); cells it had have no marker: --resume runs them again"
                                ) from None

    async def run_cells(self, p: Prepared, store: RunStore, todo: list[Cell], on_session: OnSession,
                        on_cell: OnCell) -> None:
        loop = asyncio.get_running_loop()
        queue = deque(todo)  # longest first, as given
        cells = {c.key: c for c in todo}
        index = {c.key: k for k, c in enumerate(p.cells)}  # what a worker is sent: its plan is the same
        cap = [min(MAX_CELLS_PER_WORKER, share(p.cfg.max_concurrency, self.n, i)) for i in range(self.n)]
        free = list(cap)  # cell slots per worker; cap - free are running there
        finished: asyncio.Future[None] = loop.create_future()
        left = len(todo)

        def dispatch(i: int) -> None:
            while free[i] and queue:
                free[i] -= 1
                self.conns[i].send(("cell", index[queue.popleft().key]))

        def fail(e: BaseException) -> None:
            if not finished.done():
                finished.set_exception(e)

        def readable(i: int) -> None:
            try:
                handle(i)
            except BaseException as e:  # noqa: BLE001 (a callback's error would only be logged: stop the run)
                loop.remove_reader(self.conns[i].fileno())
                fail(e)

        def handle(i: int) -> None:
            nonlocal left
            kind, *rest = self._recv(i, f"running {cap[i] - free[i]} cell(s)")
            if kind == "sessions":
                for _ in range(rest[0]):
                    on_session()
            elif kind == "done":
                key, result = rest
                result = settle(p, store, cells[key], result)
                store.finish_cell(key, result)  # the marker: last, atomic, by the driver only
                on_cell(cells[key], result)
                free[i] += 1
                left -= 1
                if not left and not finished.done():
                    finished.set_result(None)
                dispatch(i)
            elif kind == "error":
                key, error, where = rest
                fail(_raised(error, key, where))

        for i in range(self.n):
            loop.add_reader(self.conns[i].fileno(), readable, i)
            dispatch(i)
        try:
            if left:
                await finished
        finally:
            for conn in self.conns:
                loop.remove_reader(conn.fileno())
            await p.roles.aclose()

    def usage(self, p: Prepared) -> dict[str, Any]:
        if self.store is None:  # never started
            return p.roles.ledger.summary().model_dump()
        return self.store.recovered_usage(since=self.journal_start)

    def stop(self) -> None:
        for conn in self.conns:  # a worker leaves when its pipe closes
            conn.close()
        deadline = time.monotonic() + 5
        for proc in self.procs:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in self.procs:
            if proc.is_alive():  # a cell still running (the run stopped early): end it
                proc.terminate()
                proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        self.procs, self.conns = [], []


def _raised(error: bytes | None, key: str, where: str) -> BaseException:
    """The worker's exception, as it would have been raised locally, with the worker's traceback."""
    try:
        e = pickle.loads(error) if error is not None else None
    except Exception:  # noqa: BLE001 (an exception that does not survive the trip)
        e = None
    if not isinstance(e, BaseException):
        return LongviewError(f"cell {key}: failed in a worker process:\n{where}")
    e.add_note(f"(cell {key}, in a worker process)\n{where}")
    return e


# -- the worker process ---------------------------------------------------------------------------

def _worker(conn: Connection, run_of: Prepared | str, cwd: str, root: str, limits: dict[str, Any],
            expected: tuple[str, list[str]], drivers: list[Connection]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides when to stop
    for c in drivers:
        c.close()
    try:
        p = _prepared(run_of, cwd, expected, limits["providers"])
    except Exception as e:  # noqa: BLE001 (reported to the driver, which names the worker)
        conn.send(("failed", str(e)))
        return
    conn.send(("ready",))
    asyncio.run(_serve(conn, p, root, limits["sessions"]))


def _prepared(run_of: Prepared | str, cwd: str, expected: tuple[str, list[str]],
              provider_limits: dict[str, int]) -> Prepared:
    if isinstance(run_of, str):
        sha256, keys = expected
        p = rebuild(run_of, cwd, sha256, "in a worker process")
        if [c.key for c in p.cells] != keys:  # cells are sent by their place in the plan
            raise ConfigError("the rebuilt run plans other cells than the driver's")
    else:
        p = run_of  # forked before the driver made any model call: its ledger starts empty here too
    p.roles.set_provider_limits(provider_limits)
    return p


async def _serve(conn: Connection, p: Prepared, root: str, sessions: int) -> None:
    from longview.harness.runstore import RunStore

    loop = asyncio.get_running_loop()
    store = RunStore(Path(root))
    p.roles.ledger.journal = store.journal_usage  # straight to the run's journal: a killed driver loses nothing
    slots = PrioritySlots(sessions)  # this worker's share of the session slots, first cells first
    arrivals = itertools.count()  # the driver hands out cells longest first: arrival order is the rank
    closed: asyncio.Future[None] = loop.create_future()
    tasks: set[asyncio.Task[Any]] = set()
    done_sessions, last = 0, time.monotonic()

    def send(*msg: Any) -> None:
        if closed.done():
            return
        try:
            conn.send(msg)
        except OSError:  # the driver is gone (stopped early, or killed): leave quietly
            closed.set_result(None)

    def flush() -> None:
        nonlocal done_sessions, last
        if done_sessions:
            send("sessions", done_sessions)
        done_sessions, last = 0, time.monotonic()

    def on_session() -> None:
        nonlocal done_sessions
        done_sessions += 1
        if time.monotonic() - last > PROGRESS_EVERY:
            flush()

    async def one(rank: int, cell: Cell) -> None:
        try:
            folder = store.start_cell(cell.key)
            result = await run_one(p, cell, folder, slots.for_cell(rank), on_session, store)
        except Exception as e:  # noqa: BLE001 (the driver raises it, as a local run would)
            try:
                error: bytes | None = pickle.dumps(e)
            except Exception:  # noqa: BLE001
                error = None
            send("error", cell.key, error, traceback.format_exc())
            return
        flush()
        send("done", cell.key, result)

    def readable() -> None:
        try:
            kind, k = conn.recv()
        except (EOFError, OSError):  # the driver closed the pipe (run over) or died
            loop.remove_reader(conn.fileno())
            if not closed.done():
                closed.set_result(None)
            return
        task = loop.create_task(one(next(arrivals), p.cells[k]))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    loop.add_reader(conn.fileno(), readable)
    try:
        await closed
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await p.roles.aclose()
