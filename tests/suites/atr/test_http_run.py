"""A whole ATR run against a local OpenAI-compatible server that fails before it succeeds, and one
model that never succeeds: retried calls complete; the dead model's cells abort with their reason
while the rest of the run completes."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from longview.harness import run as harness
from longview.harness.options import RunConfig


def completion(call_name: str, args: dict) -> dict:
    return {
        "id": "x", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function",
                            "function": {"name": call_name, "arguments": json.dumps(args)}}]}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 60}},
    }


class Server:
    """Answers 429 then 500 to the first two requests of model `flaky`, always 503 to `dead`."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model = body["model"]
                n = outer.hits[model] = outer.hits.get(model, 0) + 1
                if model == "dead" or (model == "flaky" and n <= 2):
                    code = 503 if model == "dead" else (429 if n == 1 else 500)
                    self.send_response(code)
                    self.send_header("Retry-After", "0")
                    self.end_headers()
                    self.wfile.write(b'{"error": {"message": "try later"}}')
                    return
                names = [t["function"]["name"] for t in body.get("tools", [])]
                reply = completion("finish_session", {}) if "finish_session" in names else completion(
                    "send_to_user", {"output": "Done."})
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()



def test_retries_then_completes_and_dead_model_aborts_alone(episodes, tmp_path):
    t0 = time.monotonic()
    with Server() as srv:
        opts = RunConfig(suite="atr",
            dataset=str(episodes), agents=["ref:oracle"], models=["hosted_vllm/flaky", "hosted_vllm/dead"],
            variants=["oracle_target"], api_base=srv.url, out=tmp_path / "run", no_cache=True,
            max_attempts=3, retry_base_delay=0.01, units=1, max_concurrency=1,
        )
        store, sc = harness.run(opts)
    assert time.monotonic() - t0 < 60
    rows = {r.agent: r for r in sc.rows}
    flaky, dead, oracle = rows["hosted_vllm/flaky"], rows["hosted_vllm/dead"], rows["ref:oracle"]
    assert flaky.n_personas == 1 and flaky.n_aborted == 0 and flaky.metrics.tsacc is not None
    assert srv.hits["flaky"] >= 3  # two failures, then every session's calls
    assert dead.n_aborted == 1 and dead.n_personas == 0 and dead.metrics.tsacc is None
    reason = next(iter(dead.abort_reasons.values()))
    assert "503" in reason and "3" in reason
    assert srv.hits["dead"] == 3  # bounded: max_attempts, then the cell stops (one session in flight)
    assert oracle.metrics.tsacc == 1.0
    usage = store.manifest().usage
    assert usage["roles"]["agent"]["calls"] >= 1 and usage["roles"]["agent"]["cached_tokens"] > 0
