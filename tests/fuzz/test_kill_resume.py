"""`kill -9` in the middle of a model run against a local OpenAI-compatible server, then
`--resume`: every cell finishes exactly once, and the killed invocation's model calls are still in
the usage totals (journaled per call), at most the calls in flight at the kill missing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fuzzkit import SUITES, invoke, sample

CONCURRENCY = 2  # cells in flight; one more unit is run, so a cell is still queued when the first finishes


def _completion(tools: list[str]) -> dict:
    pick = next((t for t in ("finish_session", "send_to_user") if t in tools), None)
    message: dict = {"role": "assistant", "content": None if pick else "Done."}
    if pick:
        args = {} if pick == "finish_session" else {"output": "Done."}
        message["tool_calls"] = [{"id": "c1", "type": "function",
                                  "function": {"name": pick, "arguments": json.dumps(args)}}]
    return {"id": "x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2}}


class SlowServer:
    """Answers every request after a short delay, counting the answers it completed."""

    def __init__(self, delay: float = 0.04) -> None:
        self.answered = 0
        self.down = False  # answer 503 to everything
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if outer.down:
                    self.send_response(503)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"{}")
                    return
                time.sleep(delay)
                data = json.dumps(_completion([t["function"]["name"] for t in body.get("tools", [])])).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                except OSError:
                    return  # the client was killed: not answered
                with lock:
                    outer.answered += 1

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


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
    with SlowServer() as srv:
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
        answered = srv.answered

    card = json.loads((run / "scorecard.json").read_text())
    assert card["run"]["cells"] == {"planned": planned, "finished": planned, "aborted": 0, "partial": False}
    assert len(list(run.glob("cells/*/result.json"))) == planned  # each cell once
    usage = json.loads((run / "manifest.json").read_text())["usage"]
    recorded = usage["total"]["calls"]
    # Every answered call is counted, except those answered but not yet journaled at the kill.
    assert answered - CONCURRENCY <= recorded <= answered, (answered, recorded)
