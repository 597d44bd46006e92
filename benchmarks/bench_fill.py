"""Does a run keep the concurrency it asks for? Per suite, the share of ``--max-concurrency`` in flight.

For each suite: ask ``--dry-run``'s arithmetic (:func:`longview.harness.flight.flight`) for the
``--trials`` that fill the limit, then run ``longview run SUITE --model hosted_vllm/loopback`` with
them against a loopback server in its own process (``--latency``, default 1 s; the scripted agent
``finish_or_send`` ends each session at once, so sessions are many and short), sampling the server's
requests in flight every 0.1 s. Reports the time-weighted mean in flight from the first request to
the last, as a share of the limit, and the peak. Goal: >= 0.9 of 256 for every suite.

Run: python benchmarks/bench_fill.py [--limit 256] [--latency 1] [--suites atr,prefs,intents,tempo]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from bench_concurrency import Server

from longview.harness.flight import flight
from longview.harness.options import RunConfig
from longview.harness.plan import prepare

OPTIONS = {"prefs": ["-S", "trace=false"]}


def sample(url: str, stop: threading.Event, out: list[tuple[float, int]]) -> None:
    with httpx.Client() as http:
        while not stop.is_set():
            try:
                out.append((time.monotonic(), http.get(f"{url}/stats").json()["in_flight"]))
            except httpx.HTTPError:
                pass
            time.sleep(0.1)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _schedstat(pid: int) -> tuple[float, float] | None:
    """(seconds on a CPU, seconds runnable but waiting for one) of every thread of ``pid`` (Linux)."""
    run = wait = 0.0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            fields = (task / "schedstat").read_text().split()
            run, wait = run + int(fields[0]) / 1e9, wait + int(fields[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None
    return run, wait


def one(suite: str, limit: int, latency: float, workers: int, extra: list[str], trials: int | None = None) -> dict:
    opts = dict(kv.split("=", 1) for kv in extra[1::2]) if extra else {}
    f = flight(prepare(RunConfig(suite=suite, models=["hosted_vllm/loopback"], agents=[], max_concurrency=limit,
                                 trials=trials or 1,
                                 suite_options={**({"trace": False} if suite == "prefs" else {}), **opts}),
                       dry_run=True))
    trials = trials or f.trials_to_fill or 1
    f = flight(prepare(RunConfig(suite=suite, models=["hosted_vllm/loopback"], agents=[], max_concurrency=limit,
                                 trials=trials,
                                 suite_options={**({"trace": False} if suite == "prefs" else {}), **opts}),
                       dry_run=True))
    planned = round(f.share, 3)  # what the dry run says this plan keeps, as a share of the limit
    server = Server(latency, agent="finish_or_send")
    samples: list[tuple[float, int]] = []
    stop = threading.Event()
    t = threading.Thread(target=sample, args=(server.url, stop, samples), daemon=True)
    t.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "longview", "run", suite, "--model", "hosted_vllm/loopback", "--api-base",
                   server.url, "--max-concurrency", str(limit), "--trials", str(trials), "--no-cache",
                   "--out", str(Path(tmp) / "run"), "--allow-aborts", "--workers", str(workers),
                   *OPTIONS.get(suite, []), *extra]
            load0, cpu0, scpu0 = os.getloadavg()[0], _children_cpu(), server.cpu()
            t0 = time.monotonic()
            with tempfile.TemporaryFile("w+") as err:
                child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, text=True)
                sched = (0.0, 0.0)
                while child.poll() is None:  # the run's CPU and its wait for a CPU, summed over its threads
                    sched = _schedstat(child.pid) or sched
                    time.sleep(0.2)
                err.seek(0)
                proc = subprocess.CompletedProcess(cmd, child.returncode, "", err.read())
            wall = time.monotonic() - t0
            cpu, scpu, load1 = _children_cpu() - cpu0, server.cpu() - scpu0, os.getloadavg()[0]
            calls = server.stats()["requests"]
    finally:
        stop.set()
        t.join(2)
        server.close()
    busy = [(ts, n) for ts, n in samples if n > 0]
    if proc.returncode not in (0, 1) or len(busy) < 2:
        return {"suite": suite, "error": proc.stderr[-500:], "trials": trials}
    start, end = busy[0][0], busy[-1][0]
    window = [(ts, n) for ts, n in samples if start <= ts <= end]
    area = sum((b[0] - a[0]) * a[1] for a, b in zip(window, window[1:], strict=False))
    mean = area / (end - start)
    return {"suite": suite, "trials": trials, "planned_share": planned,
            "mean_in_flight": round(mean, 1), "share": round(mean / limit, 3),
            "peak": max(n for _, n in samples), "busy_s": round(end - start, 1), "wall_s": round(wall, 1),
            "calls": calls, "run_cpu_s": round(cpu, 1), "server_cpu_s": round(scpu, 1),
            "run_ms_per_call": round(1000 * cpu / max(1, calls), 2), "server_ms_per_call": round(1000 * scpu / max(1, calls), 2),
            "load": (round(load0, 1), round(load1, 1)),
            # the run's own CPU time and its time runnable but waiting for a CPU (the machine's other load)
            "on_cpu_s": round(sched[0], 1), "waiting_for_cpu_s": round(sched[1], 1),
            # CPU the run needs to keep `limit` requests in flight at `latency` s each (Little's law), in cores
            "cores_needed": round(limit / latency * (cpu + scpu) / max(1, calls), 2),
            # mean in flight per second of the busy window: ramp-up, steady level and tail
            "series": [round(sum(n for ts, n in window if s <= ts - start < s + 1) / max(1, sum(1 for ts, _ in window if s <= ts - start < s + 1)))
                       for s in range(int(end - start) + 1)]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=256)
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=1, help="longview run --workers")
    ap.add_argument("--suites", default="atr,prefs,intents,tempo")
    ap.add_argument("--json", default=None)
    ap.add_argument("--trials", type=int, default=None, help="instead of the dry run's suggestion")
    ap.add_argument("-S", dest="options", action="append", default=[], help="suite option KEY=VALUE (e.g. repeats=3)")
    args = ap.parse_args()
    rows = []
    for suite in args.suites.split(","):
        r = one(suite.strip(), args.limit, args.latency, args.workers, [x for kv in args.options for x in ("-S", kv)],
                args.trials)
        rows.append(r)
        if "error" in r:
            print(f"{r['suite']:8} error: {r['error']}", flush=True)
            continue
        print(f"{r['suite']:8} {' '.join(args.options)} --trials {r['trials']:3} (the dry run says {r['planned_share']:.2f}): mean in flight {r['mean_in_flight']:6} of {args.limit} "
              f"({r['share']:.2f}), peak {r['peak']}, busy {r['busy_s']} s of {r['wall_s']} s; {r['calls']} calls, CPU per call "
              f"{r['run_ms_per_call']} ms run + {r['server_ms_per_call']} ms server -> {r['cores_needed']} cores to keep "
              f"{args.limit} in flight; the run was on a CPU {r['on_cpu_s']} s and waited for one {r['waiting_for_cpu_s']} s; "
              f"load {r['load'][0]}->{r['load'][1]}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
