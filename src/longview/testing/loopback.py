"""A loopback OpenAI-compatible server: a stand-in model with a fixed latency, for tests and benchmarks.

It serves ``POST …/chat/completions`` on 127.0.0.1 only, answers after ``latency`` seconds with
what a pluggable *agent* function decides from the request (text, or a tool call), counts requests,
tracks the peak number in flight, and injects faults on demand (429, 500, a hang, a dropped
connection). A request with ``"stream": true`` is answered as server-sent events like llama.cpp's,
vLLM's or OpenAI's (``stream="ignore"`` answers it unstreamed, ``"refuse"`` with a 400, as servers
without streaming do; ``chunk_gap`` puts silence between the pieces). ``strict=True`` refuses, as a
strict chat server does, a request that ends on an assistant message. It is plain asyncio streams with HTTP/1.1 keep-alive, so one process holds thousands
of concurrent connections; every server stops by itself after ``lifetime`` seconds.

In-process (tests)::

    async with LoopbackServer(latency=0.01) as server:
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None)
        ...
        server.stats.peak_in_flight

    with LoopbackServer(agent=my_agent).in_thread() as server:  # for blocking callers
        harness.run(RunConfig(..., api_base=server.url))

As a separate process (benchmarks, ``longview run --api-base``), so its CPU is not the harness's::

    python -m longview.testing.loopback --latency 1 --port 0
    # prints "LISTENING http://127.0.0.1:PORT/v1"; GET /stats, POST /stats/reset; exits at EOF on stdin

Other routes: ``GET /stats`` (the counters as JSON), ``POST /stats/reset``, ``GET /health``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import ssl
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

HOST = "127.0.0.1"
DEFAULT_LIFETIME = 600.0  # seconds; a forgotten server never outlives a test session for long


class Fault(StrEnum):
    """What the server may do instead of answering."""

    RATE_LIMIT = "429"  # HTTP 429 with Retry-After: 0
    SERVER_ERROR = "500"  # HTTP 500
    UNAVAILABLE = "503"  # HTTP 503 with Retry-After: 0
    HANG = "hang"  # never answer (until the hang time passes or the server closes), then drop
    DROP = "drop"  # close the connection without a response


# An agent maps a chat-completions request body to the assistant message to answer with:
# {"content": str | None, "tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]}.
Agent = Callable[[dict[str, Any]], dict[str, Any]]
FaultPlan = Callable[[int, dict[str, Any]], "Fault | None"]


def text_message(text: str) -> dict[str, Any]:
    """An assistant message with text only."""
    return {"content": text}


def tool_call_message(name: str, arguments: dict[str, Any] | None = None, call_id: str = "call_0") -> dict[str, Any]:
    """An assistant message with one tool call."""
    return {
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments or {})}}
        ],
    }


def echo_agent(body: dict[str, Any]) -> dict[str, Any]:
    """Answers every request with text naming the last user message."""
    last: dict[str, Any] = next((m for m in reversed(body.get("messages") or []) if m.get("role") == "user"), {})
    content = last.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return text_message(f"loopback: {str(content or '')[:60]}")


def tool_then_finish(body: dict[str, Any]) -> dict[str, Any]:
    """A short scripted session: the first turn calls the first offered tool not named
    ``finish*`` (no arguments); the next calls a ``finish*`` tool if one is offered, else answers
    with text."""
    tools = [t.get("function", t).get("name", "") for t in body.get("tools") or []]
    turns = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
    finish = next((t for t in tools if t.startswith("finish")), None)
    first = next((t for t in tools if t != finish), None)
    if first and turns == 0:
        return tool_call_message(first, {}, call_id=f"call_{turns}")
    if finish:
        return tool_call_message(finish, {}, call_id=f"call_{turns}")
    return text_message("done")


def finish_or_send(body: dict[str, Any]) -> dict[str, Any]:
    """Ends a session at once: calls ``finish_session`` if offered, else answers the user through
    ``send_to_user`` if offered, else with text."""
    tools = [t.get("function", t).get("name", "") for t in body.get("tools") or []]
    if "finish_session" in tools:
        return tool_call_message("finish_session")
    if "send_to_user" in tools:
        return tool_call_message("send_to_user", {"output": "Done."})
    return text_message("Done.")


AGENTS: dict[str, Agent] = {"echo": echo_agent, "tool_then_finish": tool_then_finish, "finish_or_send": finish_or_send}


@dataclass
class Stats:
    """What the server saw since it started (or since the last reset)."""

    requests: int = 0  # chat-completions requests received (answered or faulted)
    answered: int = 0  # ... answered with 200
    streamed: int = 0  # ... of which as server-sent events
    refused: int = 0  # requests refused with a 400 for their shape (strict mode, streaming refused)
    in_flight: int = 0  # requests received and not yet answered/dropped
    peak_in_flight: int = 0
    connections: int = 0  # open connections now
    peak_connections: int = 0
    connections_opened: int = 0
    faults: collections.Counter = field(default_factory=collections.Counter)

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "answered": self.answered,
            "streamed": self.streamed,
            "refused": self.refused,
            "in_flight": self.in_flight,
            "peak_in_flight": self.peak_in_flight,
            "connections": self.connections,
            "peak_connections": self.peak_connections,
            "connections_opened": self.connections_opened,
            "faults": dict(self.faults),
        }


class LoopbackServer:
    """The server; use as ``async with LoopbackServer(...) as server:`` or ``await start()``/``close()``.

    ``latency`` is the delay before each answer. ``agent`` decides the answers (default
    :func:`echo_agent`). Faults come from :meth:`inject` (queued, applied to the next requests in
    arrival order) and/or ``faults(index, body)``; a hang lasts ``hang`` seconds (default: until
    the server closes). ``cached_share`` of each request's prompt tokens is reported as served
    from a provider prompt cache (``prompt_tokens_details.cached_tokens``).
    """

    def __init__(
        self,
        latency: float = 0.0,
        agent: Agent | None = None,
        *,
        port: int = 0,
        lifetime: float = DEFAULT_LIFETIME,
        faults: FaultPlan | None = None,
        hang: float | None = None,
        cached_share: float = 0.0,
        stream: str = "sse",
        chunk_gap: float = 0.0,
        strict: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        if stream not in ("sse", "ignore", "refuse"):
            raise ValueError(f"stream must be sse, ignore or refuse, got {stream!r}")
        self.stream, self.chunk_gap, self.strict = stream, chunk_gap, strict
        self.latency = latency
        self.cached_share = cached_share
        self.agent = agent or echo_agent
        self.port = port
        self.lifetime = lifetime
        self.tls = tls  # a server-side context: serve HTTPS (still on 127.0.0.1 only)
        self.fault_plan = faults
        self.hang = hang
        self.stats = Stats()
        self.closed = asyncio.Event()  # set once the server has stopped
        self._queued: collections.deque[Fault] = collections.deque()
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task] = set()
        self._expiry: asyncio.TimerHandle | None = None

    @property
    def url(self) -> str:
        """The ``api_base`` to give a client: ``http://127.0.0.1:PORT/v1`` (``https://`` with ``tls``)."""
        return f"{'https' if self.tls else 'http'}://{HOST}:{self.port}/v1"

    def inject(self, fault: Fault | str, times: int = 1) -> None:
        """Apply ``fault`` to the next ``times`` chat requests."""
        self._queued.extend([Fault(fault)] * times)

    def reset_stats(self) -> None:
        """Zero the counters; open connections and requests in flight stay counted."""
        st = self.stats
        st.requests = st.answered = st.streamed = st.refused = st.connections_opened = 0
        st.peak_in_flight, st.peak_connections = st.in_flight, st.connections
        st.faults.clear()

    async def start(self) -> LoopbackServer:
        self._server = await asyncio.start_server(self._serve, HOST, self.port, backlog=4096, limit=1 << 20,
                                                  ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        self._expiry = asyncio.get_running_loop().call_later(
            self.lifetime, lambda: asyncio.ensure_future(self.close())
        )
        return self

    async def close(self) -> None:
        """Stop listening and drop every open connection."""
        if self._expiry is not None:
            self._expiry.cancel()
        if self._server is not None:
            self._server.close()
        for w in list(self._writers):
            w.transport.abort()
        for t in list(self._handlers):
            t.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
        self.closed.set()

    async def __aenter__(self) -> LoopbackServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[LoopbackServer]:
        """Serve from a background thread with its own event loop, for callers that block: a
        ``longview`` subprocess, ``harness.run`` (which runs its own loop), Ray workers."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self.start())
            ready.set()
            loop.run_until_complete(self.closed.wait())

        thread = threading.Thread(target=serve, name="loopback", daemon=True)
        thread.start()
        if not ready.wait(30):
            raise RuntimeError("the loopback server did not start within 30 s")
        try:
            yield self
        finally:
            asyncio.run_coroutine_threadsafe(self.close(), loop).result(30)
            thread.join(30)
            loop.close()

    # ---- HTTP ---------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        self._writers.add(writer)
        st = self.stats
        st.connections += 1
        st.connections_opened += 1
        st.peak_connections = max(st.peak_connections, st.connections)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    break
                method, path, keep_alive, length = _parse_head(head)
                body = await reader.readexactly(length) if length else b""
                response = await self._route(method, path, body)
                if response is None:  # a dropped connection
                    break
                if isinstance(response, list):  # a streamed answer: its events
                    await self._write_stream(writer, response)
                else:
                    writer.write(response)
                await writer.drain()
                if not keep_alive:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self.stats.connections -= 1
            self._writers.discard(writer)
            if task is not None:
                self._handlers.discard(task)
            writer.close()

    async def _route(self, method: str, path: str, body: bytes) -> bytes | list[bytes] | None:
        route = path.split("?", 1)[0].rstrip("/")
        if method == "POST" and route.endswith("/chat/completions"):
            return await self._chat(body)
        if method == "GET" and route.endswith("/stats"):
            return _response(200, self.stats.to_dict())
        if method == "POST" and route.endswith("/stats/reset"):
            self.reset_stats()
            return _response(200, {"ok": True})
        if method == "GET" and route.endswith("/health"):
            return _response(200, {"ok": True})
        return _response(404, {"error": {"message": f"no route {method} {path}"}})

    async def _chat(self, raw: bytes) -> bytes | list[bytes] | None:
        st = self.stats
        index = st.requests
        st.requests += 1
        st.in_flight += 1
        st.peak_in_flight = max(st.peak_in_flight, st.in_flight)
        try:
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return _response(400, {"error": {"message": "request body is not JSON"}})
            fault = self._queued.popleft() if self._queued else None
            if fault is None and self.fault_plan is not None:
                fault = self.fault_plan(index, body)
            if fault is not None:
                st.faults[fault.value] += 1
                return await self._fault(fault)
            refusal = self._refusal(body)
            if refusal is not None:
                st.refused += 1
                return _response(400, {"error": {"code": 400, "message": refusal, "type": "invalid_request_error"}})
            if self.latency > 0:
                await asyncio.sleep(self.latency)
            message = {"role": "assistant", "content": None, **self.agent(body)}
            prompt_tokens = max(1, len(raw) // 4)
            completion_tokens = max(1, len(json.dumps(message)) // 4)
            cap = body.get("max_tokens") or body.get("max_completion_tokens")
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            if isinstance(cap, int) and 0 < cap < completion_tokens:  # a reply cut at the cap, as a server would
                completion_tokens, finish = cap, "length"
                if isinstance(message.get("content"), str):
                    message["content"] = message["content"][: cap * 4]
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                **({"prompt_tokens_details": {"cached_tokens": int(prompt_tokens * self.cached_share)}}
                   if self.cached_share else {}),
            }
            st.answered += 1
            if body.get("stream") is True and self.stream == "sse":
                st.streamed += 1
                return _sse_events(index, body.get("model", ""), message, finish, usage, body)
            return _response(200, {
                "id": f"chatcmpl-loopback-{index}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", ""),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            })
        finally:
            st.in_flight -= 1

    def _refusal(self, body: dict[str, Any]) -> str | None:
        """Why a server of this server's kind refuses the request's shape (None: it does not)."""
        if body.get("stream") is True and self.stream == "refuse":
            return "stream is not supported (loopback)"
        if self.strict:
            messages = body.get("messages") or []
            if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "assistant":
                return "Cannot have an assistant message at the end of the list (loopback strict)"
        return None

    async def _write_stream(self, writer: asyncio.StreamWriter, events: list[bytes]) -> None:
        """Send a streamed answer: one HTTP chunk per event, ``chunk_gap`` seconds apart."""
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        for i, event in enumerate(events):
            if self.chunk_gap > 0 and i:
                await writer.drain()
                await asyncio.sleep(self.chunk_gap)
            writer.write(b"%x\r\n%s\r\n" % (len(event), event))
        writer.write(b"0\r\n\r\n")

    async def _fault(self, fault: Fault) -> bytes | None:
        if fault is Fault.RATE_LIMIT:
            return _response(429, {"error": {"message": "rate limited (loopback)", "type": "rate_limit"}},
                             {"Retry-After": "0"})
        if fault is Fault.SERVER_ERROR:
            return _response(500, {"error": {"message": "internal error (loopback)"}})
        if fault is Fault.UNAVAILABLE:
            return _response(503, {"error": {"message": "unavailable (loopback)"}}, {"Retry-After": "0"})
        if fault is Fault.HANG:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.closed.wait(), self.hang)
        return None  # HANG ends, like DROP, with the connection closed and no answer


def _sse_events(index: int, model: str, message: dict[str, Any], finish: str, usage: dict[str, Any],
                body: dict[str, Any]) -> list[bytes]:
    """A reply as the chunk events a streaming server sends: the role, the text in two pieces, each
    tool call's id and name then its arguments, the finish reason, the usage when asked for, [DONE]."""
    head = {"id": f"chatcmpl-loopback-{index}", "object": "chat.completion.chunk", "created": 0, "model": model}

    def event(delta: dict[str, Any] | None, finish_reason: str | None = None, **extra: Any) -> bytes:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
        return b"data: " + json.dumps({**head, "choices": choices, **extra}, separators=(",", ":")).encode() + b"\n\n"

    events = [event({"role": "assistant", "content": None})]
    text = message.get("content")
    if isinstance(text, str) and text:
        cut = max(1, len(text) // 2)
        events += [event({"content": text[:cut]}), *([event({"content": text[cut:]})] if text[cut:] else [])]
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function") or {}
        events.append(event({"tool_calls": [{"index": i, "id": call.get("id"), "type": "function",
                                             "function": {"name": fn.get("name"), "arguments": ""}}]}))
        events.append(event({"tool_calls": [{"index": i, "function": {"arguments": fn.get("arguments", "")}}]}))
    events.append(event({}, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append(event(None, usage=usage))
    return [*events, b"data: [DONE]\n\n"]


def _parse_head(head: bytes) -> tuple[str, str, bool, int]:
    """(method, path, keep-alive, content length) of a request head; ValueError if malformed."""
    lines = head.decode("latin-1").split("\r\n")
    method, path, version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if line:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise ValueError("chunked request bodies are not supported")
    conn = headers.get("connection", "").lower()
    keep_alive = conn != "close" if version == "HTTP/1.1" else conn == "keep-alive"
    return method, path, keep_alive, int(headers.get("content-length") or 0)


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error",
            503: "Service Unavailable"}


def _response(status: int, payload: Any, headers: dict[str, str] | None = None) -> bytes:
    data = json.dumps(payload, separators=(",", ":")).encode()
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n{extra}\r\n"
    )
    return head.encode("latin-1") + data


# ---- as a process -----------------------------------------------------------------------------


async def _main(args: argparse.Namespace) -> None:
    server = LoopbackServer(args.latency, AGENTS[args.agent], port=args.port, lifetime=args.lifetime,
                            stream=args.stream, strict=args.strict)
    await server.start()
    print(f"LISTENING {server.url}", flush=True)
    loop = asyncio.get_running_loop()
    # Stop when the parent goes away (stdin closes) or the lifetime ends.
    stdin_closed = loop.run_in_executor(None, sys.stdin.read)
    closed = asyncio.ensure_future(server.closed.wait())
    await asyncio.wait([stdin_closed, closed], return_when=asyncio.FIRST_COMPLETED)
    await server.close()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m longview.testing.loopback", description=__doc__.split("\n")[0])
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--agent", choices=sorted(AGENTS), default="tool_then_finish")
    ap.add_argument("--stream", choices=["sse", "ignore", "refuse"], default="sse",
                    help="answer streamed requests as server-sent events, unstreamed, or with a 400")
    ap.add_argument("--strict", action="store_true", help="refuse a request that ends on an assistant message")
    ap.add_argument("--lifetime", type=float, default=DEFAULT_LIFETIME,
                    help="stop after this many seconds, or sooner when standard input closes (its parent went away): "
                         "started from a shell in the background, keep stdin open, e.g. `sleep 3600 | python -m ...`")
    args = ap.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_main(args))
    # The stdin reader thread may still be blocked; do not wait for it.
    sys.stdout.flush()
    import os

    os._exit(0)


if __name__ == "__main__":
    main()
