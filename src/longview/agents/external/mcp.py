"""``--agent 'mcp:COMMAND ... {prompt} ... {mcp_config}'`` and ``--agent 'mcp+stdio:COMMAND ... {prompt}'``: a
harness that runs its own loop, reached over MCP.

For each session longview serves the session's tools — the suite's domain tools, its control
tools (``send_to_user``, ``respond``, ``finish``...) and ``reply_to_user`` (a plain text turn: how the
suite reads one is its protocol) — as an MCP server on 127.0.0.1 (streamable HTTP; the URL carries a
per-session secret), and starts the harness with the session's opening as its prompt and an MCP
configuration file pointing at that server. The kernel's session loop is unchanged: each tool call
the harness makes becomes one assistant turn (calls that arrive together, one batch), executed and
traced by the kernel exactly as a native agent's; the tool's result goes back to the harness, and
what the user said in reply comes as a second text block, ``[the user says] ...``. The session ends when a tool ends it (the suite's finish
tool, the user ending it), at the turn cap, or when the harness exits (an empty turn: the kernel
records no progress). A harness that exits non-zero, or neither calls a tool nor exits for
``--agent-timeout`` seconds, aborts its cell with the reason.

Placeholders in the command: ``{prompt}`` (the session's system prompt and opening as one text),
``{prompt_file}``, ``{observation_file}`` (the opening observation as one ``longview.agent/1``
observation line: system prompt, messages and tools as data), ``{mcp_config}`` (a JSON file: ``{"mcpServers": {"longview": {"type": "http",
"url": ...}}}``), ``{mcp_url}``, ``{session_id}``; the environment gets ``LONGVIEW_MCP_URL``,
``LONGVIEW_MCP_CONFIG``, ``LONGVIEW_PROMPT_FILE`` and ``LONGVIEW_OBSERVATION_FILE``. Needs ``pip install 'longview[mcp]'``.

``mcp+stdio:``: the same session, but the harness speaks MCP (newline-delimited JSON-RPC, the SDK's
stdio transport) on its own stdin and stdout: longview is the server at the other end of the pipes
(an SDK-built harness connects with ``Client(stdio_server())``). There is no URL or config file
(``{mcp_url}`` and ``{mcp_config}`` are refused); a line on its stdout that is not JSON-RPC aborts
the cell, as a ``cmd:`` agent's garbage does.

The MCP client's ``clientInfo`` (name and version) is the harness's identity: the first session
that reports one records it, and a session whose harness reports another aborts (see
:mod:`longview.agents.external.reported`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longview.agents.external.endpoint import UsesModel, fill
from longview.agents.external.process import AgentFailed, AgentProcess
from longview.agents.external.reported import Reports
from longview.agents.external.schema import ObservationLine
from longview.kernel.agent import AssistantTurn, Message, Observation, ToolCall
from longview.kernel.errors import ConfigError, printable

REPLY = "reply_to_user"
REPLY_SCHEMA = {
    "type": "function",
    "function": {
        "name": REPLY,
        "description": "Say something to the user as a plain text turn; the result is what the user answers "
                       "(if anything). How a text turn counts is the suite's protocol.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "What you say."}},
                       "required": ["text"]},
    },
}
PLACEHOLDERS = ("prompt", "prompt_file", "observation_file", "mcp_config", "mcp_url", "session_id", "base_url",
                "api_key")
HTTP_ONLY = ("mcp_config", "mcp_url")  # no server address over stdio: the pipes are the connection
SAYS = "[the user says] "  # starts the second text block of a tool result that the user answered
ENDED = "The session has ended; no further tool calls are served."  # the result of a call the last turn ran
NOT_RUN = "The session had ended before this call; it was not run."  # a call that came too late
GRACE = 5.0  # seconds a harness has to leave once its session ended
BATCH_WINDOW = 0.05  # seconds: calls arriving this close together are one batch


def check_placeholders(argv: list[str], transport: str = "http") -> None:
    prefix = "mcp+stdio" if transport == "stdio" else "mcp"
    known = [p for p in PLACEHOLDERS if transport == "http" or p not in HTTP_ONLY]
    for token in argv:
        for name in re.findall(r"\{([A-Za-z_]+)\}", token):
            if name in HTTP_ONLY and transport == "stdio":
                raise ConfigError(f"--agent {prefix}:...: {{{name}}} names the HTTP server of mcp:, and an "
                                  "mcp+stdio: harness has none (it speaks MCP on its own stdin/stdout); use mcp: for "
                                  "a harness that connects to a URL")
            if name not in known:
                raise ConfigError(f"--agent {prefix}:...: unknown placeholder {{{name}}}; expected one of "
                                  + ", ".join(f"{{{p}}}" for p in known))


def render_prompt(obs: Observation) -> str:
    """The session's system prompt and opening as one text for a harness started with a prompt."""
    lines = [obs.system.strip(), "", "--- conversation so far ---"]
    for m in obs.messages:
        lines.append(_line(m))
    lines += ["--- end ---", "",
              f"Act through the tools of the MCP server 'longview' (they are this session's tools). To say something "
              f"to the user as plain text, call {REPLY}; its result is what the user answers."]
    return "\n".join(lines)


def _line(m: Message) -> str:
    if m.role == "tool":
        return f"[tool result {m.name or ''}] {m.content or ''}"
    if m.role == "assistant" and m.tool_calls:
        calls = "; ".join(f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)})" for c in m.tool_calls)
        return f"[assistant] {m.content or ''} [called {calls}]".replace("]  [", "] [")
    return f"[{m.role}] {m.content or ''}"


@dataclass
class _Call:
    id: str
    name: str
    arguments: dict[str, Any]
    done: asyncio.Future[list[str]]  # the result's text blocks


@dataclass
class _Session:
    """One session's server, harness process and the calls between them."""

    obs: Observation
    folder: Path
    calls: asyncio.Queue[_Call] = field(default_factory=asyncio.Queue)
    pending: list[_Call] = field(default_factory=list)
    proc: AgentProcess | None = None
    server: Any = None
    server_task: asyncio.Task[None] | None = None
    exited: asyncio.Task[int] | None = None
    held: _Call | None = None  # a reply_to_user that came in a batch: the next turn
    closed: bool = False  # the session ended: calls are answered at once with ENDED
    n: int = 0
    broken: asyncio.Future[AgentFailed] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    introduced: bool = False  # the client's clientInfo was looked at

    def answer(self, obs: Observation) -> None:
        """Resolve the calls of the last turn from what followed it: each call's tool result, and what
        the user said in reply as a second text block (``[the user says] ...``) of the last call's result."""
        last = max((i for i, m in enumerate(obs.messages) if m.role == "assistant"), default=-1)
        tail = obs.messages[last + 1:]
        results = {m.tool_call_id: m.content or "" for m in tail if m.role == "tool"}
        said = "\n\n".join(m.content for m in tail if m.role == "user" and m.content)
        for i, call in enumerate(self.pending):
            if call.name == REPLY:
                blocks = [SAYS + said] if said else ["(no answer)"]
            else:
                blocks = [results.get(call.id, "")]
                if said and i == len(self.pending) - 1:
                    blocks.append(SAYS + said)
            if not call.done.done():
                call.done.set_result(blocks)
        self.pending = []

    def end(self) -> None:
        self.closed = True
        for call in self.pending:
            if not call.done.done():
                call.done.set_result([ENDED])
        late = [*([self.held] if self.held else [])]
        while not self.calls.empty():
            late.append(self.calls.get_nowait())
        for call in late:
            if not call.done.done():
                call.done.set_result([NOT_RUN])
        self.pending, self.held = [], None


class MCPHarnessAgent(UsesModel, Reports):
    """A harness per session, served the session's tools over MCP (see the module docstring);
    ``transport``: ``http`` (``mcp:``) or ``stdio`` (``mcp+stdio:``)."""

    def __init__(self, argv: list[str], *, name: str, timeout: float = 120.0,
                 env: Mapping[str, str] | None = None, transport: str = "http") -> None:
        check_placeholders(argv, transport)
        self.argv, self.name, self.timeout, self.env = argv, name, timeout, dict(env or {})
        self.transport = transport
        self._sessions: dict[str, _Session] = {}

    @staticmethod
    def check_available(prefix: str = "mcp") -> None:
        try:
            import mcp  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError:
            raise ConfigError(f"--agent {prefix}:... needs the MCP SDK: pip install 'longview[mcp]'") from None

    def __repr__(self) -> str:
        return f"MCPHarnessAgent({self.name!r})"

    async def act(self, obs: Observation) -> AssistantTurn:
        s = self._sessions.get(obs.session_id)
        if s is None:
            s = self._sessions[obs.session_id] = await self._start(obs)
        else:
            s.answer(obs)
        return await self._next_turn(s)

    async def _next_turn(self, s: _Session) -> AssistantTurn:
        assert s.proc is not None and s.exited is not None
        if s.held is not None:
            s.calls.put_nowait(s.held)
            s.held = None
        get = asyncio.ensure_future(s.calls.get())
        try:
            waits: set[asyncio.Future[Any]] = {get, s.exited, s.broken}
            done, _ = await asyncio.wait(waits, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not get.done():
                get.cancel()
        if (failed := self.model_failure()) is not None:
            raise s.proc.fail(f"its model call through longview failed: {failed}")
        if s.broken.done():  # garbage on its stdout (mcp+stdio), or a harness that is not the run's
            raise s.broken.result()
        if get in done:
            first = get.result()
            if first.name == REPLY:
                s.pending = [first]
                return AssistantTurn(text=str(first.arguments.get("text") or ""))
            batch = [first]
            # Calls the harness has in flight together (its parallel calls) are one batch: gather
            # those that arrive within BATCH_WINDOW of the last one (MCP itself has no batches).
            while True:
                try:
                    nxt = await asyncio.wait_for(s.calls.get(), BATCH_WINDOW)
                except TimeoutError:
                    break
                if nxt.name == REPLY:
                    s.held = nxt  # a text turn of its own, next
                    break
                batch.append(nxt)
            s.pending = batch
            return AssistantTurn(tool_calls=[ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in batch])
        if s.exited in done:
            status = await s.proc.exit_status(0)
            if s.exited.result() != 0:
                raise s.proc.fail(f"{status} before the session ended")
            return AssistantTurn()  # the harness left: nothing more from it, the session ends
        raise s.proc.fail(f"neither called a tool nor exited within {self.timeout:g} s (--agent-timeout)")

    async def _start(self, obs: Observation) -> _Session:
        folder = Path(tempfile.mkdtemp(prefix="longview-mcp-"))
        s = _Session(obs=obs, folder=folder)
        server = _server(s, [*obs.tools, REPLY_SCHEMA], self)
        values: dict[str, str] = {}
        env = dict(self.env)
        if self.transport == "http":
            url = await _serve_http(s, server)
            config = folder / "mcp.json"
            config.write_text(json.dumps({"mcpServers": {"longview": {"type": "http", "url": url}}}))
            values = {"mcp_config": str(config), "mcp_url": url}
            env.update(LONGVIEW_MCP_URL=url, LONGVIEW_MCP_CONFIG=str(config))
        prompt = render_prompt(obs)
        prompt_file = folder / "prompt.txt"
        prompt_file.write_text(prompt, encoding="utf-8")
        observation = folder / "observation.json"
        observation.write_text(ObservationLine.of(obs).model_dump_json(by_alias=True), encoding="utf-8")
        model = await self.model_values()
        values.update(prompt=prompt, prompt_file=str(prompt_file), observation_file=str(observation),
                      session_id=obs.session_id, **model)
        env.update(LONGVIEW_PROMPT_FILE=str(prompt_file), LONGVIEW_OBSERVATION_FILE=str(observation),
                   **{k: v for k, v in model.items() if k.isupper()})
        argv = [fill(a, values) for a in self.argv]
        stdio = self.transport == "stdio"
        s.proc = AgentProcess(argv, env=env, what="mcp harness")
        await s.proc.start(stdin=stdio, stdout=stdio)
        assert s.proc.proc is not None
        s.exited = asyncio.ensure_future(s.proc.proc.wait())
        if stdio:
            s.server_task = asyncio.create_task(_serve_stdio(s, server))
        return s

    async def session_end(self, session_id: str) -> None:
        s = self._sessions.pop(session_id, None)
        if s is None:
            return
        s.end()
        if s.proc is not None:
            if self.transport == "stdio" and s.exited is not None:
                # Its last calls' results go down the pipe it reads: let it read them and leave
                # before its stdin closes.
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(s.exited), GRACE)
            await s.proc.stop(GRACE)
        if s.exited is not None and not s.exited.done():
            s.exited.cancel()
        if s.server is not None and s.server_task is not None:
            s.server.should_exit = True
            with contextlib.suppress(Exception):
                await s.server_task
        elif s.server_task is not None:  # stdio: the pipes closed with the process
            s.server_task.cancel()
            with contextlib.suppress(BaseException):
                await s.server_task
        shutil.rmtree(s.folder, ignore_errors=True)

    async def aclose(self) -> None:
        for sid in list(self._sessions):
            await self.session_end(sid)
        await self.close_model()


def _server(s: _Session, schemas: list[dict[str, Any]], agent: MCPHarnessAgent) -> Any:
    """The session's MCP server: its tools listed from the kernel's schemas; a call waits for the
    kernel. The client's ``clientInfo`` is the harness's name and version (:mod:`.reported`)."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(name=f["function"]["name"], description=f["function"].get("description") or "",
                        input_schema=f["function"].get("parameters") or {"type": "object", "properties": {}})
             for f in schemas]

    def introduced(ctx: Any) -> bool:
        """Record who the client says it is; False (and the session's abort on its way) for another harness."""
        info = getattr(getattr(ctx.session, "client_params", None), "client_info", None)
        if info is None or s.introduced:
            return not s.broken.done()
        s.introduced = True
        try:
            agent.introduce(info.name, info.version, "the mcp harness")
        except AgentFailed as e:
            if not s.broken.done():
                s.broken.set_result(e)
            return False
        return True

    async def list_tools(ctx: Any, params: Any) -> Any:
        introduced(ctx)
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if s.closed or not introduced(ctx):
            return types.CallToolResult(content=[types.TextContent(type="text", text=NOT_RUN)])
        s.n += 1
        call = _Call(id=f"mcp-{s.n}", name=params.name, arguments=dict(params.arguments or {}),
                     done=asyncio.get_running_loop().create_future())
        await s.calls.put(call)
        blocks = await call.done
        return types.CallToolResult(content=[types.TextContent(type="text", text=b) for b in blocks])

    return Server("longview", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve_http(s: _Session, server: Any) -> str:
    """Serve ``server`` over streamable HTTP on 127.0.0.1 (a per-session secret in the path); its URL."""
    import uvicorn

    token = secrets.token_urlsafe(24)
    app = server.streamable_http_app(streamable_http_path=f"/{token}/mcp")
    s.server = _QuietServer(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on",
                                           access_log=False, timeout_graceful_shutdown=1))
    s.server_task = asyncio.create_task(s.server.serve())
    while not s.server.started:
        if s.server_task.done():
            await s.server_task  # its error, as is
        await asyncio.sleep(0.005)
    port = s.server.servers[0].sockets[0].getsockname()[1]
    return f"http://127.0.0.1:{port}/{token}/mcp"


async def _serve_stdio(s: _Session, server: Any) -> None:
    """Serve ``server`` over the harness's pipes with the SDK's stdio transport (explicit streams:
    longview's own stdin and stdout are untouched). A line that is not JSON-RPC breaks the session."""
    from mcp.server.stdio import stdio_server

    assert s.proc is not None and s.proc.proc is not None
    proc = s.proc
    lines, out = _PipeLines(proc, s), _PipeWriter(proc)
    with contextlib.suppress(Exception):  # the harness left or broke: its exit or s.broken says so
        async with stdio_server(stdin=lines, stdout=out) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())


class _PipeLines:
    """The harness's stdout as the text lines the SDK's stdio transport reads; stops at the first
    line that is not a JSON-RPC message (the session breaks with the reason)."""

    def __init__(self, proc: AgentProcess, s: _Session) -> None:
        self.proc, self.s = proc, s

    def __aiter__(self) -> Any:
        return self._lines()

    async def _lines(self) -> Any:
        import mcp_types as types
        from pydantic import ValidationError

        p = self.proc.proc
        assert p is not None and p.stdout is not None
        while True:
            try:
                raw = await p.stdout.readline()
            except ValueError:  # longer than the stream's limit
                self._break("wrote a line longer than 32 MiB; expected one JSON-RPC message per line")
                return
            if not raw:
                return
            text = raw.decode("utf-8", "replace")
            if not text.strip():
                continue
            try:
                types.jsonrpc_message_adapter.validate_json(text, by_name=False)
            except (ValidationError, ValueError, RecursionError):
                what = "JSON" if not _is_json(text) else "a JSON-RPC message"
                self._break(f"wrote a line on stdout that is not {what} (mcp+stdio: stdout carries MCP only; "
                            f"logs go to stderr): {printable(text.strip(), 120)!r}")
                return
            yield text

    def _break(self, reason: str) -> None:
        if not self.s.broken.done():
            self.s.broken.set_result(self.proc.fail(reason))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


class _PipeWriter:
    """The harness's stdin as the text file the SDK's stdio transport writes."""

    def __init__(self, proc: AgentProcess) -> None:
        self.proc = proc

    async def write(self, text: str) -> None:
        p = self.proc.proc
        if p is not None and p.stdin is not None and not p.stdin.is_closing():
            p.stdin.write(text.encode())

    async def flush(self) -> None:
        p = self.proc.proc
        if p is not None and p.stdin is not None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await p.stdin.drain()


def _quiet_server_class() -> Any:
    import uvicorn

    class Quiet(uvicorn.Server):
        """No signal handlers of its own: Ctrl-C stays longview's."""

        @contextlib.contextmanager
        def capture_signals(self):  # type: ignore[override]
            yield

    return Quiet


def _QuietServer(config: Any) -> Any:  # noqa: N802 - a class built on first use (uvicorn is optional)
    return _quiet_server_class()(config)
