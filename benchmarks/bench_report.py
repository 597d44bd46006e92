"""Time `longview report` on a full reference `atr` run and measure the file it writes.

Goal (issue 12): under 10 s and under 20 MB for a full reference run of the built-in cohort.
The run is made first in a temporary folder (not timed) unless --run names an existing one;
--all-variants runs every reference agent on every main variant (about three times the sessions)
as a stress case. Prints per repetition and as medians: load seconds (scorecard, manifest, every
transcript, session outcomes), render seconds (HTML with compressed transcripts), file size.

Run: python benchmarks/bench_report.py [--repeat 3] [--run runs/a] [--all-variants]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.report.build import auto_comparisons, load_runs, write_report

MAIN_VARIANTS = ["default", "atr", "always_ask", "oracle_target"]
GOAL_S, GOAL_MB = 10.0, 20.0


def make_run(root: Path, all_variants: bool) -> Path:
    out = root / "run"
    cfg = RunConfig(suite="atr", agents=["reference"], variants=MAIN_VARIANTS if all_variants else [], out=out,
                    force=True)
    t0 = time.perf_counter()
    harness.run(cfg)
    print(f"made the run in {time.perf_counter() - t0:.1f} s: {out}")
    return out


def one(run: Path, target: Path) -> dict:
    t0 = time.perf_counter()
    runs = load_runs([run])
    t1 = time.perf_counter()
    write_report(runs, target, comparisons=auto_comparisons(runs))
    t2 = time.perf_counter()
    return {"load_s": t1 - t0, "render_s": t2 - t1, "total_s": t2 - t0, "mb": target.stat().st_size / 1e6,
            "sessions": sum(len(r.sessions) for r in runs), "run_mb": sum(f.stat().st_size for f in run.rglob("*") if f.is_file()) / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--run", type=Path, default=None, help="An existing run directory (default: make a reference run).")
    ap.add_argument("--all-variants", action="store_true", help="Every reference agent on every main variant.")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = a.run or make_run(Path(tmp), a.all_variants)
        results = [one(run, Path(tmp) / f"report{i}.html") for i in range(a.repeat)]
    for i, r in enumerate(results):
        print(f"report {i}: {r['total_s']:.2f} s (load {r['load_s']:.2f} s, render {r['render_s']:.2f} s), "
              f"{r['mb']:.1f} MB for {r['sessions']} sessions ({r['run_mb']:.1f} MB of run directory)")
    med = statistics.median(r["total_s"] for r in results)
    mb = results[0]["mb"]
    verdict = "within" if med < GOAL_S and mb < GOAL_MB else "OVER"
    print(f"median {med:.2f} s, {mb:.1f} MB: {verdict} the goal (< {GOAL_S:.0f} s, < {GOAL_MB:.0f} MB)")


if __name__ == "__main__":
    main()
