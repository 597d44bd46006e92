"""Each suite's offline reference run with its cells in one process and in ``--workers N``
processes, alternated so both see the same machine: wall seconds per run, the ratio, and whether
the two run folders are byte-identical (they must be).

Run: python benchmarks/bench_workers.py [--suites atr,prefs,intents,tempo] [--workers 2] [--repeat 2] [--dir PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchdir import add_dir_option

from longview.harness.options import RunConfig
from longview.harness.run import run


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "cells").rglob("*")) if p.is_file()}


def timed(suite: str, workers: int, out: Path) -> float:
    t0 = time.perf_counter()
    run(RunConfig(suite=suite, out=out, force=True, workers=workers))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suites", default="atr,prefs,intents,tempo")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeat", type=int, default=2)
    add_dir_option(ap)
    a = ap.parse_args()
    print(f"{'suite':>8} {'1 process s':>12} {f'{a.workers} workers s':>12} {'ratio':>6} same-folder")
    for suite in a.suites.split(","):
        one, many = [], []
        with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
            for _ in range(a.repeat):
                one.append(timed(suite, 1, Path(tmp) / "one"))
                many.append(timed(suite, a.workers, Path(tmp) / "many"))
            same = files(Path(tmp) / "one") == files(Path(tmp) / "many")
        m1, mn = statistics.median(one), statistics.median(many)
        print(f"{suite:>8} {m1:>12.2f} {mn:>12.2f} {mn / m1:>6.2f} {same}")


if __name__ == "__main__":
    main()
