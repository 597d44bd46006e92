"""Client for OpenAI-compatible ``/chat/completions`` endpoints over plain httpx.

Covers OpenAI, OpenRouter, DeepSeek, Groq, Together, xAI, Mistral, Ollama and vLLM with one
request shape. The conversion helpers (:func:`to_openai_messages`, :func:`parse_completion`)
are shared with the LiteLLM backend, which returns the same response shape.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import ssl
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from longview.kernel.agent import AssistantTurn, Message, ToolCall, Usage
from longview.kernel.errors import ConfigError

from . import callstats
from .contracts import GenParams, ProviderError, ProviderSpec
from .http import LeanClient, proxied
from .prompt_cache import mark_cache_control, needs_cache_control
from .retry import parse_retry_after
from .secrets import get_key
from .sse import StreamAssembler, StreamError

RAW_ARGUMENTS = "__raw__"
_NO_STREAM: set[str] = set()  # endpoints that refused a streamed request: asked unstreamed from then on


def make_timeout(seconds: float) -> httpx.Timeout:
    """``seconds`` of silence (read/write/pool) before giving up; connecting gets at most 10 s."""
    return httpx.Timeout(seconds, connect=min(10.0, seconds))


DEFAULT_TIMEOUT = make_timeout(30.0)  # a hung server must not hold a cell for ten minutes


# ---- one HTTP connection pool per endpoint and event loop, shared by every client of a run ----
#
# Every client of the same endpoint (all cells, all roles) shares one EndpointPool on a given event
# loop: connections are reused across cells (one TLS handshake per connection, not per cell), and
# the pool bounds the requests in flight to the endpoint. A client must not outlive its loop, and
# tests (or the CLI) may run several loops in one process, hence the loop in the key. Call
# aclose_all() (or use ``async with http_pool():``) when a run ends.
#
# Requests to plain-http endpoints (a local vLLM, Ollama or test server, where hundreds of calls run
# at once and the harness's CPU per call matters) go over a lean asyncio HTTP/1.1 client
# (.http.LeanClient: about 1/35 of httpx's CPU per call). HTTPS providers and endpoints behind a
# proxy use httpx, a maintained client, since there the network dominates; httpcore scans every connection
# of a pool (polling each idle one) whenever it assigns a request, so those spread their
# connections over httpx clients ("shards") of SHARD_CONNECTIONS each, filled lowest first.

def use_lean(api_base: str) -> bool:
    """The lean client serves plain-http endpoints with no proxy in the way; set
    LONGVIEW_HTTP_CLIENT=httpx to use httpx everywhere."""
    import os

    return (api_base.startswith("http://") and not proxied(api_base)
            and os.environ.get("LONGVIEW_HTTP_CLIENT", "") != "httpx")


DEFAULT_MAX_CONNECTIONS = 512  # per endpoint; above any sensible --max-concurrency of one run
SHARD_CONNECTIONS = 16
_limits: dict[str | None, int] = {}  # api_base (None = every endpoint) -> max connections


def set_connection_limit(max_connections: int | None, api_base: str | None = None) -> None:
    """Bound the connections (so the requests in flight) to one endpoint, or to every endpoint
    when ``api_base`` is None; ``None`` restores the default. Applies to pools opened afterwards."""
    if max_connections is not None and max_connections < 1:
        raise ConfigError(f"connection limit must be at least 1, got {max_connections}")
    key = api_base.rstrip("/") if api_base else None
    if max_connections is None:
        _limits.pop(key, None)
    else:
        _limits[key] = max_connections


def connection_limit(api_base: str) -> int:
    """The connection limit that applies to ``api_base``."""
    return _limits.get(api_base.rstrip("/"), _limits.get(None, DEFAULT_MAX_CONNECTIONS))


class EndpointPool:
    """The connections of one endpoint on one event loop, at most ``limit`` requests in flight."""

    def __init__(self, api_base: str, limit: int) -> None:
        self.limit = limit
        self._slots = asyncio.Semaphore(limit)
        self._lean = LeanClient(api_base) if use_lean(api_base) else None
        self._shards: list[httpx.AsyncClient] = []
        self._busy: list[int] = []
        self._ssl: ssl.SSLContext | None = None
        self.closed = False

    @property
    def lean(self) -> bool:
        """True when requests use the lean client (no proxy in the way)."""
        return self._lean is not None

    @contextlib.asynccontextmanager
    async def client(self) -> AsyncIterator[Any]:
        """A client (``post(url, json=, headers=, timeout=)``) with a free slot, for one request."""
        async with self._slots:
            if self._lean is not None:
                yield self._lean
                return
            i = self._pick()
            self._busy[i] += 1
            try:
                yield self._shards[i]
            finally:
                self._busy[i] -= 1

    def _pick(self) -> int:
        for i, busy in enumerate(self._busy):
            if busy < SHARD_CONNECTIONS:
                return i
        n = min(SHARD_CONNECTIONS, self.limit)
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context()  # one per pool: building one costs ~10 ms of CPU
        self._shards.append(httpx.AsyncClient(
            timeout=DEFAULT_TIMEOUT, verify=self._ssl,
            limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
        ))
        self._busy.append(0)
        return len(self._shards) - 1

    async def aclose(self) -> None:
        self.closed = True
        if self._lean is not None:
            await self._lean.aclose()
        for shard in self._shards:
            await shard.aclose()


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, EndpointPool]] = (
    weakref.WeakKeyDictionary()
)


def endpoint_pool(api_base: str) -> EndpointPool:
    """The pool of ``api_base`` on the running event loop (opened on first use)."""
    loop = asyncio.get_running_loop()
    pools = _pools.get(loop)
    if pools is None:
        pools = _pools[loop] = {}
    base = api_base.rstrip("/")
    pool = pools.get(base)
    if pool is None or pool.closed:
        pool = pools[base] = EndpointPool(base, connection_limit(base))
    return pool


def open_pools() -> dict[str, int]:
    """Endpoints with an open pool on the running loop -> their connection limit."""
    pools = _pools.get(asyncio.get_running_loop(), {})
    return {base: p.limit for base, p in pools.items() if not p.closed}


async def aclose_all() -> None:
    """Close every pooled connection of the running loop (call once when a run ends)."""
    pools = _pools.pop(asyncio.get_running_loop(), {})
    for pool in pools.values():
        await pool.aclose()


@contextlib.asynccontextmanager
async def http_pool() -> AsyncIterator[None]:
    """``async with http_pool(): ...`` closes the run's pooled connections on the way out."""
    try:
        yield
    finally:
        await aclose_all()


def to_openai_messages(system: str | None, messages: list[Message]) -> list[dict[str, Any]]:
    """Our messages in chat-completions form, with ``system`` prepended when given."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        if m.role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content or ""}
            )
        elif m.role == "assistant" and m.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": m.content,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": dump_arguments(c.arguments)},
                        }
                        for c in m.tool_calls
                    ],
                }
            )
        else:
            # Several servers reject a null content on a message without tool calls.
            out.append({"role": m.role, "content": m.content or ""})
    if out and out[-1]["role"] == "assistant":
        # A request never ends on an assistant message: servers read that three ways (a fresh turn,
        # a prefill to continue — llama.cpp, Anthropic — or a 400 when two end the list). Every
        # server reads a user-role continuation alike. Protocols that carry on after a text turn add
        # their own note; this is the net for any other caller.
        out.append({"role": "user", "content": TAIL_CONTINUATION})
    return out


TAIL_CONTINUATION = "Continue."


def request_refused(detail: str, status: int, body: dict[str, Any]) -> str:
    """The server's own message for a refused request, with the request's shape for a 4xx that is
    not about rate or time (the request itself was refused: say what was sent)."""
    if not 400 <= status < 500 or status in (408, 429):
        return detail
    msgs = body.get("messages") or []
    last = msgs[-1].get("role", "?") if msgs else "none"
    return (f"server refused the request: {detail} (it had {len(msgs)} messages ending with a {last} message, "
            f"{len(body.get('tools') or [])} tools)")


def dump_arguments(arguments: dict[str, Any]) -> str:
    """Arguments as the JSON string the API expects; unparseable ones go back verbatim."""
    if set(arguments) == {RAW_ARGUMENTS} and isinstance(arguments[RAW_ARGUMENTS], str):
        return arguments[RAW_ARGUMENTS]
    return json.dumps(arguments, ensure_ascii=False)


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict; anything but a JSON object becomes ``{"__raw__": raw}``.

    Keeping the raw string (instead of failing the call) lets the tool layer answer the agent
    with an error it can correct, as a real deployment would.
    """
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        value = json.loads(raw)
        if isinstance(value, dict) and _ESCAPED_SURROGATE.search(raw):  # rare: clean what it decoded to
            value = _clean(value)
    except (TypeError, ValueError, RecursionError):
        value = None
    return (
        value
        if isinstance(value, dict)
        else {RAW_ARGUMENTS: _clean(raw) if isinstance(raw, str) else str(raw)}
    )


# A JSON string may hold an unpaired surrogate escape ("\ud800"): legal JSON, but not text that can
# be encoded as UTF-8, so a trace or the next request could not be written. Each becomes U+FFFD.
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _clean(value: Any) -> Any:
    """``value`` with every unpaired surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


_TOOLS_JSON: dict[tuple[int, ...], tuple[list[dict], str]] = {}
_TOOLS_JSON_MAX = 512


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_body(body: dict[str, Any]) -> bytes:
    """The request body as JSON bytes. The tool block is the same few shared schema dicts on every
    call of a session (tool schemas are built once and read-only), so its encoding is reused for
    the same dict objects instead of re-encoding ~10 kB per call."""
    tools = body.get("tools")
    if not tools:
        return _json(body).encode()
    key = tuple(map(id, tools))
    hit = _TOOLS_JSON.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], tools, strict=True)):
        if len(_TOOLS_JSON) >= _TOOLS_JSON_MAX:
            _TOOLS_JSON.pop(next(iter(_TOOLS_JSON)))
        hit = _TOOLS_JSON[key] = (list(tools), _json(tools))  # the list keeps the ids alive
    rest = _json({k: v for k, v in body.items() if k != "tools"})
    return f'{rest[:-1]},"tools":{hit[1]}}}'.encode()


def to_openai_tools(tools: list[dict]) -> list[dict]:
    """Tool schemas in ``{"type": "function", "function": {...}}`` form (bare ones get wrapped)."""
    return [t if "type" in t else {"type": "function", "function": t} for t in tools]


def _text(content: Any) -> str | None:
    # Some servers return content as a list of typed parts.
    if isinstance(content, list):
        content = "".join(t for p in content if isinstance(p, dict) and isinstance(t := p.get("text", ""), str))
    elif content is not None and not isinstance(content, str):
        raise _malformed(f"message content is a {type(content).__name__}, not text")
    return _clean(content) if content else None


def _malformed(what: str) -> ProviderError:
    """A 200 whose body is not a chat completion: a provider fault, retried like a 5xx and then
    recorded as an aborted cell, never taken as the model's answer."""
    return ProviderError(f"malformed response: {what}", retryable=True)


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def parse_usage(usage: dict[str, Any] | None) -> Usage:
    """Token counts, including OpenAI's ``prompt_tokens_details.cached_tokens`` (or DeepSeek's)."""
    u = usage or {}
    details = u.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    cached = _int(details.get("cached_tokens")) or _int(u.get("prompt_cache_hit_tokens"))
    cost = u.get("cost")  # OpenRouter reports the charged amount itself
    return Usage(
        input_tokens=_int(u.get("prompt_tokens")),
        cached_tokens=cached,
        output_tokens=_int(u.get("completion_tokens")),
        cost_usd=float(cost) if isinstance(cost, (int, float)) else 0.0,
    )


def parse_completion(data: Any) -> AssistantTurn:
    """A chat-completions response body as an :class:`AssistantTurn`.

    Raises :class:`ProviderError` for an error body or a response without choices (some
    gateways answer 200 with an error object).
    """
    if not isinstance(data, dict):
        raise ProviderError("response body is not a JSON object")
    choices = data.get("choices") or []
    if not choices:
        err = data.get("error")
        if isinstance(err, dict):
            code = err.get("code")
            status = code if isinstance(code, int) else None
            raise ProviderError(str(err.get("message") or err)[:300], status=status)
        raise ProviderError("response has no choices")
    if not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise _malformed("choices is not a list of objects")
    msg = choices[0].get("message")
    if not isinstance(msg, dict):
        raise _malformed("the first choice has no message object")
    raw_calls = msg.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise _malformed("tool_calls is not a list")
    calls = []
    for i, tc in enumerate(raw_calls):
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict):
            raise _malformed(f"tool call {i} has no function object")
        name, id_ = fn.get("name") or "", tc.get("id") or f"call_{i}"
        if not isinstance(name, str) or not isinstance(id_, str):
            raise _malformed(f"tool call {i}: its name and id must be text")
        calls.append(ToolCall(id=_clean(id_), name=_clean(name), arguments=parse_arguments(fn.get("arguments"))))
    usage = data.get("usage")
    return AssistantTurn(
        text=_text(msg.get("content")), tool_calls=calls, usage=parse_usage(usage if isinstance(usage, dict) else None)
    )


def error_detail(resp: Any) -> str:
    """A short description of an error response (the provider's message when it has one)."""
    try:
        body = resp.json()
        err = body.get("error", body) if isinstance(body, dict) else body
        detail = err.get("message", err) if isinstance(err, dict) else err
        text = detail if isinstance(detail, str) else json.dumps(detail)
    except ValueError:
        text = resp.text
    return " ".join(text.split())[:300] or resp.reason_phrase


def echoes_reasoning(model: str) -> str | None:
    """Which assistant turns must carry their ``reasoning_content`` back on later requests.

    DeepSeek V4 in thinking mode rejects a history whose tool-call turns lost their reasoning
    (HTTP 400), so those turns get it back ("tool_calls"); MiniMax M2 asks for the whole interleaved
    thinking to be kept on every assistant turn ("all"); other models get nothing (OpenAI rejects
    unknown message fields).
    """
    m = model.lower().rsplit("/", 1)[-1]
    if m.startswith("deepseek-v4"):
        return "tool_calls"
    if m.startswith("minimax"):
        return "all"
    return None


def _turn_key(text: str | None, calls: list[ToolCall]) -> str:
    return json.dumps([text or "", [(c.id, c.name) for c in calls]])


async def _httpx_stream(http: httpx.AsyncClient, url: str, content: bytes, headers: dict[str, str],
                        timeout: Any, on_data: Callable[[bytes], None]) -> httpx.Response:
    """POST asking for server-sent events over httpx: an event stream goes to ``on_data`` piece by
    piece as it arrives (the response is then marked ``streamed``); anything else is read whole."""
    accept = {**headers, "Accept": "text/event-stream, application/json"}
    async with http.stream("POST", url, content=content, headers=accept, timeout=timeout) as resp:
        if resp.status_code < 400 and "text/event-stream" in resp.headers.get("content-type", ""):
            async for piece in resp.aiter_bytes():
                on_data(piece)
            resp.streamed = True  # type: ignore[attr-defined]
        else:
            await resp.aread()
    return resp


class OpenAICompatClient:
    """Async client for one model behind an OpenAI-compatible endpoint.

    For models whose API wants its reasoning echoed (:func:`echoes_reasoning`) the client keeps
    each answer's ``reasoning_content`` (keyed by the answer's text and call ids, at most
    ``_REASONING_CAP`` entries) and puts it back on that assistant message in later requests.
    """

    _REASONING_CAP = 4096

    def __init__(
        self,
        model: str,
        spec: ProviderSpec,
        name: str,
        *,
        api_base: str | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
    ) -> None:
        base = api_base or spec.api_base
        if not base:
            raise ConfigError(
                f"model {model!r}: provider '{spec.prefix}/' has no default endpoint; "
                "pass api_base (e.g. http://localhost:8000/v1)"
            )
        key = get_key(spec.key_env) if spec.key_env else None
        if key is None and spec.key_required and not api_base:
            raise ConfigError(
                f"model {model!r} needs an API key: set {spec.key_env} in the environment "
                "or in a .env file in the working directory"
            )
        self.model, self.spec, self.name = model, spec, name
        self.api_base = base.rstrip("/")
        self._key = key
        self._timeout = timeout
        self._echo = echoes_reasoning(model)
        self._reasoning: dict[str, str] = {}

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAICompatClient({self.model!r}, api_base={self.api_base!r})"

    def _client(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """An HTTP client for one request: a slot of the endpoint's shared pool (tests may swap in
        anything used as ``async with ... as http``, e.g. an httpx.AsyncClient on a MockTransport)."""
        return endpoint_pool(self.api_base).client()

    async def aclose(self) -> None:
        """Close the shared pool of this client's endpoint on the running loop (every client of
        the endpoint reopens one on its next call); a run calls :func:`aclose_all` instead."""
        pool = _pools.get(asyncio.get_running_loop(), {}).pop(self.api_base, None)
        if pool is not None:
            await pool.aclose()

    def request_body(
        self, system: str | None, messages: list[Message], tools: list[dict], params: GenParams
    ) -> dict[str, Any]:
        """The JSON body for one call."""
        body: dict[str, Any] = {
            "model": self.name,
            "messages": to_openai_messages(system, messages),
        }
        if self._echo:
            sent = [m for m in body["messages"] if m["role"] != "system"]
            for ours, theirs in zip(messages, sent, strict=False):
                if ours.role != "assistant" or (self._echo == "tool_calls" and not ours.tool_calls):
                    continue
                theirs["reasoning_content"] = self._reasoning.get(_turn_key(ours.content, ours.tool_calls), "")
        if tools:
            body["tools"] = to_openai_tools(tools)
        if params.cache_prompt and needs_cache_control(self.name):  # e.g. openrouter/anthropic/...
            body["messages"], body["tools"] = mark_cache_control(body["messages"], body.get("tools", []))
            if not body["tools"]:
                del body["tools"]
        if params.prompt_cache_key is not None and self.spec.prompt_cache_key:
            body["prompt_cache_key"] = params.prompt_cache_key
        if params.temperature is not None:
            body["temperature"] = params.temperature
        if params.max_tokens is not None:
            body[self.spec.max_tokens_field] = params.max_tokens
        if params.reasoning_effort is not None and self.spec.reasoning_effort:
            body["reasoning_effort"] = params.reasoning_effort
        if params.seed is not None and self.spec.seed_field:
            body[self.spec.seed_field] = params.seed
        body.update(params.extra)
        return body

    def _streams(self, params: GenParams) -> bool:
        """Whether to ask for a streamed reply: unless ``stream=False``, on endpoints the lean client
        serves (local servers, where a slow model must not look silent), and never again on an
        endpoint that refused a streamed request."""
        if params.stream is False or self.api_base in _NO_STREAM:
            return False
        return params.stream is True or endpoint_pool(self.api_base).lean

    async def complete(
        self,
        system: str | None,
        messages: list[Message],
        tools: list[dict],
        params: GenParams,
        trial: int = 0,
    ) -> AssistantTurn:
        """One POST to ``{api_base}/chat/completions``; failures raise :class:`ProviderError`.

        Streamed where :meth:`_streams` says so (the lean client, or httpx for HTTPS and proxies): then the
        request timeout is the silence allowed between pieces, and the first-token latency and
        decoding time go to the call's :mod:`.callstats`. A server that refuses a streamed request
        (a 4xx naming ``stream``) is asked again unstreamed, and not streamed to again.
        """
        url = f"{self.api_base}/chat/completions"
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        body = self.request_body(system, messages, tools, params)
        want_stream = self._streams(params)
        stream: StreamAssembler | None = None
        try:
            async with self._client() as http:
                if want_stream:
                    stream = StreamAssembler()
                    content = encode_body({**body, "stream": True, "stream_options": {"include_usage": True}})
                    if isinstance(http, LeanClient):
                        resp: Any = await http.post(url, content=content, headers=headers, timeout=self._timeout,
                                                    on_data=stream.feed)
                    else:  # httpx (HTTPS, proxies): its read timeout bounds each read, so also the silence
                        resp = await _httpx_stream(http, url, content, headers, self._timeout, stream.feed)
                else:
                    resp = await http.post(url, content=encode_body(body), headers=headers, timeout=self._timeout)
        except httpx.TimeoutException as err:
            raise ProviderError(f"timeout ({type(err).__name__}: {self._silence()}) calling {url}") from None
        except httpx.UnsupportedProtocol:
            raise ProviderError(
                f"unsupported URL {url!r}: api_base needs http:// or https://", retryable=False
            ) from None
        except httpx.TransportError as err:
            raise ProviderError(
                f"connection error calling {url}: {type(err).__name__}: {err}"
            ) from None
        except StreamError as err:
            raise _malformed(f"streamed reply: {err}") from None
        if resp.status_code >= 400:
            detail = error_detail(resp)
            if stream is not None and 400 <= resp.status_code < 500 and "stream" in detail.lower():
                _NO_STREAM.add(self.api_base)  # this server does not take streamed requests: ask again plainly
                return await self.complete(system, messages, tools, params, trial)
            raise ProviderError(
                request_refused(detail, resp.status_code, body),
                status=resp.status_code,
                retry_after=parse_retry_after(resp.headers.get("retry-after")),
            )
        if getattr(resp, "streamed", False) and stream is not None:
            try:
                data: Any = stream.body()
            except StreamError as err:
                raise _malformed(f"streamed reply: {err}") from None
        else:
            stream = None
            try:
                data = resp.json()
            except (ValueError, RecursionError):
                # A 2xx that is not JSON is a gateway hiccup, not a bad request.
                raise ProviderError(
                    "response body is not JSON", status=resp.status_code, retryable=True
                ) from None
        turn = parse_completion(data)
        stats = callstats.current()
        if stats is not None:
            choice = (data.get("choices") or [{}])[0]
            reason = choice.get("finish_reason") if isinstance(choice, dict) else None
            stats.finish_reason = reason if isinstance(reason, str) else None
            if stream is not None:
                stats.streamed = True
                stats.first_token_s, stats.decode_s = stream.first_token_s, stream.decode_s
        if self._echo:
            msg = (data.get("choices") or [{}])[0].get("message") or {}
            reasoning = msg.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning:
                reasoning = _clean(reasoning)
                if len(self._reasoning) >= self._REASONING_CAP:
                    self._reasoning.pop(next(iter(self._reasoning)))
                self._reasoning[_turn_key(turn.text, turn.tool_calls)] = reasoning
        return turn

    def _silence(self) -> str:
        read = self._timeout.read if isinstance(self._timeout, httpx.Timeout) else self._timeout
        return f"no byte from the server for {read:g} s" if read else "timed out"
