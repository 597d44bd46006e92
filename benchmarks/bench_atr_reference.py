"""Time the full reference run of `atr` on the built-in cohort.

Reports, per repetition and as medians: wall seconds, sessions per second, and harness time per
agent turn (wall time divided by assistant turns; reference agents are scripted, so this is the
framework's own cost), plus the same from CPU time (user + system of this process and its worker
processes), which is the steadier number on a shared machine and does not shrink with more workers.
Cells run in ``--workers`` processes (default: one per CPU, as ``longview run atr --workers N``),
and each such run is followed by a single-process one, so the output also gives the ratio of runs
made side by side (``--no-single`` skips them; ``--workers 1`` measures the single-process cost).
The run folders go under ``--dir`` (default: the current directory, as ``longview run``), and the
output gives the cost of creating one file there (see benchdir.py: on these machines it varies
20x within minutes).
Run: python benchmarks/bench_atr_reference.py [--repeat 3] [--personas N] [--workers N] [--no-single] [--dir PATH]

These machines' speed swings by up to 2x within an hour, so compare two codes side by side:
``bench_baseline.py --rev REV`` runs an older revision and this checkout alternately and prints the
ratio (a figure written down on another day does not carry over; a ratio does), or count
instructions (``valgrind --tool=callgrind python -c 'run one config'``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from benchdir import add_dir_option, file_creation_ms

from longview.harness.options import RunConfig
from longview.harness.run import run
from longview.kernel.trace import iter_trace


def cpu_s() -> float:
    """User + system seconds of this process and of its finished (joined) worker processes."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def one(personas: int | None, concurrency: int, workers: int, where: str | None) -> dict:
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        cfg = RunConfig(suite="atr", out=Path(tmp) / "run", units=personas, max_concurrency=concurrency, force=True,
                        workers=workers)
        t0, c0 = time.perf_counter(), cpu_s()
        store, sc = run(cfg)
        wall, cpu = time.perf_counter() - t0, cpu_s() - c0
        sessions = turns = 0
        for f in (store.root / "cells").glob("*/*.jsonl"):
            sessions += 1
            turns += sum(1 for e in iter_trace(f) if e.type == "assistant_turn")
    return {
        "wall_s": wall,
        "sessions": sessions,
        "turns": turns,
        "sessions_per_s": sessions / wall,
        "ms_per_turn": 1000 * wall / max(turns, 1),
        "cpu_s": cpu,
        "cpu_ms_per_turn": 1000 * cpu / max(turns, 1),
        "tsacc": {f"{r.agent}/{r.variant}": r.metrics["tsacc"] for r in sc.rows},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--personas", type=int, default=None)
    ap.add_argument("--max-concurrency", type=int, default=4)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes that run cells (default: one per CPU)")
    add_dir_option(ap)
    ap.add_argument("--no-single", action="store_true",
                    help="skip the single-process runs that are otherwise alternated with the workers' runs")
    a = ap.parse_args()
    # With workers, one-process runs alternate with theirs: this machine's speed drifts, and the
    # ratio of runs made side by side is the steady number.
    single = a.workers > 1 and not a.no_single
    fs_ms = file_creation_ms(a.dir)
    runs, ones = [], []
    for _ in range(a.repeat):
        runs.append(one(a.personas, a.max_concurrency, a.workers, a.dir))
        if single:
            ones.append(one(a.personas, a.max_concurrency, 1, a.dir))
    for i, r in enumerate(runs):
        print(f"run {i}: {r['wall_s']:.2f} s, {r['sessions']} sessions, {r['turns']} agent turns, "
              f"{r['sessions_per_s']:.1f} sessions/s, {r['ms_per_turn']:.2f} ms/turn "
              f"(CPU {r['cpu_s']:.2f} s, {r['cpu_ms_per_turn']:.2f} ms/turn)"
              + (f"; one process: {ones[i]['ms_per_turn']:.2f} ms/turn" if single else ""))
    keys = ("wall_s", "sessions_per_s", "ms_per_turn", "cpu_s", "cpu_ms_per_turn")
    med = {k: statistics.median(r[k] for r in runs) for k in keys}
    out: dict = {"median": med, "repeat": a.repeat, "workers": a.workers, "tsacc": runs[-1]["tsacc"],
                 "dir": os.path.abspath(a.dir), "file_creation_ms": round(fs_ms, 3)}
    if single:
        out["single_process_median"] = {k: statistics.median(r[k] for r in ones) for k in keys}
        out["wall_ratio_to_single"] = statistics.median(r["wall_s"] / o["wall_s"] for r, o in zip(runs, ones, strict=True))
    print(json.dumps(out, indent=2))

if __name__ == "__main__":
    main()
