"""Time the full offline reference run of `prefs` (every reference agent at its default memory
systems, 4 built-in users) and check the done-when orderings.

Reports per repetition and as medians: wall seconds, CPU seconds of this process, sessions, agent
turns, and harness milliseconds per agent turn (wall / turns: reference agents are scripted, so
this is the framework's own cost). Run: python benchmarks/bench_prefs.py [--repeat 3] [--no-trace]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from longview.harness.options import RunConfig
from longview.harness.run import run


def one(trace: bool, concurrency: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = RunConfig(suite="prefs", out=Path(tmp) / "run", force=True, max_concurrency=concurrency,
                        suite_options={"trace": trace})
        t0, c0 = time.perf_counter(), time.process_time()
        _, sc = run(cfg)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    turns = sum(r.extra["agent_turns"] for r in sc.rows)
    sessions = sum(r.extra["counts"]["probes"] for r in sc.rows) + 99 * sum(r.n for r in sc.rows)
    return {"wall_s": wall, "cpu_s": cpu, "turns": turns, "sessions": sessions,
            "ms_per_turn": 1000 * wall / max(turns, 1), "sc": sc}


def checks(sc) -> list[tuple[str, bool]]:
    m = {(r.agent, r.variant): r.metrics for r in sc.rows}
    g = lambda a, v, k: m[(a, v)][k]  # noqa: E731
    r = {v: g("ref:reader", v, "psa") for v in ("none", "rag", "file", "oracle")}
    return [
        (f"ref:oracle PSA {g('ref:oracle', 'oracle', 'psa'):.3f} >= 0.95", g("ref:oracle", "oracle", "psa") >= 0.95),
        (f"ref:habits PSA {g('ref:habits', 'none', 'psa'):.3f} <= 0.60", g("ref:habits", "none", "psa") <= 0.60),
        ("ref:recency carry-over > ref:contextual", g("ref:recency", "none", "carry_over") > g("ref:contextual", "none", "carry_over")),
        ("ref:recency PET > ref:habits", g("ref:recency", "none", "pet") > g("ref:habits", "none", "pet")),
        ("ref:contextual CS > ref:recency", g("ref:contextual", "none", "cs") > g("ref:recency", "none", "cs")),
        ("ref:reader PSA none <= rag < file <= oracle: " + ", ".join(f"{k} {v:.3f}" for k, v in r.items()),
         r["none"] <= r["rag"] < r["file"] <= r["oracle"]),
        (f"ref:ledger/file PSA {g('ref:ledger', 'file', 'psa'):.3f} = ref:oracle (the ceiling through memory)",
         g("ref:ledger", "file", "psa") == g("ref:oracle", "oracle", "psa")),
        (f"ref:reader/none carry-over {g('ref:reader', 'none', 'carry_over'):.2f} <= 0.20, CS + carry-over < 0.9",
         g("ref:reader", "none", "carry_over") <= 0.20 and g("ref:reader", "none", "cs") + g("ref:reader", "none", "carry_over") < 0.9),
        (f"leakage audit {sc.extra['leakage_total']} leaks", sc.extra["leakage_total"] == 0),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-trace", action="store_true", help="Skip writing per-session transcripts.")
    ap.add_argument("--max-concurrency", type=int, default=4)
    a = ap.parse_args()
    runs = [one(not a.no_trace, a.max_concurrency) for _ in range(a.repeat)]
    for i, r in enumerate(runs):
        print(f"run {i}: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, {r['sessions']} sessions, "
              f"{r['turns']} agent turns, {r['ms_per_turn']:.2f} ms/turn")
    print(f"median: {statistics.median(r['wall_s'] for r in runs):.1f} s wall, "
          f"{statistics.median(r['cpu_s'] for r in runs):.1f} s CPU, "
          f"{statistics.median(r['ms_per_turn'] for r in runs):.2f} ms/turn (goal: < 60 s wall on 2 cores)")
    for text, ok in checks(runs[-1]["sc"]):
        print(("PASS " if ok else "FAIL ") + text)


if __name__ == "__main__":
    main()
