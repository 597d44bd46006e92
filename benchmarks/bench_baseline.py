"""This checkout against an older revision, measured side by side on this machine.

These machines' speed drifts by 2x and more within an hour, and a figure written down days ago was
taken on a machine that may since have become slower or faster. A ratio of two codes measured in
alternation, minutes apart, carries over; an absolute figure does not. This script extracts
``src/`` of ``--rev`` (``git archive``, nothing checked out) and runs both codes in subprocesses of
this interpreter, alternately:

* **reference run** (what ``bench_atr_reference.py`` times): the full ``atr`` reference run in one
  process, harness milliseconds per agent turn (wall time / assistant turns in the traces; the
  first run of a process is a warm-up that imports the code). Works with the harness API
  (``longview.harness.run``) and the one before it (``longview.suites.atr.suite.run``).
* **model run** (``--model-calls``): ``longview run atr --model hosted_vllm/loopback`` against a
  zero-latency loopback server (this checkout's ``longview.testing.loopback``), ``--variant
  oracle_target``, at 1 and at ``--trials`` trials. The CPU per model call is the slope between
  the two (start-up, dataset and scoring cancel out), and also the whole process's CPU over calls
  at ``--trials``.

Prints each measurement, medians, and the ratio this/rev of each median.
Run: python benchmarks/bench_baseline.py --rev 2d4226c [--repeat 3] [--model-calls [--trials 8]] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from bench_concurrency import Server
from benchdir import add_dir_option

ROOT = Path(__file__).resolve().parents[1]

# Runs in a subprocess with PYTHONPATH set to one code's src/: times the reference run `repeat + 1`
# times (the first is a warm-up) and prints one JSON line per timed run.
REFERENCE = r"""
import json, sys, tempfile, time
from pathlib import Path
repeat, where = int(sys.argv[1]), sys.argv[2] or None
try:
    from longview.harness.options import RunConfig
    from longview.harness.run import run
    def go(out):
        return run(RunConfig(suite="atr", out=out, max_concurrency=4, force=True))[0].root
except ImportError:  # before the harness: the atr suite ran itself
    from longview.suites.atr import suite as atr
    def go(out):
        return atr.run(atr.RunOptions(out=out, max_concurrency=4, force=True))[0].root
for i in range(repeat + 1):
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        t0 = time.perf_counter()
        root = go(Path(tmp) / "run")
        wall = time.perf_counter() - t0
        turns = sum(json.loads(line).get("type") == "assistant_turn"
                    for f in (root / "cells").glob("*/*.jsonl") for line in f.open(encoding="utf-8") if line.strip())
    if i:
        print(json.dumps({"wall_s": wall, "turns": turns, "ms_per_turn": 1000 * wall / turns}), flush=True)
"""


def extract(rev: str, into: Path) -> Path:
    """``src/`` of ``rev`` from this repository, written under ``into``."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "src"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)  # our own repository's archive
    return into / "src"


def env_for(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src)}


def reference(src: Path, repeat: int, where: str | None) -> list[dict]:
    proc = subprocess.run([sys.executable, "-c", REFERENCE, str(repeat), where or ""], env=env_for(src),
                          capture_output=True, text=True, cwd=tempfile.gettempdir())
    if proc.returncode:
        raise SystemExit(f"reference run with {src} failed:\n{proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def model_run(src: Path, server: Server, trials: int, concurrency: int, where: str | None) -> tuple[float, int]:
    """CPU seconds of one `longview run atr --model` process and the model calls it made."""
    server.reset()
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        cmd = [sys.executable, "-c", "from longview.cli import app; app()", "run", "atr",
               "--model", "hosted_vllm/loopback", "--api-base", server.url, "--variant", "oracle_target",
               "--trials", str(trials), "--max-concurrency", str(concurrency), "--no-cache",
               "--out", f"{tmp}/run", "--force"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, env=env_for(src), capture_output=True, text=True, cwd=tmp)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"model run with {src} failed:\n{proc.stderr[-2000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, server.stats()["requests"]


def per_call(src: Path, server: Server, trials: int, concurrency: int, where: str | None) -> dict:
    cpu1, calls1 = model_run(src, server, 1, concurrency, where)
    cpu, calls = model_run(src, server, trials, concurrency, where)
    return {"calls": calls, "cpu_ms_per_call": 1000 * cpu / calls,
            "marginal_cpu_ms_per_call": 1000 * (cpu - cpu1) / (calls - calls1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", required=True, help="the older revision (any git revision of this repository)")
    ap.add_argument("--repeat", type=int, default=3, help="alternations of the two codes")
    ap.add_argument("--model-calls", action="store_true", help="also compare a model run's CPU per call")
    ap.add_argument("--trials", type=int, default=8, help="trials of the larger model run")
    ap.add_argument("--max-concurrency", type=int, default=16, help="of the model runs")
    add_dir_option(ap)
    ap.add_argument("--json", default=None, help="also write the results here")
    a = ap.parse_args()
    if a.repeat < 1 or a.trials < 2:
        ap.error("--repeat must be at least 1 and --trials at least 2 (the slope needs two run sizes)")
    a.dir = os.path.abspath(a.dir)  # the subprocesses run elsewhere
    with tempfile.TemporaryDirectory() as tmp:
        codes = {"this": ROOT / "src", a.rev: extract(a.rev, Path(tmp))}
        ref: dict[str, list[dict]] = {k: [] for k in codes}
        calls: dict[str, list[dict]] = {k: [] for k in codes}
        server = Server(latency=0) if a.model_calls else None
        try:
            for i in range(a.repeat):
                for name, src in codes.items():
                    ref[name] += reference(src, 1, a.dir)
                    print(f"round {i} {name}: reference {ref[name][-1]['ms_per_turn']:.3f} ms/turn "
                          f"({ref[name][-1]['turns']} turns)", flush=True)
                    if server:
                        calls[name].append(per_call(src, server, a.trials, a.max_concurrency, a.dir))
                        c = calls[name][-1]
                        print(f"round {i} {name}: model run {c['marginal_cpu_ms_per_call']:.3f} ms CPU per call "
                              f"(whole process {c['cpu_ms_per_call']:.3f}, {c['calls']} calls)", flush=True)
        finally:
            if server:
                server.close()
    out: dict = {"rev": a.rev, "repeat": a.repeat}
    for key, rows, field in (("reference_ms_per_turn", ref, "ms_per_turn"),
                             ("model_marginal_cpu_ms_per_call", calls, "marginal_cpu_ms_per_call"),
                             ("model_cpu_ms_per_call", calls, "cpu_ms_per_call")):
        if all(rows.values()):
            med = {name: statistics.median(r[field] for r in rs) for name, rs in rows.items()}
            out[key] = {**med, "ratio_this_to_rev": med["this"] / med[a.rev]}
    print(json.dumps(out, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps({**out, "runs": {"reference": ref, "model": calls}}, indent=2))


if __name__ == "__main__":
    main()
