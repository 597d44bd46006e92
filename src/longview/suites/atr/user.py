"""The learning-session user simulator (paper 000, App. B.3): interface and embedded default.

The simulator holds only the current task (intent, parameters, the gold tool path) — never the
hidden rules. When the orchestrator passes a rule-answer directive it places the literal
``<RULE_ANSWER>`` token in its reply; the orchestrator, not the simulator, substitutes the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from longview.suites.atr.dataset import LearningSession
from longview.suites.atr.scaffold import words

RULE_TOKEN = "<RULE_ANSWER>"
PATIENCE = 3  # idle exchanges after which the user leaves, so a stuck agent cannot run to the cap

# Argument keys of the first gold step that the opening may mention (App. B.3 "sanitized hint").
_OPENING_KEYS = (
    "location", "category", "sender", "folder", "destination", "origin", "service_type", "cuisine",
    "calendar", "file_type", "doc_type",
)


@dataclass
class UserState:
    """What the simulator has observed in the current session."""

    done_tools: set[str] = field(default_factory=set)  # tools the agent has called successfully
    answered: set[str] = field(default_factory=set)  # task parameters already given
    ok_calls: int = 0  # successful domain calls so far
    calls_at_reply: int = 0  # ok_calls when the user last replied
    idle: int = 0  # consecutive replies to messages that neither asked nor followed any progress


@dataclass
class UserReply:
    text: str
    end: bool


class UserSimulator(Protocol):
    name: str

    async def open(self, session: LearningSession) -> str: ...

    async def reply(
        self, session: LearningSession, state: UserState, agent_message: str, directive: str | None
    ) -> UserReply:
        """Answer the agent; with a directive, include RULE_TOKEN exactly once."""


def task_done(session: LearningSession, state: UserState) -> bool:
    """The task is done when every tool the task needs has been called successfully."""
    needed = set(session.expected_tools) or {s.tool for s in session.gold_trajectory}
    return needed <= state.done_tools


def _fmt(value: object) -> str:
    if isinstance(value, list):
        return "; ".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k.replace('_', ' ')} {_fmt(v)}" for k, v in value.items())
    return str(value)


class ScriptedUser:
    """Deterministic simulator: opens with the intent, answers task questions from the task
    parameters, and ends once the task is done."""

    name = "embedded:scripted-user@1"

    async def open(self, session: LearningSession) -> str:
        hint = ""
        if session.gold_trajectory:
            args = session.gold_trajectory[0].arguments
            bits = [f"{k.replace('_', ' ')}: {args[k]}" for k in _OPENING_KEYS if isinstance(args.get(k), (str, int))]
            hint = f" ({'; '.join(bits)})" if bits else ""
        return f"Hi! {session.reason_for_call.rstrip('.')}.{hint}"

    async def reply(
        self, session: LearningSession, state: UserState, agent_message: str, directive: str | None
    ) -> UserReply:
        parts: list[str] = []
        if directive is not None:
            parts.append(RULE_TOKEN)
        asked = "?" in agent_message.replace(directive or "\0", "")
        progressed = state.ok_calls > state.calls_at_reply
        state.calls_at_reply = state.ok_calls
        state.idle = 0 if (asked or progressed or directive is not None) else state.idle + 1
        if asked and not task_done(session, state):
            parts.append(self._answer(session, state, agent_message))
        done = task_done(session, state)
        if done:
            parts.append("That covers what I needed, thanks.")
        elif state.idle >= PATIENCE:
            parts.append("Let's leave it there for today.")
            done = True
        elif not asked:
            parts.append("Sounds good, please go ahead.")
        return UserReply(text=" ".join(parts), end=done)

    def _answer(self, session: LearningSession, state: UserState, message: str) -> str:
        q = words(message)
        params = session.task_params
        keys = [k for k in params if words(k) & q] or [k for k in params if k not in state.answered]
        if not keys:
            return "You have everything I know about this."
        state.answered.update(keys)
        return " ".join(f"{k.replace('_', ' ').capitalize()}: {_fmt(params[k])}." for k in keys)
