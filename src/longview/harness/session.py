"""The stock session protocol: a suite that only asks and reads the answer uses it as it is, one
that needs more extends it.

One :class:`Session` is one session of a cell: the user's opening message (or an event, with
``trigger``), the suite's tools, the kernel's turn loop (:func:`~longview.kernel.session.run_session`)
with its trace, inside one of the run's session slots. What the agent delivers to the user — a
text turn, or a control tool the suite declares (e.g. ``answer``) — is kept in :attr:`delivered`;
the user's reply to it comes from :meth:`Session.reply`, which by default ends the session, so a
one-reply suite needs nothing else. The session also ends when the agent's turn does nothing
(neither text nor calls), or at ``--max-turns``.

Extend it by overriding :meth:`reply` (a conversation: answer, end when satisfied),
:meth:`on_control` (what a control tool does), or :meth:`on_tool_result` (watch the agent's work).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from longview.harness.context import CellContext
from longview.kernel.agent import Message, ToolCall
from longview.kernel.session import ControlResult, ToolEnv, UserTurn, run_session
from longview.kernel.session import SessionOutcome as Ended
from longview.kernel.tools import Toolkit, ToolSpec
from longview.kernel.trace import TraceWriter


class Session:
    """One session with the stock protocol (see the module docstring)."""

    max_rescues = 0  # a text turn is an answer, never re-prompted

    def __init__(self, *, system: str, opening: str, tools: ToolEnv | None = None, controls: Sequence[ToolSpec] = (),
                 phase: str = "session", trigger: str = "user", max_turns: int | None = None) -> None:
        self.system = system
        self.opening = opening
        self.tools: ToolEnv = tools if tools is not None else Toolkit([])
        self.control_specs: list[ToolSpec] = list(controls)
        self.phase = phase
        self.trigger = trigger
        self.max_turns = max_turns
        self.delivered: list[str] = []  # what the agent delivered to the user, one entry per turn
        self.control_calls: list[ToolCall] = []  # the control tools the agent called, in order
        self.ended: Ended | None = None  # how the session ended (turns, termination, messages)

    @property
    def answer(self) -> str | None:
        """The last thing the agent delivered to the user (None: nothing)."""
        return self.delivered[-1] if self.delivered else None

    async def run(self, ctx: CellContext[Any, Any], session_id: str) -> Session:
        """Run the session in one of the run's slots, traced as ``session_id`` in the cell's folder."""
        async with ctx.session():
            trace = ctx.trace(session_id)
            try:
                self.ended = await run_session(
                    ctx.agent, self.tools, self, system=self.system,
                    opening=[Message(role="user", content=self.opening)], session_id=session_id, phase=self.phase,
                    trace=trace, max_turns=self.max_turns or ctx.max_turns, clock=ctx.clock, trigger=self.trigger)
            finally:
                trace.close()
        return self

    # --- what a suite overrides --------------------------------------------------------------

    async def reply(self, delivered: str) -> UserTurn:
        """The user's answer to what the agent delivered this turn; default: none, the session ends."""
        return UserTurn(text=None, end=True)

    async def on_control(self, call: ToolCall, turn: int, trace: TraceWriter) -> ControlResult:
        """A control tool: by default its arguments are delivered to the user (as JSON)."""
        self.control_calls.append(call)
        return ControlResult(to_user=json.dumps(call.arguments, ensure_ascii=False, sort_keys=True))

    async def on_tool_result(self, call: ToolCall, ok: bool, turn: int) -> None:
        """Each executed call of the suite's tools (e.g. to track progress); default: nothing."""

    # --- the kernel's SessionProtocol --------------------------------------------------------

    def filter_batch(self, calls: list[ToolCall], turn: int, trace: TraceWriter) -> list[ToolCall]:
        return calls

    def rescue_note(self, text: str, attempt: int) -> str:
        return ""

    async def on_text(self, text: str, turn: int, trace: TraceWriter) -> ControlResult:
        return ControlResult(to_user=text)

    async def user_reply(self, delivered: str, turn: int, trace: TraceWriter) -> UserTurn:
        self.delivered.append(delivered)
        return await self.reply(delivered)
