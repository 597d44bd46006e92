"""Control tools of one activation (the user channel, the agent's own schedule, finishing) and the
kernel SessionProtocol that routes them to the environment."""

from __future__ import annotations

import json
from typing import Any

from longview.kernel.agent import ToolCall
from longview.kernel.session import ControlResult, TerminationReason, UserTurn
from longview.kernel.tools import DateTime, ToolError, ToolKind, Toolkit, tool
from longview.kernel.trace import TraceWriter
from longview.suites.tempo.env import TempoEnv


class Controls(Toolkit):
    """Schemas (and argument validation) of the control tools; bodies live in :class:`TempoEnv`."""

    def __init__(self, env: TempoEnv) -> None:
        self.env = env
        super().__init__()

    @tool(ToolKind.WRITE, tags=("control",))
    def send_message(self, text: str) -> dict:
        """Message the user (a suggestion, a summary, a heads-up). While they sleep it waits until they wake.

        Args:
            text: The message.
        """
        return self.env.send_message(text)

    @tool(ToolKind.WRITE, tags=("control",))
    def request_approval(self, message: str, actions: list[dict]) -> dict:
        """Ask the user to approve specific changes before you make them. List every change explicitly.

        Args:
            message: What you propose and why.
            actions: The changes, each {"tool": write-tool name, "args": {its arguments}}.
        """
        return self.env.request_approval(message, actions)

    @tool(ToolKind.WRITE, tags=("control",))
    def schedule_wakeup(self, at: DateTime, note: str) -> dict:
        """Wake yourself up at a later simulated time to continue some work.

        Args:
            at: When to wake up.
            note: What to do then.
        """
        return self.env.schedule_wakeup(at, note)

    @tool(ToolKind.WRITE, tags=("control",))
    def defer_task(self, task: str, plan: str, until: DateTime | None = None) -> dict:
        """Explicitly put a piece of work off until later (e.g. sleep time, when resources free up).

        Args:
            task: Which work you defer.
            plan: How and when you will do it.
            until: When you will pick it up (a wake-up is scheduled for then).
        """
        return self.env.defer_task(task, plan, until)

    @tool(ToolKind.READ, tags=("control",))
    def finish(self, summary: str | None = None) -> dict:
        """End this activation; you will be woken by the next message, event or your own wake-up.

        Args:
            summary: Optional private summary of what you did.
        """
        return {"finished": True}


class TempoProtocol:
    """One activation's session rules."""

    max_rescues = 0

    def __init__(self, env: TempoEnv, wording: Any = None) -> None:
        self.env = env
        self.wording = wording
        self.controls = Controls(env)
        self.control_specs = self.controls.specs

    def filter_batch(self, calls: list[ToolCall], turn: int, trace: TraceWriter) -> list[ToolCall]:
        return calls

    def rescue_note(self, text: str, attempt: int) -> str:
        return ""

    async def on_control(self, call: ToolCall, turn: int, trace: TraceWriter) -> ControlResult:
        res = self.controls.call(call.name, call.arguments)
        trace.emit("control", turn=turn, name=call.name, arguments=call.arguments, ok=res.ok, output=res.output, error=res.error)
        if call.name == "finish" and res.ok:
            return ControlResult(content=res.content(), end=TerminationReason.AGENT_FINISH)
        to_user = None
        if res.ok and call.name in ("send_message", "request_approval"):
            to_user = str(call.arguments.get("text") or call.arguments.get("message") or "")
        return ControlResult(content=res.content(), to_user=to_user)

    async def on_text(self, text: str, turn: int, trace: TraceWriter) -> ControlResult:
        """A text-only turn is a message to the user and ends the activation."""
        self.env.send_message(text)
        trace.emit("control", turn=turn, name="send_message", arguments={"text": text}, ok=True, via="text")
        return ControlResult(to_user=text, end=TerminationReason.AGENT_FINISH)

    async def on_tool_result(self, call: ToolCall, ok: bool, turn: int) -> None:
        return None

    async def user_reply(self, delivered: str, turn: int, trace: TraceWriter) -> UserTurn:
        replies, self.env.replies = self.env.replies, []
        if not replies:
            return UserTurn(text=None)
        return UserTurn(text=await word(self.wording, "\n".join(replies), delivered))


async def word(wording: Any, decision: str, context: str) -> str:
    """The decision verbatim; a wording model's rephrasing is added after it, never instead of it, so
    no wording can change what was approved."""
    if wording is None:
        return decision
    from longview.users.base import UserIntent

    said = await wording.word(UserIntent(draft=decision), context)
    return decision if not said or said.strip() == decision.strip() else f"{decision}\n{said}"


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


__all__ = ["Controls", "TempoProtocol", "ToolError"]
