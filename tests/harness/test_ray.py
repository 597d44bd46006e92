"""The Ray executor (``--executor ray``) on a local 2-CPU Ray instance: the same scorecard, traces
and resumable run folder as the local executor; a worker killed mid-run loses and duplicates no
cell; model requests in flight stay at the global ``--max-concurrency`` across workers, never above.

Ray starts in seconds, so there are few tests: one through the CLI (which starts and stops its own
Ray instance), two in-process on one shared instance.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed; pip install 'longview[ray]' to test --executor ray")
pytestmark = pytest.mark.ray

from longview.harness import registry  # noqa: E402
from longview.harness import run as harness  # noqa: E402
from longview.harness.options import RunConfig  # noqa: E402
from longview.harness.ray_executor import RayExecutor, start_local_ray  # noqa: E402
from longview.harness.runstore import RunStore  # noqa: E402
from longview.kernel.models.usage import without_timings  # noqa: E402
from longview.testing.loopback import LoopbackServer, finish_or_send  # noqa: E402


def card(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("run")
    return data


def tree(root: Path) -> dict[str, bytes]:
    """Every file of a run's cells, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "cells").rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def cluster():
    """One local Ray instance with 2 CPUs for the in-process tests (the executor joins it)."""
    import logging

    start_local_ray(2, logging_level=logging.WARNING)  # on loopback, as the executor starts one
    yield
    ray.shutdown()


def test_cli_ray_run_equals_local_run_and_they_resume_each_other(tmp_path):
    env = {**os.environ, "LONGVIEW_CACHE_DIR": str(tmp_path / "cache")}
    base = [sys.executable, "-m", "longview", "run", "atr", "--personas", "2"]
    r = subprocess.run([*base, "--executor", "ray", "--out", "ray", "--json", "ray.json"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    store, local = harness.run(RunConfig(suite="atr", units=2, out=tmp_path / "local"))
    harness.write_json(local, tmp_path / "local.json", store.manifest(), registry.load("atr"))
    assert card(tmp_path / "ray.json") == card(tmp_path / "local.json")
    assert card(tmp_path / "ray.json")["rows"][1]["metrics"]["tsacc"] > 0  # ref:asker scored, not empty rows
    assert tree(tmp_path / "ray") == tree(tmp_path / "local")  # traces and markers byte-identical
    ray_m, local_m = RunStore(tmp_path / "ray").manifest(), store.manifest()
    assert ray_m.config_hash == local_m.config_hash
    cpus = os.cpu_count() or 1  # a local instance gets this machine's CPUs; workers <= --max-concurrency (4)
    assert ray_m.executor == {"name": "ray", "address": "local", "nodes": 1, "cpus": cpus, "workers": min(cpus, 4),
                              "files": "shared"}
    assert local_m.executor["name"] == "local"
    # A Ray run folder resumes locally (and the other way round): nothing left to run, same card.
    rerun: list[str] = []
    _, again = harness.run(RunConfig(suite="atr", units=2, out=tmp_path / "ray", resume=True),
                           on_cell=lambda c, res: rerun.append(c.key))
    assert rerun == [] and again.to_json_dict() == local.to_json_dict()
    assert not list((tmp_path / "ray").glob(".ray-probe-*"))


def _children(root: int) -> set[int]:
    """Every process below ``root`` (from /proc: no psutil needed)."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            parent[int(d)] = int(stat.rsplit(")", 1)[1].split()[1])
    out: set[int] = set()
    grew = True
    while grew:
        new = {p for p, pp in parent.items() if (pp == root or pp in out) and p not in out}
        out |= new
        grew = bool(new)
    return out


def _address(hexaddr: str) -> str:
    ip, port = hexaddr.split(":")
    raw = bytes.fromhex(ip)
    if len(raw) == 16:  # /proc prints each 32-bit word in host (little-endian) order
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
        return f"[{socket.inet_ntop(socket.AF_INET6, raw)}]:{int(port, 16)}"
    return f"{socket.inet_ntop(socket.AF_INET, raw[::-1])}:{int(port, 16)}"


def listening(pids: set[int]) -> set[tuple[str, str, str]]:
    """(process name, protocol, local address) of every listening TCP socket and bound UDP socket
    that one of ``pids`` holds, read from /proc/net and each process's descriptors."""
    table: dict[str, tuple[str, str]] = {}
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        try:
            lines = Path(f"/proc/net/{proto}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if proto.startswith("tcp") and f[3] != "0A":  # 0A: LISTEN
                continue
            table[f[9]] = (proto, _address(f[1]))
    out = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in table:
                out.add((name, *table[link[8:-1]]))
    return out


LOOPBACK = ("127.", "[::1]:", "[::ffff:127.")


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads listening sockets from /proc (Linux)")
def test_a_local_ray_instance_listens_on_loopback_only(tmp_path):
    """During a `--executor ray` run, every socket any Ray process listens on is on 127.0.0.1:
    Ray's APIs have no authentication, so a run on one machine must not be reachable from another."""
    env = {**os.environ, "LONGVIEW_CACHE_DIR": str(tmp_path / "cache")}
    env.pop(SINGLE := "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)  # the executor must set it itself
    run = subprocess.Popen([sys.executable, "-m", "longview", "run", "atr", "--personas", "2", "--executor", "ray",
                            "--out", "ray"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: set[tuple[str, str, str]] = set()
    try:
        while run.poll() is None:  # bounded by the run itself (and the timeout below)
            seen |= listening(_children(run.pid) | {run.pid})
            time.sleep(0.2)
    finally:
        _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err.decode()[-3000:]
    assert SINGLE not in os.environ
    names = {name for name, _, _ in seen}
    assert "gcs_server" in names and "raylet" in names, seen  # the instance was observed, not missed
    exposed = sorted(s for s in seen if not s[2].startswith(LOOPBACK))
    assert exposed == [], exposed


def test_worker_killed_mid_run_loses_and_duplicates_no_cell(cluster, tmp_path):
    _, local = harness.run(RunConfig(suite="atr", units=4, out=tmp_path / "local"))
    ex = RayExecutor()
    seen: Counter[str] = Counter()
    killed: list[int] = []

    def on_cell(cell, result) -> None:
        seen[cell.key] += 1
        if len(seen) == 2 and not killed:  # kill the busiest worker, mid-cell
            busiest = max(range(len(ex.workers)), key=lambda i: ex.load[i])
            assert ex.load[busiest] > 0
            pid = ray.get(ex.workers[busiest].info.remote())["pid"]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    cfg = RunConfig(suite="atr", units=4, out=tmp_path / "ray", executor="ray")
    store, sc = harness.run(cfg, executor=ex, on_cell=on_cell)
    assert killed and ex.retried, "the kill must hit a cell in flight"
    # One restart for one kill: a call refused while the actor restarted (ActorUnavailableError)
    # must not get the new process killed too (that cascade once failed a cell three times).
    assert len(ex.processes) == len(ex.pids) + 1
    assert len(seen) == 12 and set(seen.values()) == {1}  # every cell accepted exactly once
    markers = sorted((tmp_path / "ray").glob("cells/*/result.json"))
    assert len(markers) == 12
    assert sc.to_json_dict() == local.to_json_dict()
    assert tree(tmp_path / "ray") == tree(tmp_path / "local")  # no stray half-written trace either


def test_recovery_restarts_a_worker_once_and_never_kills_a_process_that_runs_no_attempt(cluster, tmp_path):
    """A call sent while an actor restarts fails with ActorUnavailableError; recovering from it must
    not kill the fresh process (only one that still runs the attempt is killed)."""
    from longview.harness.plan import prepare

    p = prepare(RunConfig(suite="atr", units=1, out=tmp_path / "r"))
    store = RunStore(tmp_path / "r")
    store.open(p.manifest, resume=False, force=False)
    ex = RayExecutor(workers=1)
    ex.connect(p)
    try:
        ex.start(p, store)
        ex.locks = [asyncio.Lock()]
        first = ex.pids[0]
        asyncio.run(ex._recover(0, "no-such-attempt#0"))  # a healthy worker that runs no such attempt
        assert ex.pids[0] == first

        os.kill(first, signal.SIGKILL)
        try:  # a call while the actor restarts is refused (ActorUnavailableError), as the run's would be
            ray.get(ex.workers[0].info.remote(), timeout=60)
        except ray.exceptions.RayActorError:
            pass
        asyncio.run(ex._recover(0, "a-cell#0"))
        second = ex.pids[0]
        assert second != first
        time.sleep(1.0)
        assert ray.get(ex.workers[0].info.remote(), timeout=60)["pid"] == second  # not killed again
        assert ex.processes == {first, second}
    finally:
        ex.stop()


def test_model_requests_in_flight_stay_at_the_global_limits_across_workers(cluster, tmp_path):
    limit = 3  # not a multiple of the 2 workers: a per-worker share could not give exactly 3
    with LoopbackServer(latency=0.02, agent=finish_or_send).in_thread() as srv:
        cfg = RunConfig(suite="atr", models=["hosted_vllm/m"], variants=["atr"], units=2, api_base=srv.url,
                        no_cache=True, max_concurrency=limit, out=tmp_path / "ray", executor="ray")
        ex = RayExecutor(files="driver")  # the worker returns the traces; the driver writes them
        store, sc = harness.run(cfg, executor=ex)
        ray_peak, ray_hits = srv.stats.peak_in_flight, srv.stats.requests
        srv.reset_stats()
        # A provider limit below the session limit: requests to it are what is bounded.
        limited = RayExecutor()
        harness.run(cfg.model_copy(update={"out": tmp_path / "ray2", "max_concurrency": 8,
                                           "provider_limits": {"hosted_vllm": 2}}), executor=limited)
        provider_peak = srv.stats.peak_in_flight
        srv.reset_stats()
        lstore, local = harness.run(cfg.model_copy(update={"out": tmp_path / "local", "executor": "local"}))
        local_hits = srv.stats.requests
    assert len(ex.cells_by_pid) == 2 and len(limited.cells_by_pid) == 2  # both workers ran cells
    assert ray_peak == limit and ex.limiter_stats["peak"]["session"] == limit  # reached, never exceeded
    assert provider_peak == 2 and limited.limiter_stats["peak"]["provider:hosted_vllm"] == 2
    assert sc.to_json_dict() == local.to_json_dict() and tree(tmp_path / "ray") == tree(tmp_path / "local")
    m = store.manifest()
    assert m.executor["files"] == "driver" and m.executor["workers"] == 2
    assert m.usage["roles"]["agent"]["calls"] == ray_hits == local_hits
    assert without_timings(m.usage) == without_timings(lstore.manifest().usage)  # latencies differ by nature
    journal = (tmp_path / "ray" / "usage.jsonl").read_text().splitlines()  # what a resume recovers usage from
    local_journal = (tmp_path / "local" / "usage.jsonl").read_text().splitlines()

    def calls(lines: list[str]) -> list[str]:
        return sorted(json.dumps(without_timings(json.loads(line)), sort_keys=True) for line in lines)

    assert len(journal) == ray_hits and calls(journal) == calls(local_journal)
