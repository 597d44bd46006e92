"""A whole ATR run against a local OpenAI-compatible server that fails before it succeeds, and one
model that never succeeds: retried calls complete; the dead model's cells abort with their reason
while the rest of the run completes."""

from __future__ import annotations

import time
from collections import Counter

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.testing.loopback import Fault, LoopbackServer, finish_or_send


def flaky_then_fine_and_dead(hits: Counter):
    """Answers 429 then 500 to the first two requests of model `flaky`, always 503 to `dead`."""

    def plan(index: int, body: dict) -> Fault | None:
        model = body["model"]
        hits[model] += 1
        if model == "dead":
            return Fault.UNAVAILABLE
        if model == "flaky" and hits[model] <= 2:
            return Fault.RATE_LIMIT if hits[model] == 1 else Fault.SERVER_ERROR
        return None

    return plan


def test_retries_then_completes_and_dead_model_aborts_alone(episodes, tmp_path):
    t0 = time.monotonic()
    hits: Counter = Counter()
    with LoopbackServer(agent=finish_or_send, faults=flaky_then_fine_and_dead(hits), cached_share=0.6).in_thread() as srv:
        opts = RunConfig(suite="atr",
            dataset=str(episodes), agents=["ref:oracle"], models=["hosted_vllm/flaky", "hosted_vllm/dead"],
            variants=["oracle_target"], api_base=srv.url, out=tmp_path / "run", no_cache=True,
            max_attempts=3, retry_base_delay=0.01, units=1, max_concurrency=1,
        )
        store, sc = harness.run(opts)
    assert time.monotonic() - t0 < 60
    rows = {r.agent: r for r in sc.rows}
    flaky, dead, oracle = rows["hosted_vllm/flaky"], rows["hosted_vllm/dead"], rows["ref:oracle"]
    assert flaky.n == 1 and flaky.n_aborted == 0 and flaky.metrics["tsacc"] is not None
    assert hits["flaky"] >= 3  # two failures, then every session's calls
    assert dead.n_aborted == 1 and dead.n == 0 and dead.metrics["tsacc"] is None
    reason = next(iter(dead.abort_reasons.values()))
    assert "503" in reason and "3" in reason
    assert hits["dead"] == 3  # bounded: max_attempts, then the cell stops (one session in flight)
    assert oracle.metrics["tsacc"] == 1.0
    usage = store.manifest().usage
    assert usage["roles"]["agent"]["calls"] >= 1 and usage["roles"]["agent"]["cached_tokens"] > 0
