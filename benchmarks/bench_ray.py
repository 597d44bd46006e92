"""The Ray executor's cost and gain against the local one, on the `atr` reference run.

Reports wall seconds of a local run and of a Ray run (split into start — Ray and the workers
coming up —, cells, stop), sessions per second while cells run, the limiter's round trip per
session slot (acquire + release from the driver), and whether both scorecards are equal.
Run: python benchmarks/bench_ray.py [--personas 10] [--max-concurrency 4] [--address ADDR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.harness.ray_executor import RayExecutor, RemoteSlots


class Timed(RayExecutor):
    """The Ray executor, timing its phases."""

    def start(self, p, store):
        t0 = time.perf_counter()
        info = super().start(p, store)
        self.t_start = time.perf_counter() - t0
        self.t_cells0 = time.perf_counter()
        self.round_trip_ms = asyncio.run(self._round_trip())
        self.t_cells0 = time.perf_counter()
        return info

    async def _round_trip(self, n: int = 200) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            async with RemoteSlots(self.limiter, "bench"):
                pass
        await self.limiter.stats.remote()  # the last release has landed
        await self.limiter.forget.remote("bench", True)
        return 1000 * (time.perf_counter() - t0) / n

    def stop(self):
        self.t_cells = time.perf_counter() - self.t_cells0
        t0 = time.perf_counter()
        super().stop()
        self.t_stop = time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--personas", type=int, default=10)
    ap.add_argument("--max-concurrency", type=int, default=4)
    ap.add_argument("--address", default=None, help="Ray cluster to join; default: a local instance")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = RunConfig(suite="atr", units=a.personas, max_concurrency=a.max_concurrency, out=Path(tmp) / "local")
        t0 = time.perf_counter()
        _, local = harness.run(cfg)
        local_s = time.perf_counter() - t0
        ex = Timed(address=a.address)
        sessions: list[int] = []
        t0 = time.perf_counter()
        _, ray_sc = harness.run(cfg.model_copy(update={"out": Path(tmp) / "ray", "executor": "ray"}), executor=ex,
                                on_start=lambda c, s: sessions.append(s))
        ray_s = time.perf_counter() - t0
    print(json.dumps({
        "personas": a.personas, "max_concurrency": a.max_concurrency, "sessions": sessions[0],
        "local_s": round(local_s, 2), "local_sessions_per_s": round(sessions[0] / local_s, 1),
        "ray_s": round(ray_s, 2), "ray_start_s": round(ex.t_start, 2), "ray_cells_s": round(ex.t_cells, 2),
        "ray_stop_s": round(ex.t_stop, 2), "ray_sessions_per_s_in_cells": round(sessions[0] / ex.t_cells, 1),
        "limiter_round_trip_ms": round(ex.round_trip_ms, 2), "workers": len(ex.cells_by_pid),
        "same_scorecard": local.to_json_dict() == ray_sc.to_json_dict(),
    }, indent=2))


if __name__ == "__main__":
    main()
