"""The OpenAI-compatible client against a real local HTTP server: retries on 429/5xx,
gives up with a clear reason, and never leaks the API key into errors or the cache."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from longview.kernel.agent import Message
from longview.kernel.errors import CellAborted
from longview.kernel.models import (
    GenParams,
    ModelCallFailed,
    ResponseCache,
    RetryPolicy,
    UsageLedger,
    make_client,
)

Reply = tuple[int, dict[str, str], dict]
PLANTED = "sk-test-PLANTED"

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_abc",
                        "type": "function",
                        "function": {
                            "name": "find_restaurant",
                            "arguments": '{"city": "Lyon", "party": 2}',
                        },
                    }
                ],
            },
        }
    ],
    "usage": {
        "prompt_tokens": 50,
        "completion_tokens": 12,
        "total_tokens": 62,
        "prompt_tokens_details": {"cached_tokens": 32},
    },
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "find_restaurant",
            "description": "Find a restaurant.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
MESSAGES = [Message(role="user", content="Dinner in Lyon for two?")]


class Seen:
    """What the server received, in order."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.lock = threading.Lock()


@contextmanager
def scripted_server(
    reply: Callable[[int, dict], Reply], max_requests: int, lifetime: float = 10.0
) -> Iterator[tuple[str, Seen]]:
    """An OpenAI-compatible server on 127.0.0.1:<ephemeral> answering ``reply(n, request)``.

    It serves at most ``max_requests`` requests or for ``lifetime`` seconds, then stops by
    itself; leaving the context also stops it.
    """
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server naming)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            request = {"path": self.path, "headers": dict(self.headers), "body": body}
            with seen.lock:
                n = len(seen.requests)
                seen.requests.append(request)
            status, headers, payload = reply(n, request)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:  # keep test output quiet
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request, client_address) -> None:  # a client that gave up: not news
            pass

    server = Server(("127.0.0.1", 0), Handler)
    server.timeout = 0.05
    stop = threading.Event()

    def serve() -> None:
        deadline = time.monotonic() + lifetime
        while (
            not stop.is_set() and time.monotonic() < deadline and len(seen.requests) < max_requests
        ):
            server.handle_request()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        stop.set()
        thread.join(timeout=5)
        server.server_close()


def fast_retry(max_attempts: int = 6, slept: list[float] | None = None) -> RetryPolicy:
    async def sleep(d: float) -> None:
        if slept is not None:
            slept.append(d)

    return RetryPolicy(
        max_attempts=max_attempts,
        base_delay=0.01,
        max_delay=0.05,
        sleep=sleep,
        rng=random.Random(1),
    )


async def test_retries_429_then_500_then_succeeds_with_tool_call():
    def reply(n: int, request: dict) -> Reply:
        if n == 0:
            return 429, {"Retry-After": "0"}, {"error": {"message": "rate limited"}}
        if n == 1:
            return 500, {}, {"error": {"message": "internal error"}}
        return 200, {}, COMPLETION

    slept: list[float] = []
    ledger = UsageLedger()
    with scripted_server(reply, max_requests=3) as (base, seen):
        client = make_client(
            "hosted_vllm/test-model", api_base=base, retry=fast_retry(slept=slept), ledger=ledger
        )
        turn = await client.complete("You help.", MESSAGES, TOOLS, GenParams(temperature=0.0))

    assert len(seen.requests) == 3
    assert slept[0] == 0.0 and 0.01 <= slept[1] <= 0.02  # Retry-After honoured, then backoff
    call = turn.tool_calls[0]
    assert (call.id, call.name, call.arguments) == (
        "call_abc",
        "find_restaurant",
        {"city": "Lyon", "party": 2},
    )
    assert (turn.usage.input_tokens, turn.usage.cached_tokens, turn.usage.output_tokens) == (
        50,
        32,
        12,
    )
    req = seen.requests[-1]
    assert req["path"] == "/v1/chat/completions"
    assert req["body"]["model"] == "test-model" and req["body"]["tools"] == TOOLS
    assert req["body"]["messages"][0] == {"role": "system", "content": "You help."}
    assert req["body"]["temperature"] == 0.0
    assert "Authorization" not in req["headers"]  # no key configured for hosted_vllm
    assert ledger.role("agent").calls == 1 and ledger.role("agent").cached_share == 32 / 50


async def test_persistent_503_gives_up_with_reason():
    with scripted_server(
        lambda n, r: (503, {}, {"error": {"message": "overloaded"}}), max_requests=4
    ) as (base, seen):
        client = make_client(
            "hosted_vllm/test-model", api_base=base, retry=fast_retry(max_attempts=4)
        )
        with pytest.raises(ModelCallFailed) as exc:
            await client.complete(None, MESSAGES, [], GenParams())

    assert len(seen.requests) == 4
    err = exc.value
    assert isinstance(err, CellAborted) and err.attempts == 4 and err.status == 503
    assert "hosted_vllm/test-model" in err.reason and "503" in err.reason
    assert "4 attempt" in err.reason and "overloaded" in err.reason


async def test_bad_request_is_not_retried():
    with scripted_server(
        lambda n, r: (400, {}, {"error": {"message": "context too long"}}), max_requests=1
    ) as (base, seen):
        client = make_client("hosted_vllm/test-model", api_base=base, retry=fast_retry())
        with pytest.raises(ModelCallFailed, match="400.*context too long.*1 attempt"):
            await client.complete(None, MESSAGES, [], GenParams())
    assert len(seen.requests) == 1


async def test_connection_refused_is_retried_then_fails():
    with socket.socket() as s:  # grab a free port, then close it so nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = make_client(
        "hosted_vllm/m", api_base=f"http://127.0.0.1:{port}/v1", retry=fast_retry(max_attempts=2)
    )
    with pytest.raises(ModelCallFailed, match="2 attempt.*connection error"):
        await client.complete(None, MESSAGES, [], GenParams())


async def test_api_key_is_sent_but_never_leaks(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)

    def reply(n: int, request: dict) -> Reply:
        auth = request["headers"].get("Authorization", "")
        if n == 0:  # a hostile error body that echoes the credentials back
            return 401, {}, {"error": {"message": f"invalid key: {auth}"}}
        # ...and a completion whose text echoes them too
        body = json.loads(json.dumps(COMPLETION))
        body["choices"][0]["message"]["content"] = f"you sent {auth}"
        return 200, {}, body

    cache_dir = tmp_path / "cache"
    with scripted_server(reply, max_requests=2) as (base, seen):
        client = make_client(
            "openai/gpt-4o", api_base=base, retry=fast_retry(), cache=ResponseCache(cache_dir)
        )
        with pytest.raises(ModelCallFailed) as exc:
            await client.complete(None, MESSAGES, TOOLS, GenParams())
        await client.complete(None, MESSAGES, TOOLS, GenParams(), trial=1)

    assert [r["headers"]["Authorization"] for r in seen.requests] == [f"Bearer {PLANTED}"] * 2
    err = exc.value
    exc_text = "".join(traceback.format_exception(err)) + str(err) + repr(err) + err.reason
    assert "401" in err.reason and PLANTED not in exc_text
    assert PLANTED not in repr(client)
    files = list(cache_dir.rglob("*"))
    assert any(f.suffix == ".json" for f in files)
    assert all(PLANTED.encode() not in f.read_bytes() for f in files if f.is_file())
