"""``--agent 'cmd:COMMAND ARGS'``: an agent that is a process speaking JSON lines (:mod:`.schema`).

With ``--agent-process cell``, one process per cell instead: it serves every session of the cell
(observations carry the session id; sessions that run at once take turns) and is stopped when
the cell ends, so a stateful harness keeps its state across the cell's sessions and starts fresh
in the next cell. By default, one process per session: it is started on the session's first turn, gets one observation line per
turn and answers with one turn line, and is stopped when the session ends (its stdin is closed).
Sessions that run at once (atr's test sessions, prefs' probes) each have their own process, so
nothing the agent keeps in memory crosses from one session into another: what it may carry over
is what the suite puts in the observation (atr's frozen context, prefs' and intents' memory,
tempo's notes). A process that cannot start, exits, stays silent past the timeout or writes a line
that is not a turn aborts its cell with the reason; its stderr tail goes into the trace.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping

from pydantic import ValidationError

from longview.agents.external.endpoint import UsesModel, fill
from longview.agents.external.process import AgentProcess
from longview.agents.external.reported import Reports
from longview.agents.external.schema import HelloLine, ObservationLine, TurnLine
from longview.kernel.agent import AssistantTurn, Observation
from longview.kernel.errors import printable

DEFAULT_TIMEOUT = 120.0  # seconds an agent process may take for one turn (--agent-timeout)


CELL = "<cell>"  # the key of the one process of a per-cell agent


class CommandAgent(UsesModel, Reports):
    """An agent process per session, or with ``per_cell`` one per cell (see the module docstring)."""

    def __init__(self, argv: list[str], *, name: str, timeout: float = DEFAULT_TIMEOUT,
                 env: Mapping[str, str] | None = None, per_cell: bool = False) -> None:
        self.argv, self.name, self.timeout, self.env = argv, name, timeout, dict(env or {})
        self.per_cell = per_cell
        self._procs: dict[str, AgentProcess] = {}
        self._turn = asyncio.Lock()  # per cell: sessions that run at once take turns on the one process

    def __repr__(self) -> str:
        return f"CommandAgent({self.name!r})"

    async def act(self, obs: Observation) -> AssistantTurn:
        if not self.per_cell:
            return await self._act(obs, obs.session_id)
        async with self._turn:
            return await self._act(obs, CELL)

    async def _act(self, obs: Observation, key: str) -> AssistantTurn:
        proc = self._procs.get(key)
        if proc is None:
            values = await self.model_values()
            argv = [fill(a, values) for a in self.argv]
            env = {**self.env, **{k: v for k, v in values.items() if k.isupper()}}
            proc = self._procs[key] = AgentProcess(argv, env=env)
            await proc.start()
        p = proc.proc
        assert p is not None and p.stdin is not None and p.stdout is not None
        line = ObservationLine.of(obs).model_dump_json(by_alias=True).encode() + b"\n"
        try:
            p.stdin.write(line)
            await asyncio.wait_for(p.stdin.drain(), self.timeout)
            answer = await asyncio.wait_for(p.stdout.readline(), self.timeout)
            if not proc.greeted:  # its first line may say who it is (a hello), then comes the turn
                proc.greeted = True
                if self._hello(answer, proc):
                    answer = await asyncio.wait_for(p.stdout.readline(), self.timeout)
        except TimeoutError:
            raise proc.fail(f"no turn within {self.timeout:g} s (--agent-timeout)") from None
        except (BrokenPipeError, ConnectionResetError):
            raise proc.fail(f"{await proc.exit_status()} before reading its observation") from None
        except ValueError:  # a line longer than the stream's limit
            raise proc.fail("wrote a line longer than 32 MiB; expected one JSON turn per line") from None
        if (failed := self.model_failure()) is not None:
            raise proc.fail(f"its model call through longview failed: {failed}")
        if not answer:
            raise proc.fail(f"{await proc.exit_status()} without answering (expected one JSON turn per line "
                            "on stdout)")
        return parse_turn(answer, proc)

    def _hello(self, line: bytes, proc: AgentProcess) -> bool:
        """Whether ``line`` is a hello (then the agent's name and version are recorded)."""
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            return False
        if not isinstance(data, dict) or data.get("type") != "hello":
            return False
        try:
            hello = HelloLine.model_validate(data)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(x) for x in err["loc"]) or "<line>"
            raise proc.fail(f"wrote a hello that does not fit schema longview.agent/1: field '{where}': "
                            f"{err['msg']}") from None
        self.introduce(hello.name, hello.version, "the agent process")
        return True

    async def session_end(self, session_id: str) -> None:
        if self.per_cell and session_id != CELL:
            return  # the process serves the cell's next session
        proc = self._procs.pop(session_id, None)
        if proc is not None:
            await proc.stop()

    async def aclose(self) -> None:
        """Stop every process still running (a cell that ended early)."""
        for key in list(self._procs):
            proc = self._procs.pop(key)
            await proc.stop()
        await self.close_model()


def parse_turn(line: bytes, proc: AgentProcess) -> AssistantTurn:
    """One turn line into an assistant turn; anything else aborts the cell naming what was wrong."""
    text = line.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise proc.fail(f"wrote a line that is not JSON: {printable(text, 120)!r}") from None
    try:
        turn = TurnLine.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "<line>"
        raise proc.fail(f"wrote a turn that does not fit schema longview.agent/1: field '{where}': {err['msg']}") from None
    return AssistantTurn(text=turn.text, tool_calls=turn.tool_calls, usage=turn.usage)
