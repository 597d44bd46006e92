"""The session loop: agent ⇄ environment ⇄ (optional) user, one assistant turn at a time.

Each assistant turn holds text and/or a batch of tool calls executed in declared order. Domain
calls go to the :class:`~longview.kernel.tools.Toolkit`; *control* calls (synthetic tools a suite
adds, such as a send-to-user channel or a finish tool) go to the suite's :class:`SessionProtocol`,
which also decides what a text-only turn means and how the user answers. The kernel knows no
suite: everything protocol-specific lives behind that interface.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any, Protocol

from longview.kernel.agent import Agent, AssistantTurn, Message, Observation, ToolCall, Usage
from longview.kernel.clock import SimClock
from longview.kernel.errors import CellAborted
from longview.kernel.tools import ToolKind, ToolResult, ToolSpec
from longview.kernel.trace import TraceWriter

DEFAULT_MAX_TURNS = 20
TURN_DURATION = timedelta(minutes=1)  # simulated time one assistant turn takes


class TerminationReason(StrEnum):
    """Why a session ended."""

    USER_END = "user_end"  # the user declared the task complete
    AGENT_FINISH = "agent_finish"  # the agent called its finish tool
    TURN_CAP = "turn_cap"  # the assistant-turn cap was reached
    NO_PROGRESS = "no_progress"  # a turn produced nothing anyone could respond to
    AGENT_EMPTY = "agent_empty_response"  # the agent kept answering with neither text nor calls


@dataclass
class ControlResult:
    """What a control call (or a routed text turn) did."""

    content: str = '{"ok": true}'  # tool message returned to the agent
    to_user: str | None = None  # text delivered to the user this turn
    end: TerminationReason | None = None
    note: str | None = None  # protocol message the agent sees next turn (user role), if any
    carry_on: bool = False  # a text-only turn that nobody answers, yet the session goes on


@dataclass
class UserTurn:
    """The user's reply to what the agent delivered this turn."""

    text: str | None
    end: bool = False


class SessionProtocol(Protocol):
    """Suite-side rules of one session (see module docstring)."""

    control_specs: list[ToolSpec]
    max_rescues: int  # text-only turns get this many re-prompts before on_text decides
    # Optional: ``controls_last: bool`` — offer the control tools after the environment's (default:
    # before); ``empty_retries: int`` — fresh calls after a turn with neither text nor tool calls
    # (default 0); ``accepts_rescue(turn) -> bool`` — whether a re-prompted turn replaces the text
    # turn (default: any turn with tool calls).

    def filter_batch(self, calls: list[ToolCall], turn: int, trace: TraceWriter) -> list[ToolCall]:
        """Drop or reorder calls before execution (e.g. duplicate channel calls)."""

    def rescue_note(self, text: str, attempt: int) -> str:
        """Transient note appended after an off-protocol text turn, asking the agent to redo it."""

    async def on_control(self, call: ToolCall, turn: int, trace: TraceWriter) -> ControlResult: ...

    async def on_text(self, text: str, turn: int, trace: TraceWriter) -> ControlResult:
        """A text-only turn that no rescue fixed."""

    async def on_tool_result(self, call: ToolCall, ok: bool, turn: int) -> None:
        """Observe each executed domain call (e.g. so a user simulator knows task progress)."""

    async def user_reply(self, delivered: str, turn: int, trace: TraceWriter) -> UserTurn: ...


class ToolEnv(Protocol):
    """What a session needs of its environment: a :class:`Toolkit`, or anything that wraps one
    (e.g. a toolkit that records calls, or a suite's interaction wrapper)."""

    def schemas(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, args: Any) -> ToolResult: ...

    def spec(self, name: str) -> ToolSpec | None: ...


@dataclass
class SessionOutcome:
    """What a finished session leaves for the suite to score."""

    termination: TerminationReason
    turns: int
    messages: list[Message]
    batches: list[list[ToolCall]] = field(default_factory=list)  # executed domain calls per turn
    usage: Usage = field(default_factory=Usage)


def _add_usage(total: Usage, u: Usage) -> None:
    if not (u.input_tokens or u.cached_tokens or u.output_tokens or u.cost_usd):
        return  # a scripted agent's turn: nothing to add
    total.input_tokens += u.input_tokens
    total.cached_tokens += u.cached_tokens
    total.output_tokens += u.output_tokens
    total.cost_usd += u.cost_usd


def _ends_sessions(run: Callable[..., Awaitable[SessionOutcome]]) -> Callable[..., Awaitable[SessionOutcome]]:
    """Around :func:`run_session`: an agent may have an optional ``async session_end(session_id)``,
    awaited when the session ends however it ends (an external agent stops the process it started
    for the session); a ``CellAborted`` raised inside the session is traced as ``session_aborted``
    with its reason and the detail the raiser attached (``detail``: e.g. an agent process's last
    stderr lines)."""

    @functools.wraps(run)
    async def wrapped(agent: Agent, *args: Any, **kwargs: Any) -> SessionOutcome:
        try:
            return await run(agent, *args, **kwargs)
        except CellAborted as e:
            kwargs["trace"].emit("session_aborted", reason=e.reason, detail=getattr(e, "detail", None))
            raise
        finally:
            end = getattr(agent, "session_end", None)
            if end is not None:
                await end(kwargs["session_id"])

    return wrapped


@_ends_sessions
async def run_session(
    agent: Agent,
    env: ToolEnv,
    protocol: SessionProtocol,
    *,
    system: str,
    opening: list[Message],
    session_id: str,
    phase: str,
    trace: TraceWriter,
    max_turns: int = DEFAULT_MAX_TURNS,
    clock: SimClock | None = None,
    trigger: str = "user",
) -> SessionOutcome:
    """Run one session to its end and return the outcome; the trace gets every step.

    With a simulated ``clock``, the trace is stamped with it and each assistant turn advances it
    by :data:`TURN_DURATION`; wall time is never read.

    ``trigger`` says what opened the session: ``"user"`` (the opening messages are the user's) or
    anything else — an event such as ``"notification"`` or ``"wakeup"`` — in which case the opening
    messages are what the agent is woken with and are traced as ``activation`` events, not as
    something the user said.
    """
    if clock is not None:
        trace.clock = clock.iso
    control = {s.name for s in protocol.control_specs}
    controls = [s.json_schema() for s in protocol.control_specs]
    # Control tools go first unless the protocol puts them last, where a phase-specific control tool
    # would otherwise break the prefix that sessions of one domain share for prompt caches.
    schemas = env.schemas() + controls if getattr(protocol, "controls_last", False) else controls + env.schemas()
    messages = list(opening)
    usage = Usage()
    batches: list[list[ToolCall]] = []
    # What the model is given, kept so every request can be rebuilt from the run folder.
    params = getattr(agent, "request_params", None)
    trace.emit("session_start", phase=phase, agent=agent.name, tools=[s["function"]["name"] for s in schemas],
               prompt=trace.record_prompt(system, schemas), **({"params": params()} if callable(params) else {}))
    for m in opening:
        if m.role != "user" or m.tool_calls or m.tool_call_id:  # replayed context (e.g. a probe's history)
            trace.emit("context_message", message=m.model_dump(exclude_none=True))
        elif trigger == "user":
            trace.emit("user_message", text=m.content)
        else:
            trace.emit("activation", trigger=trigger, text=m.content)

    def observe(*extra: Message) -> Observation:
        return Observation(system=system, messages=messages + list(extra), tools=schemas, session_id=session_id, phase=phase)

    empty_retries = getattr(protocol, "empty_retries", 0)
    accepts_rescue = getattr(protocol, "accepts_rescue", lambda t: bool(t.tool_calls))
    reason = TerminationReason.TURN_CAP
    turn = 0
    for turn in range(max_turns):
        if clock is not None and turn:
            clock.advance(TURN_DURATION)
        at: AssistantTurn = await agent.act(observe())
        _add_usage(usage, at.usage)
        # An empty answer is provider weirdness, not a move: ask again with the same input.
        for attempt in range(1, empty_retries + 1):
            if at.tool_calls or (at.text or "").strip():
                break
            trace.emit("agent_empty_response", turn=turn, attempt=attempt)
            at = await agent.act(observe())
            _add_usage(usage, at.usage)
        if empty_retries and not at.tool_calls and not (at.text or "").strip():
            reason = TerminationReason.AGENT_EMPTY
            break
        # Off-protocol text turn: re-prompt with a transient note; a rescued turn takes its slot.
        attempt = 0
        while not at.tool_calls and at.text and attempt < protocol.max_rescues:
            attempt += 1
            note = protocol.rescue_note(at.text, attempt)
            trace.emit("scaffolding_note", turn=turn, attempt=attempt, text=at.text, note=note)
            retry = await agent.act(observe(Message(role="assistant", content=at.text), Message(role="user", content=note)))
            _add_usage(usage, retry.usage)
            if accepts_rescue(retry):
                trace.emit("rescued", turn=turn, attempt=attempt)
                at = retry
        calls = protocol.filter_batch(at.tool_calls, turn, trace) if at.tool_calls else []
        trace.emit(
            "assistant_turn", turn=turn, text=at.text,
            tool_calls=calls, usage=at.usage,  # models: the trace encodes them as their dumps
        )
        messages.append(Message(role="assistant", content=at.text, tool_calls=calls))
        delivered: list[str] = []
        end: TerminationReason | None = None
        if not calls:
            if not at.text:
                reason = TerminationReason.NO_PROGRESS
                break
            r = await protocol.on_text(at.text, turn, trace)
            delivered += [r.to_user] if r.to_user is not None else []
            end = r.end
            if end is None and (r.note or r.carry_on):
                if r.note:
                    messages.append(Message(role="user", content=r.note))
                    trace.emit("protocol_note", turn=turn, text=r.note)
                continue
        executed: list[ToolCall] = []
        for pos, c in enumerate(calls):
            if c.name in control:
                r = await protocol.on_control(c, turn, trace)
                content = r.content
                trace.emit("control_result", turn=turn, call_id=c.id, name=c.name, content=content)
                delivered += [r.to_user] if r.to_user is not None else []
                end = end or r.end
            else:
                res = env.call(c.name, c.arguments)
                spec = env.spec(c.name)
                trace.emit(
                    "tool_call", turn=turn, batch_pos=pos, call_id=c.id, name=c.name, arguments=c.arguments,
                    kind=(spec.kind if spec else ToolKind.READ).value, ok=res.ok, output=res.output, error=res.error,
                )
                await protocol.on_tool_result(c, res.ok, turn)
                content = res.content()
                executed.append(c)
            messages.append(Message(role="tool", content=content, tool_call_id=c.id, name=c.name))
        if executed:
            batches.append(executed)
        if delivered and end is None:
            reply = await protocol.user_reply("\n\n".join(delivered), turn, trace)
            if reply.text:
                messages.append(Message(role="user", content=reply.text))
                trace.emit("user_message", turn=turn, text=reply.text, end=reply.end)
            if reply.end:
                end = TerminationReason.USER_END
        if end is not None:
            reason = end
            break
        if not calls and not delivered:
            reason = TerminationReason.NO_PROGRESS
            break
    trace.emit("session_end", reason=reason.value, turns=turn + 1, usage=usage)
    return SessionOutcome(termination=reason, turns=turn + 1, messages=messages, batches=batches, usage=usage)
