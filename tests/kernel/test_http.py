"""The lean HTTP/1.1 client of the OpenAI-compatible backend, against scripted raw servers:
framing (length, chunked, close-delimited, gzip), keep-alive reuse, a stale kept-alive connection
retried once, failures as httpx's exception classes, and proxied endpoints left to httpx."""

from __future__ import annotations

import asyncio
import gzip
import json

import httpx
import pytest

from longview.kernel.agent import Message
from longview.kernel.models import GenParams, ModelCallFailed, RetryPolicy, make_client
from longview.kernel.models.http import LeanClient, proxied
from longview.kernel.models.openai_compat import EndpointPool, aclose_all

OK_BODY = {"choices": [{"message": {"role": "assistant", "content": "hi"}}], "usage": {"prompt_tokens": 1}}


class RawServer:
    """Reads each request (head + Content-Length body) and writes ``reply(n, request)`` bytes;
    ``None`` closes the connection without answering."""

    def __init__(self, reply):
        self.reply = reply
        self.requests: list[tuple[str, bytes]] = []
        self.connections = 0

    async def __aenter__(self):
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    async def __aexit__(self, *exc):
        self.server.close()

    async def _serve(self, reader, writer):
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                body = await reader.readexactly(length)
                self.requests.append((head.decode("latin-1"), body))
                out = self.reply(len(self.requests) - 1, head.decode("latin-1"))
                if out is None:
                    break
                writer.write(out)
                await writer.drain()
                if b"Connection: close" in out:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def http_response(body: bytes, *extra: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", *extra]
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in extra):
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def chunked(body: bytes) -> bytes:
    mid = len(body) // 2
    parts = [body[:mid], body[mid:]]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


async def test_posts_json_and_reuses_the_connection():
    data = json.dumps(OK_BODY).encode()
    async with RawServer(lambda n, h: http_response(data)) as srv:
        client = LeanClient(srv.url)
        for _ in range(3):
            r = await client.post(f"{srv.url}/chat/completions", json={"x": "é"}, headers={"Authorization": "Bearer k"})
            assert r.status_code == 200 and r.json() == OK_BODY and r.headers.get("Content-Type") == "application/json"
        head, body = srv.requests[0]
        assert head.startswith("POST /v1/chat/completions HTTP/1.1\r\n") and "Authorization: Bearer k" in head
        assert json.loads(body) == {"x": "é"}
        assert srv.connections == 1 and client.connections_opened == 1
        await client.aclose()


@pytest.mark.parametrize("framing", ["chunked", "gzip", "close"])
async def test_response_framings(framing):
    data = json.dumps(OK_BODY).encode()
    replies = {
        "chunked": lambda n, h: http_response(chunked(data), "Transfer-Encoding: chunked"),
        "gzip": lambda n, h: http_response(gzip.compress(data), "Content-Encoding: gzip"),
        "close": lambda n, h: (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n") + data,
    }
    async with RawServer(replies[framing]) as srv:
        client = LeanClient(srv.url)
        for _ in range(2):
            assert (await client.post(f"{srv.url}/chat/completions", json={})).json() == OK_BODY
        assert srv.connections == (2 if framing == "close" else 1)
        await client.aclose()


async def test_a_stale_kept_alive_connection_is_retried_once_on_a_new_one():
    data = json.dumps(OK_BODY).encode()
    # The first connection answers once, then closes when the next request arrives (an idle
    # timeout race): the request never got an answer, so it is resent on a fresh connection.
    async with RawServer(lambda n, h: None if n == 1 else http_response(data)) as srv:
        client = LeanClient(srv.url)
        await client.post(f"{srv.url}/chat/completions", json={})
        r = await client.post(f"{srv.url}/chat/completions", json={})
        assert r.status_code == 200 and srv.connections == 2 and len(srv.requests) == 3
        await client.aclose()


async def test_failures_are_httpx_exceptions():
    async with RawServer(lambda n, h: None) as srv:  # closes without answering, every time
        with pytest.raises(httpx.RemoteProtocolError):
            await LeanClient(srv.url).post(f"{srv.url}/chat/completions", json={})
    truncated = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 50\r\n\r\n{\"short"
    async with RawServer(lambda n, h: truncated) as srv:
        with pytest.raises(httpx.RemoteProtocolError):
            await LeanClient(srv.url).post(f"{srv.url}/chat/completions", json={})
    with pytest.raises(httpx.ConnectError):
        await LeanClient("http://127.0.0.1:1/v1").post("http://127.0.0.1:1/v1/x", json={})
    with pytest.raises(httpx.UnsupportedProtocol):
        LeanClient("ftp://example.org/v1")


async def test_read_timeout():
    async def hang(reader, writer):
        await asyncio.sleep(5)

    server = await asyncio.start_server(hang, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
    with pytest.raises(httpx.ReadTimeout):
        await LeanClient(url).post(f"{url}/x", json={}, timeout=httpx.Timeout(0.05, connect=1.0))
    server.close()


async def test_model_client_maps_statuses_and_retries_through_the_lean_client():
    data = json.dumps(OK_BODY).encode()
    err = json.dumps({"error": {"message": "slow down"}}).encode()
    script = {0: http_response(err, "Retry-After: 0", status="429 Too Many Requests")}
    async with RawServer(lambda n, h: script.get(n, http_response(data))) as srv:
        async def no_sleep(_):
            return None

        client = make_client("hosted_vllm/x", api_base=srv.url, retry=RetryPolicy(max_attempts=3, sleep=no_sleep))
        turn = await client.complete("s", [Message(role="user", content="hi")], [], GenParams())
        assert turn.text == "hi" and len(srv.requests) == 2
        bad = make_client("hosted_vllm/x", api_base=srv.url.replace("http", "ftp"),
                          retry=RetryPolicy(max_attempts=3, sleep=no_sleep))
        with pytest.raises(ModelCallFailed, match="unsupported URL"):
            await bad.complete("s", [Message(role="user", content="hi")], [], GenParams())
        await aclose_all()


def test_proxied_endpoints_use_httpx(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert proxied("https://api.openai.com/v1")
    assert not proxied("http://127.0.0.1:8000/v1") and not proxied("http://localhost:8000/v1")
    assert not EndpointPool("https://api.openai.com/v1", 4).lean
    monkeypatch.delenv("HTTPS_PROXY")
    # HTTPS providers always go through httpx (the network dominates there); local plain-http
    # servers get the lean client unless it is switched off.
    assert not EndpointPool("https://api.openai.com/v1", 4).lean
    assert EndpointPool("http://127.0.0.1:8000/v1", 4).lean
    monkeypatch.setenv("LONGVIEW_HTTP_CLIENT", "httpx")
    assert not EndpointPool("http://127.0.0.1:8000/v1", 4).lean
