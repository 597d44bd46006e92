"""A loopback OpenAI-compatible endpoint in front of longview's model layer, for external agents.

``--agent 'cmd:...' --model X`` (or ``mcp:``): the agent's process gets this endpoint's URL and a
per-cell token (``{base_url}``, ``{api_key}``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``), and every
chat-completions request it sends is answered through longview's client for X: the response
cache, retries, ``--provider-limit``, token and cost accounting (``usage.jsonl``, the manifest, the
scorecard) apply to the harness's calls as to a native agent's. Serves ``POST /v1/chat/completions``
(``stream: true`` gets the same answer as one SSE chunk) and ``GET /v1/models`` on 127.0.0.1 only;
a request without the token gets 401. A model call that fails for good answers 502 and aborts the
cell (the agent checks :attr:`ModelEndpoint.failure`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from typing import Any

from longview.kernel.agent import Message, ToolCall
from longview.kernel.models import GenParams, ModelClient
from longview.kernel.models.contracts import ModelCallFailed

HOST = "127.0.0.1"
MAX_BODY = 64 * 1024 * 1024


def fill(token: str, values: dict[str, str]) -> str:
    """``{name}`` placeholders of a command-line token replaced by ``values`` (others left as they are)."""
    return re.sub(r"\{([A-Za-z_]+)\}", lambda m: values.get(m.group(1), m.group(0)), token)


def messages_of(body: dict[str, Any]) -> tuple[str | None, list[Message]]:
    """An OpenAI chat request's messages as longview's (system messages joined into the system prompt)."""
    system: list[str] = []
    out: list[Message] = []
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            raise ValueError("each message must be an object")
        role, content = m.get("role"), _text(m.get("content"))
        if role in ("system", "developer"):
            system.append(content or "")
            continue
        if role not in ("user", "assistant", "tool"):
            raise ValueError(f"unknown message role {role!r}")
        calls = []
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            raw = fn.get("arguments") or "{}"
            try:
                args = json.loads(raw) if isinstance(raw, str) else raw
            except json.JSONDecodeError:
                args = {"_raw": raw}
            calls.append(ToolCall(id=str(c.get("id") or ""), name=str(fn.get("name") or ""),
                                  arguments=args if isinstance(args, dict) else {"_raw": args}))
        out.append(Message(role=role, content=content, tool_calls=calls, tool_call_id=m.get("tool_call_id"),
                           name=m.get("name")))
    return ("\n\n".join(system) if system else None), out


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


class ModelEndpoint:
    """One cell's endpoint: started on first use inside the run's event loop, closed with the cell."""

    def __init__(self, client: ModelClient, params: GenParams, trial: int = 0) -> None:
        self.client, self.params, self.trial = client, params, trial
        self.token = "lv-" + secrets.token_urlsafe(24)
        self.calls = 0
        self.failure: str | None = None
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    async def start(self) -> ModelEndpoint:
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, HOST, 0, limit=1 << 20)
            self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for t in list(self._tasks):
                t.cancel()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            self._tasks.discard(task)  # type: ignore[arg-type]
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        line = await reader.readline()
        if not line:
            return False
        method, path, *_ = line.decode("latin-1").split() + ["", ""]
        headers: dict[str, str] = {}
        while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
            k, _, v = h.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()
        size = int(headers.get("content-length") or 0)
        if size > MAX_BODY:
            await _send(writer, 413, {"error": {"message": "request too large"}})
            return False
        body = await reader.readexactly(size) if size else b""
        if headers.get("authorization", "") != f"Bearer {self.token}":
            await _send(writer, 401, {"error": {"message": "missing or wrong API key (use the one longview gave)"}})
            return True
        route = path.split("?")[0].rstrip("/")
        if method == "GET" and route.endswith("/models"):
            await _send(writer, 200, {"object": "list", "data": [{"id": self.client.model, "object": "model"}]})
        elif method == "POST" and route.endswith("/chat/completions"):
            await self._complete(body, writer)
        else:
            await _send(writer, 404, {"error": {"message": f"no route {method} {route}"}})
        return headers.get("connection", "").lower() != "close"

    async def _complete(self, raw: bytes, writer: asyncio.StreamWriter) -> None:
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
            system, messages = messages_of(body)
            tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
        except (ValueError, RecursionError, AttributeError, TypeError) as e:
            await _send(writer, 400, {"error": {"message": f"bad request: {e}"}})
            return
        params = self.params
        overrides = {k: body[k] for k in ("temperature", "max_tokens") if body.get(k) is not None}
        if body.get("max_completion_tokens") is not None:
            overrides["max_tokens"] = body["max_completion_tokens"]
        if overrides:
            try:
                params = GenParams.model_validate({**params.model_dump(), **overrides})
            except ValueError as e:
                await _send(writer, 400, {"error": {"message": f"bad generation parameter: {e}"}})
                return
        self.calls += 1
        try:
            turn = await self.client.complete(system, messages, tools, params, self.trial)
        except ModelCallFailed as e:
            self.failure = self.failure or e.reason
            await _send(writer, 502, {"error": {"message": e.reason}})
            return
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.tool_calls:
            message["tool_calls"] = [{"id": c.id, "type": "function",
                                      "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                     for c in turn.tool_calls]
        u = turn.usage
        usage = {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens,
                 "total_tokens": u.input_tokens + u.output_tokens,
                 "prompt_tokens_details": {"cached_tokens": u.cached_tokens}}
        finish = "tool_calls" if turn.tool_calls else "stop"
        answer = {"id": f"chatcmpl-lv{self.calls}", "object": "chat.completion", "created": 0,
                  "model": self.client.model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                  "usage": usage}
        if body.get("stream"):
            delta = dict(message)
            if "tool_calls" in delta:
                delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(delta["tool_calls"])]
            chunk = {**answer, "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
            await writer.drain()
        else:
            await _send(writer, 200, answer)


async def _send(writer: asyncio.StreamWriter, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 413: "Payload Too Large",
              502: "Bad Gateway"}.get(status, "Error")
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                 .encode() + data)
    await writer.drain()


class UsesModel:
    """What an external agent process needs to reach longview's model layer: an endpoint started on
    first use, its values for placeholders and environment, and the cell's abort when a call failed."""

    endpoint: ModelEndpoint | None = None

    def use_model(self, client: ModelClient, params: GenParams, trial: int = 0) -> None:
        self.endpoint = ModelEndpoint(client, params, trial)

    async def model_values(self) -> dict[str, str]:
        """``{base_url, api_key}`` for placeholders ('' without a model) and the OpenAI variables for the environment."""
        if self.endpoint is None:
            return {"base_url": "", "api_key": ""}
        await self.endpoint.start()
        return {"base_url": self.endpoint.base_url, "api_key": self.endpoint.token,
                "OPENAI_BASE_URL": self.endpoint.base_url, "OPENAI_API_KEY": self.endpoint.token}

    def model_failure(self) -> str | None:
        return self.endpoint.failure if self.endpoint is not None else None

    async def close_model(self) -> None:
        if self.endpoint is not None:
            await self.endpoint.close()
