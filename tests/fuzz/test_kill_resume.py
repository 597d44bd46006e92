"""`kill -9` in the middle of a model run against a local OpenAI-compatible server, then
`--resume`: every cell finishes exactly once, and the killed invocation's model calls are still in
the usage totals (journaled per call), at most the calls in flight at the kill missing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from fuzzkit import SUITES, invoke, sample

from longview.testing.loopback import LoopbackServer, finish_or_send

CONCURRENCY = 2  # cells in flight; one more unit is run, so a cell is still queued when the first finishes


@pytest.mark.parametrize("suite", SUITES)
def test_kill_9_then_resume_loses_no_cell_and_no_usage(suite, tmp_path):
    data = sample(suite, tmp_path / "data")
    if data is None:
        pytest.skip(f"suite {suite} provides no sample dataset")
    run = tmp_path / "run"
    args = ["run", suite, "--dataset", data, "--out", str(run), "--model", "hosted_vllm/m",
            "--units", str(CONCURRENCY + 1), "--max-turns", "3", "--no-cache", "--max-concurrency", str(CONCURRENCY),
            "--max-attempts", "1"]
    env = {**os.environ, "LONGVIEW_CACHE_DIR": str(tmp_path / "cache")}
    with LoopbackServer(latency=0.04, agent=finish_or_send).in_thread() as srv:
        args += ["--api-base", srv.url]
        proc = subprocess.Popen([sys.executable, "-c", "from longview.cli import main; main()", *args], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp_path)
        deadline = time.monotonic() + 60
        try:
            while not list(run.glob("cells/*/result.json")):
                assert proc.poll() is None, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
                assert time.monotonic() < deadline, "no cell finished within 60 s"
                time.sleep(0.01)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        done_at_kill = len(list(run.glob("cells/*/result.json")))
        planned = len(json.loads((run / "manifest.json").read_text())["config"]["cells"])
        assert 0 < done_at_kill < planned, "the kill should land mid-run"
        journaled = len((run / "usage.jsonl").read_text().splitlines())
        assert journaled > 0  # the killed invocation's calls are on disk

        r = invoke([*args, "--resume"], tmp_path)
        assert r.code == 0, r.text[-2000:]
        answered = srv.stats.answered

    card = json.loads((run / "scorecard.json").read_text())
    assert card["run"]["cells"] == {"planned": planned, "finished": planned, "aborted": 0, "partial": False}
    assert len(list(run.glob("cells/*/result.json"))) == planned  # each cell once
    usage = json.loads((run / "manifest.json").read_text())["usage"]
    recorded = usage["total"]["calls"]
    # Every answered call is counted, except those answered but not yet journaled at the kill.
    assert answered - CONCURRENCY <= recorded <= answered, (answered, recorded)
