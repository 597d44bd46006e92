"""A streamed chat completion (server-sent events) put back together as one response body.

The OpenAI streaming format: ``data: {chunk}`` events, each chunk's ``choices[0].delta`` holding a
piece of ``content`` (or ``reasoning_content``) and pieces of ``tool_calls`` keyed by ``index``
(``id`` and ``function.name`` once, ``function.arguments`` in pieces), a ``finish_reason`` on the
last one, ``usage`` on a final chunk when ``stream_options.include_usage`` was asked for, and
``data: [DONE]``. :meth:`StreamAssembler.body` returns what the same call would have answered
unstreamed, so one parser reads both; the assembler also times the first token and the decoding.
"""

from __future__ import annotations

import json
import time
from typing import Any


class StreamError(Exception):
    """A stream that cannot be read as chat-completion chunks (not a ValueError: the HTTP reader
    takes those for broken framing)."""


class StreamAssembler:
    """Feed it the body bytes as they arrive (:meth:`feed`); then read :meth:`body`."""

    __slots__ = ("_buf", "_content", "_reasoning", "_calls", "finish_reason", "usage", "error", "done",
                 "started", "first_at", "last_at", "chunks")

    def __init__(self, started: float | None = None) -> None:
        self._buf = b""
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.error: Any = None
        self.done = False
        self.started = time.perf_counter() if started is None else started
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.chunks = 0

    def feed(self, data: bytes) -> None:
        buf = self._buf + data if self._buf else data
        if b"\r" in buf:
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *events, self._buf = buf.split(b"\n\n")
        now = time.perf_counter()
        for event in events:
            for line in event.split(b"\n"):
                if line.startswith(b"data:"):
                    self._event(line[5:].strip(), now)

    def _event(self, payload: bytes, now: float) -> None:
        if not payload:
            return
        if payload == b"[DONE]":
            self.done = True
            return
        try:
            chunk = json.loads(payload)
        except (ValueError, RecursionError):
            raise StreamError("a streamed chunk is not JSON") from None
        if not isinstance(chunk, dict):
            raise StreamError("a streamed chunk is not a JSON object")
        self.chunks += 1
        self.last_at = now
        if chunk.get("error") is not None:
            self.error = chunk["error"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = usage
        choices = chunk.get("choices")
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            return
        choice = choices[0]
        if choice.get("finish_reason"):
            self.finish_reason = str(choice["finish_reason"])
        delta = choice.get("delta") or choice.get("message")
        if not isinstance(delta, dict):
            return
        got = False
        text = delta.get("content")
        if isinstance(text, str) and text:
            self._content.append(text)
            got = True
        thought = delta.get("reasoning_content")
        if isinstance(thought, str) and thought:
            self._reasoning.append(thought)
            got = True
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for i, tc in enumerate(calls):
                if not isinstance(tc, dict):
                    raise StreamError("a streamed tool call is not an object")
                index = tc.get("index", i)
                slot = self._calls.setdefault(index if isinstance(index, int) else i,
                                              {"id": None, "name": [], "arguments": []})
                if isinstance(tc.get("id"), str) and tc["id"]:
                    slot["id"] = tc["id"]
                fn = tc.get("function")
                if isinstance(fn, dict):
                    if isinstance(fn.get("name"), str):
                        slot["name"].append(fn["name"])
                    args = fn.get("arguments")
                    if isinstance(args, str):
                        slot["arguments"].append(args)
                    elif isinstance(args, dict):  # a server that sends the whole object at once
                        slot["arguments"].append(json.dumps(args))
                got = True
        if got and self.first_at is None:
            self.first_at = now

    @property
    def first_token_s(self) -> float:
        return max(0.0, self.first_at - self.started) if self.first_at is not None else 0.0

    @property
    def decode_s(self) -> float:
        if self.first_at is None or self.last_at is None:
            return 0.0
        return max(0.0, self.last_at - self.first_at)

    def body(self) -> dict[str, Any]:
        """The chat-completion body this stream amounts to (an ``error`` body if it carried one);
        :class:`StreamError` when it carried no chunk at all."""
        if not self.chunks:
            raise StreamError("the stream ended without a chunk")
        if self.error is not None and not (self._content or self._calls):
            return {"error": self.error}
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._content) or None}
        if self._reasoning:
            message["reasoning_content"] = "".join(self._reasoning)
        if self._calls:
            message["tool_calls"] = [
                {"id": c["id"] or f"call_{i}", "type": "function",
                 "function": {"name": "".join(c["name"]), "arguments": "".join(c["arguments"])}}
                for i, c in sorted(self._calls.items())
            ]
        out: dict[str, Any] = {"choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}]}
        if self.usage is not None:
            out["usage"] = self.usage
        return out
