"""``--workers N``: cells in N processes of this machine give the same run folder, scorecard and
usage as one process; bounds hold across the processes; a suite error or a dead worker stops the
run without a marker for the unfinished cells, and the folder resumes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from longview.harness import registry
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.harness.process_executor import ProcessExecutor, share
from longview.kernel.errors import ConfigError, LongviewError, RunInterrupted
from longview.kernel.models.usage import without_timings
from longview.testing.loopback import LoopbackServer, finish_or_send


def tree(root: Path) -> dict[str, bytes]:
    """Every file of a run's cells, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "cells").rglob("*")) if p.is_file()}


def card(root: Path) -> dict:
    data = json.loads((root / "scorecard.json").read_text())
    data.pop("run")
    return data


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 7, 256])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_shares_add_up_to_the_limit_and_differ_by_at_most_one(limit, n):
    parts = [share(limit, n, i) for i in range(n)]
    assert sum(parts) == limit and max(parts) - min(parts) <= 1


@pytest.mark.parametrize("suite", ["atr", "intents", "tempo"])
def test_two_workers_write_the_same_run_folder_as_one_process(suite, tmp_path):
    one_store, one = harness.run(RunConfig(suite=suite, units=2, out=tmp_path / "one"))
    ex = ProcessExecutor(2, start_method="fork")
    store, two = harness.run(RunConfig(suite=suite, units=2, out=tmp_path / "two", workers=2), executor=ex)
    assert tree(tmp_path / "two") == tree(tmp_path / "one")  # traces and markers, byte for byte
    assert card(tmp_path / "two") == card(tmp_path / "one")
    assert two.to_json_dict() == one.to_json_dict()
    m = store.manifest()
    assert m.config_hash == one_store.manifest().config_hash  # how cells ran is not part of the run's identity
    assert m.executor == {"name": "local", "nodes": 1, "cpus": os.cpu_count() or 1, "workers": 2, "start": "fork"}
    assert not ex.procs  # stopped and joined


def test_spawned_workers_rebuild_the_run_and_give_the_same_folder(tmp_path):
    harness.run(RunConfig(suite="atr", units=2, out=tmp_path / "one"))
    store, _ = harness.run(RunConfig(suite="atr", units=2, out=tmp_path / "two", workers=2),
                           executor=ProcessExecutor(2, start_method="spawn"))
    assert store.manifest().executor["start"] == "spawn"
    assert tree(tmp_path / "two") == tree(tmp_path / "one")


def test_workers_are_capped_by_max_concurrency(tmp_path):
    store, _ = harness.run(RunConfig(suite="atr", units=1, out=tmp_path / "r", workers=3, max_concurrency=2),
                           executor=ProcessExecutor(3, start_method="fork"))
    assert store.manifest().executor["workers"] == 2


def test_a_provider_limit_below_the_workers_is_refused_before_anything_is_written(tmp_path):
    cfg = RunConfig(suite="atr", units=1, out=tmp_path / "r", workers=2, models=["mock/echo"],
                    provider_limits={"mock": 1})
    with pytest.raises(ConfigError, match="--provider-limit mock=1: below --workers 2"):
        harness.run(cfg)
    assert not (tmp_path / "r").exists()


def test_workers_are_for_the_local_executor():
    with pytest.raises(ConfigError, match="--workers is for the local executor"):
        harness.executor_for(RunConfig(suite="atr", executor="ray", workers=2))


def test_model_run_usage_journal_and_bounds_across_workers(tmp_path):
    limit = 3  # split 2 + 1 between the workers: never above 3 in flight
    with LoopbackServer(latency=0.02, agent=finish_or_send).in_thread() as srv:
        cfg = RunConfig(suite="atr", models=["hosted_vllm/m"], variants=["atr"], units=2, api_base=srv.url,
                        no_cache=True, max_concurrency=limit, out=tmp_path / "two", workers=2)
        store, two = harness.run(cfg)  # the server's thread is running: the workers are spawned
        peak, hits = srv.stats.peak_in_flight, srv.stats.requests
        srv.reset_stats()
        harness.run(cfg.model_copy(update={"out": tmp_path / "lim", "max_concurrency": 8,
                                           "provider_limits": {"hosted_vllm": 2}}))
        provider_peak = srv.stats.peak_in_flight
        srv.reset_stats()
        lstore, one = harness.run(cfg.model_copy(update={"out": tmp_path / "one", "workers": 1}))
        local_hits = srv.stats.requests
    m = store.manifest()
    assert m.executor["start"] == "spawn" and m.executor["workers"] == 2
    assert 1 <= peak <= limit and 1 <= provider_peak <= 2
    assert two.to_json_dict() == one.to_json_dict() and tree(tmp_path / "two") == tree(tmp_path / "one")
    assert m.usage["roles"]["agent"]["calls"] == hits == local_hits
    # The same counts; streamed calls' wall times (first token, decoding) differ from run to run.
    assert without_timings(m.usage) == without_timings(lstore.manifest().usage)
    journal = (tmp_path / "two" / "usage.jsonl").read_text().splitlines()  # both workers appended to it
    assert len(journal) == hits

    def counts(lines: list[str]) -> list[str]:
        return sorted(json.dumps(without_timings(json.loads(line)), sort_keys=True) for line in lines)

    assert counts(journal) == counts((tmp_path / "one" / "usage.jsonl").read_text().splitlines())
    assert all(json.loads(line)["role"] == "agent" for line in journal)  # whole lines, never interleaved


def test_a_suite_error_in_a_worker_stops_the_run_as_it_would_locally(tmp_path, monkeypatch):
    atr = type(registry.load("atr"))
    real = atr.run_cell

    async def run_cell(self, ctx):
        if ctx.cell.agent == "ref:asker":
            raise RuntimeError("boom in the suite")
        return await real(self, ctx)

    monkeypatch.setattr(atr, "run_cell", run_cell)  # a forked worker inherits the patch
    with pytest.raises(RuntimeError, match="boom in the suite") as info:
        harness.run(RunConfig(suite="atr", units=1, out=tmp_path / "r", workers=2),
                    executor=ProcessExecutor(2, start_method="fork"))
    assert any("in a worker process" in n for n in getattr(info.value, "__notes__", []))
    assert not list((tmp_path / "r").glob("cells/ref:asker*/result.json"))


def test_a_dead_worker_stops_the_run_and_the_folder_resumes_to_the_same_scorecard(tmp_path, monkeypatch):
    atr = type(registry.load("atr"))
    real = atr.run_cell

    async def run_cell(self, ctx):
        if ctx.cell.agent == "ref:asker":
            os._exit(3)  # the process dies mid-cell, no cleanup
        return await real(self, ctx)

    monkeypatch.setattr(atr, "run_cell", run_cell)
    cfg = RunConfig(suite="atr", units=2, out=tmp_path / "r", workers=2)
    # RunInterrupted: the command exits 1 (the run could not finish), not 2 (bad input)
    with pytest.raises(RunInterrupted, match=r"worker process \d \(pid \d+\) died .*exit code 3.*--resume"):
        harness.run(cfg, executor=ProcessExecutor(2, start_method="fork"))
    assert not list((tmp_path / "r").glob("cells/ref:asker*/result.json"))
    monkeypatch.setattr(atr, "run_cell", real)
    _, resumed = harness.run(cfg.model_copy(update={"resume": True}))
    _, clean = harness.run(RunConfig(suite="atr", units=2, out=tmp_path / "clean"))
    assert resumed.to_json_dict() == clean.to_json_dict()
    assert tree(tmp_path / "r") == tree(tmp_path / "clean")


def children(pid: int) -> set[int]:
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.add(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the worker processes")
@pytest.mark.parametrize("how", ["kill -9 of the driver", "Ctrl-C"])
def test_a_stopped_driver_ends_its_workers_and_the_run_resumes(how, tmp_path):
    run = tmp_path / "run"
    args = [sys.executable, "-m", "longview", "run", "prefs", "--units", "1", "--workers", "2", "--out", str(run)]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    deadline = time.monotonic() + 120
    try:
        while not list(run.glob("cells/*/result.json")):
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
            assert time.monotonic() < deadline, "no cell finished within 120 s"
            time.sleep(0.02)
        workers = children(proc.pid)
        if how == "Ctrl-C":  # the terminal signals the whole process group
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(60)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    assert len(workers) == 2
    if how == "Ctrl-C":
        assert proc.returncode != 0 and "Traceback" not in stderr, stderr[-2000:]
    deadline = time.monotonic() + 30
    while any(alive(w) for w in workers):  # each sees its pipe close and leaves
        assert time.monotonic() < deadline, "worker processes outlived their driver"
        time.sleep(0.05)
    planned = len(json.loads((run / "manifest.json").read_text())["config"]["cells"])
    assert len(list(run.glob("cells/*/result.json"))) < planned, "the stop should land mid-run"
    r = subprocess.run([*args, "--resume"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    harness.run(RunConfig(suite="prefs", units=1, out=tmp_path / "clean"))
    assert card(run) == card(tmp_path / "clean")
    assert tree(run) == tree(tmp_path / "clean")


def test_usage_counts_every_call_a_dead_worker_made(tmp_path, monkeypatch):
    atr = type(registry.load("atr"))
    real = atr.run_cell

    async def run_cell(self, ctx):
        result = await real(self, ctx)  # every model call of the cell is made...
        if ctx.cell.unit == sorted(ctx.dataset.unit_ids())[0]:
            deadline = time.monotonic() + 60  # (once the other cell is done: no call is in flight anywhere)
            while not list(ctx.folder.parent.glob("*/result.json")) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            os._exit(3)  # ...then the process dies before it returns the result
        return result

    monkeypatch.setattr(atr, "run_cell", run_cell)
    with LoopbackServer(latency=0.0, agent=finish_or_send).in_thread() as srv:
        cfg = RunConfig(suite="atr", models=["hosted_vllm/m"], variants=["atr"], units=2, api_base=srv.url,
                        no_cache=True, out=tmp_path / "r", workers=2)
        with pytest.raises(LongviewError, match="died"):
            harness.run(cfg, executor=ProcessExecutor(2, start_method="fork"))
        calls = srv.stats.requests
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert calls > 0 and m["usage"]["roles"]["agent"]["calls"] == calls  # the dead worker's calls too
